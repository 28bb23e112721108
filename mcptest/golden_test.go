package mcptest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNormalizeRemovesStampsHintsAndIDs(t *testing.T) {
	t.Parallel()
	transcript := json.RawMessage(`[
		{"jsonrpc":"2.0","id":41,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","trace":"keep"}}},
		{"jsonrpc":"2.0","id":41,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"v9"}},"ttlMs":0,"cacheScope":"public","resultType":"complete",
			"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"ttlMs":{"type":"integer"},"cacheScope":{"type":"string"}}}}]}},
		{"jsonrpc":"2.0","id":"abc","method":"ping"},
		{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}
	]`)
	got, err := Normalize(transcript)
	require.NoError(t, err)
	want := `[
  {
    "id": 1,
    "jsonrpc": "2.0",
    "method": "tools/list",
    "params": {
      "_meta": {
        "trace": "keep"
      }
    }
  },
  {
    "id": 1,
    "jsonrpc": "2.0",
    "result": {
      "tools": [
        {
          "inputSchema": {
            "properties": {
              "cacheScope": {
                "type": "string"
              },
              "ttlMs": {
                "type": "integer"
              }
            },
            "type": "object"
          },
          "name": "t"
        }
      ]
    }
  },
  {
    "id": 2,
    "jsonrpc": "2.0",
    "method": "ping"
  },
  {
    "jsonrpc": "2.0",
    "method": "notifications/progress",
    "params": {
      "progress": 1
    }
  }
]
`
	assert.Equal(t, want, string(got))
}

func TestNormalizeBareResult(t *testing.T) {
	t.Parallel()
	got, err := Normalize(map[string]any{
		"_meta":      map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "x"}},
		"ttlMs":      5000,
		"cacheScope": "private",
		"resultType": "input_required", // not "complete": it means something
		"big":        json.Number("12345678901234567890"),
		"html":       "<b>&</b>",
	})
	require.NoError(t, err)
	assert.Equal(t, "{\n  \"big\": 12345678901234567890,\n  \"html\": \"<b>&</b>\",\n  \"resultType\": \"input_required\"\n}\n", string(got))
}

func TestNormalizeOptions(t *testing.T) {
	t.Parallel()
	value := json.RawMessage(`{"ttlMs":1,"when":"2024-01-01","items":[{"when":"x","n":1}]}`)

	got, err := Normalize(value, IgnoreFields("when"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"items":[{"n":1}]}`, string(got))
	// A _meta emptied by IgnoreFields goes, as one emptied of stamps does.
	got, err = Normalize(json.RawMessage(`{"_meta":{"when":1},"x":{"_meta":{"when":2,"k":3}}}`), IgnoreFields("when"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"x":{"_meta":{"k":3}}}`, string(got))

	got, err = Normalize(value, Verbatim())
	require.NoError(t, err)
	assert.JSONEq(t, string(value), string(got))

	got, err = Normalize(value, Transform(func(v any) any {
		v.(map[string]any)["items"] = "replaced"
		return v
	}))
	require.NoError(t, err)
	assert.JSONEq(t, `{"when":"2024-01-01","items":"replaced"}`, string(got))
}

func TestNormalizeRejectsBadInput(t *testing.T) {
	t.Parallel()
	_, err := Normalize(json.RawMessage(`{"a":`))
	assert.ErrorContains(t, err, "not valid JSON")
	_, err = Normalize([]byte(`{} {}`))
	assert.ErrorContains(t, err, "more than one JSON value")
	_, err = Normalize(make(chan int))
	assert.ErrorContains(t, err, "chan int")
}

// The Golden tests change directory (Golden writes under ./testdata), so
// they do not run in parallel.

func TestGoldenWritesThenCompares(t *testing.T) {
	t.Chdir(t.TempDir())
	value := map[string]any{"tools": []string{"a", "b"}, "ttlMs": 0}

	t.Setenv(updateEnv, "1")
	f := runFake(t, func(tb testing.TB) { Assert(tb).Golden("sub/tools", value) })
	f.expectPass(t)
	assert.Contains(t, f.output(), filepath.Join("testdata", "sub", "tools.json"))
	written, err := os.ReadFile(filepath.Join("testdata", "sub", "tools.json"))
	require.NoError(t, err)
	assert.Equal(t, "{\n  \"tools\": [\n    \"a\",\n    \"b\"\n  ]\n}\n", string(written))

	t.Setenv(updateEnv, "0")
	runFake(t, func(tb testing.TB) {
		assert.True(t, Assert(tb).Golden("sub/tools", value))
	}).expectPass(t)

	// A Windows checkout may have turned the line ends into CRLF.
	crlf := strings.ReplaceAll(string(written), "\n", "\r\n")
	require.NoError(t, os.WriteFile(filepath.Join("testdata", "sub", "tools.json"), []byte(crlf), 0o644))
	runFake(t, func(tb testing.TB) { Assert(tb).Golden("sub/tools", value) }).expectPass(t)

	changed := map[string]any{"tools": []string{"a", "c"}}
	f = runFake(t, func(tb testing.TB) {
		assert.False(t, Assert(tb).Golden("sub/tools", changed))
	})
	f.expectFailure(t, "differs from", "--- testdata/sub/tools.json\n+++ actual\n", `-    "b"`, `+    "c"`, "MCPTEST_UPDATE=1")
}

// Issue 13.6: a mismatch in a long file prints a unified diff whose hunk
// headers give the golden file's line numbers, as diff -u does, and long
// lines whole.
func TestGoldenMismatchIsAUnifiedDiff(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(updateEnv, "")
	long := strings.Repeat("a long description that goes on and on ", 5)
	value := make([]string, 40)
	for i := range value {
		value[i] = fmt.Sprintf("tool %d: %s", i, long)
	}
	golden, err := Normalize(value)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll("testdata", 0o755))
	require.NoError(t, os.WriteFile(filepath.Join("testdata", "tools.json"), golden, 0o644))

	value[30] = "tool 30: renamed"
	f := runFake(t, func(tb testing.TB) { Assert(tb).Golden("tools", value) })
	f.expectFailure(t)
	want := `mcptest: Golden("tools"): the value differs from testdata/tools.json:
--- testdata/tools.json
+++ actual
@@ -29,7 +29,7 @@
   "tool 27: ` + long + `",
   "tool 28: ` + long + `",
   "tool 29: ` + long + `",
-  "tool 30: ` + long + `",
+  "tool 30: renamed",
   "tool 31: ` + long + `",
   "tool 32: ` + long + `",
   "tool 33: ` + long + `",
If the new value is right, rerun the test with MCPTEST_UPDATE=1 (or -mcptest.update) to write it, and review the change.`
	assert.Equal(t, want, f.output())
}

// Issue 34: a golden file of a server's lists says, above the diff, which
// changes break clients.
func TestGoldenClassifiesSchemaDrift(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(updateEnv, "")
	tool := func(name string, required ...string) map[string]any {
		props := map[string]any{}
		for _, r := range required {
			props[r] = map[string]any{"type": "string"}
		}
		return map[string]any{"name": name, "inputSchema": map[string]any{"type": "object", "properties": props, "required": required}}
	}
	golden, err := Normalize(map[string]any{"tools": []any{tool("search", "q")}})
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll("testdata", 0o755))
	require.NoError(t, os.WriteFile(filepath.Join("testdata", "tools.json"), golden, 0o644))

	now := map[string]any{"tools": []any{tool("search", "q", "lang"), tool("suggest")}}
	f := runFake(t, func(tb testing.TB) { Assert(tb).Golden("tools", now) })
	f.expectFailure(t, `mcptest: Golden("tools"): the value differs from testdata/tools.json:
schema drift: 1 breaking, 1 compatible
  BREAKING    tools["search"].inputSchema.required: "lang" is a new required argument: clients that do not send it get an error
  compatible  tools["suggest"]: new tool
--- testdata/tools.json
+++ actual
`)
}

func TestGoldenMissingFile(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(updateEnv, "")
	f := runFake(t, func(tb testing.TB) { Assert(tb).Golden("absent", []int{1}) })
	f.expectFailure(t, "does not exist yet", "MCPTEST_UPDATE=1", "[\n  1\n]")

	// A long value: its first lines only (go test -v prints it all).
	f = runFake(t, func(tb testing.TB) { Assert(tb).Golden("absent", make([]int, 100)) })
	if testing.Verbose() {
		f.expectFailure(t, "The value is:\n[\n  0,\n")
		return
	}
	f.expectFailure(t, "The value begins (10 of 102 lines; go test -v prints all):\n[\n  0,\n")
	assert.Equal(t, 12, strings.Count(f.output(), "\n"), f.output())
}

func TestGoldenBadNamesAndEnv(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, name := range []string{"", "../up", "/abs", `back\slash`, "."} {
		f := runFake(t, func(tb testing.TB) { Assert(tb).Golden(name, 1) })
		f.expectFailure(t, "mcptest: Golden")
	}
	t.Setenv(updateEnv, "yes please")
	runFake(t, func(tb testing.TB) { Assert(tb).Golden("x", 1) }).expectFailure(t, `MCPTEST_UPDATE="yes please" is not a boolean`)
}

func TestGoldenHonoursTheUpdateFlags(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(updateEnv, "")
	require.NotNil(t, flagLookup(updateFlag), "the -mcptest.update flag is registered")
	setFlag(t, updateFlag, "true")
	runFake(t, func(tb testing.TB) { Assert(tb).Golden("flagged", 1) }).expectPass(t)
	_, err := os.Stat(filepath.Join("testdata", "flagged.json"))
	assert.NoError(t, err)
}

// Issue 30.10: tests updating one golden file at once leave it whole (it is
// written to a temporary file and renamed), and when they give it different
// values the second one fails instead of the last write silently winning.
func TestGoldenParallelUpdates(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(updateEnv, "1")
	value := func(i int) map[string]any {
		tools := make([]string, 200)
		for j := range tools {
			tools[j] = fmt.Sprintf("tool-%d", j)
		}
		tools[0] = fmt.Sprintf("first-of-%d", i)
		return map[string]any{"tools": tools}
	}
	run := func(name string, valueOf func(i int) map[string]any) []*fakeTB {
		fakes := make([]*fakeTB, 50)
		var wg sync.WaitGroup
		for i := range fakes {
			wg.Go(func() { fakes[i] = runFake(t, func(tb testing.TB) { Assert(tb).Golden(name, valueOf(i)) }) })
		}
		wg.Wait()
		return fakes
	}

	for _, f := range run("same", func(int) map[string]any { return value(0) }) {
		f.expectPass(t)
	}
	want, err := Normalize(value(0))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join("testdata", "same.json"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	failed := 0
	for _, f := range run("differ", value) {
		if f.Failed() {
			failed++
			assert.Contains(t, f.output(), "was already updated in this run by")
		}
	}
	assert.Equal(t, 49, failed, "every test but the first to update the file fails")
	got, err = os.ReadFile(filepath.Join("testdata", "differ.json"))
	require.NoError(t, err)
	assert.True(t, json.Valid(got), "the file is one whole value")
	entries, err := os.ReadDir("testdata")
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no temporary file is left behind")
}

// A golden file an editor saved with a byte order mark still matches.
func TestGoldenIgnoresAByteOrderMark(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(updateEnv, "")
	golden, err := Normalize([]int{1})
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll("testdata", 0o755))
	require.NoError(t, os.WriteFile(filepath.Join("testdata", "bom.json"), append([]byte("\ufeff"), golden...), 0o644))
	runFake(t, func(tb testing.TB) { Assert(tb).Golden("bom", []int{1}) }).expectPass(t)
}

// Issue 30.14: a value too long to print (here 1 MiB) is never printed
// whole, not even under go test -v: its first lines are, and the whole
// value is in a file the failure names.
func TestGoldenMissingFileWithAHugeValue(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(updateEnv, "")
	value := make([]string, 20000)
	for i := range value {
		value[i] = fmt.Sprintf("tool %05d %s", i, strings.Repeat("x", 30))
	}
	want, err := Normalize(value)
	require.NoError(t, err)
	for _, verbose := range []bool{false, true} {
		got := head(string(want), verbose)
		assert.Less(t, len(got), 66<<10, "verbose=%v", verbose)
		m := regexp.MustCompile(`^The value begins \((\d+) of 20002 lines; all of it is in (\S+)\):\n\[\n`).FindStringSubmatch(got)
		require.NotNil(t, m, "verbose=%v: %.300s", verbose, got)
		whole, err := os.ReadFile(m[2])
		require.NoError(t, err)
		os.Remove(m[2])
		assert.Equal(t, string(want), string(whole))
		if !verbose {
			assert.Equal(t, "10", m[1])
		}
	}
	one := head(strings.Repeat("y", 1<<20), true)
	assert.Less(t, len(one), 66<<10)
	assert.Contains(t, one, "The value begins (0 of 1 lines; all of it is in ")
}
