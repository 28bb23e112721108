package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

// breakingServer has one tool, echo, and answers every other request with
// an error, but for logging/setLevel: it closes the connection instead. The
// fuzzer's seeds never send it; a raw input whose third byte is 6 (mod 8)
// does.
func breakingServer() ServerFunc {
	return func(ctx context.Context, conn *memtransport.Conn) error {
		for {
			msg, err := conn.Receive(ctx)
			if err != nil {
				return nil
			}
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(msg, &req) != nil || len(req.ID) == 0 {
				continue
			}
			var result any
			switch req.Method {
			case "logging/setLevel":
				return conn.Close()
			case "initialize":
				result = map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]any{"name": "breaking", "version": "1"},
					"capabilities": map[string]any{"tools": map[string]any{}}}
			case "ping":
				result = map[string]any{}
			case "tools/list":
				result = map[string]any{"tools": []any{map[string]any{"name": "echo",
					"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}}}}
			case "tools/call":
				result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}}
			}
			out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
			if result == nil {
				out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "no such method"}})
			}
			if conn.Send(ctx, out) != nil {
				return nil
			}
		}
	}
}

// fuzzChildEnv runs FuzzBreakingServer, in a child process: "seed" adds the
// breaking input as the first seed, "fuzz" leaves it to the fuzzer to find.
const fuzzChildEnv = "MCPTEST_FUZZ_BREAKING"

func FuzzBreakingServer(f *testing.F) {
	mode := os.Getenv(fuzzChildEnv)
	if mode == "" {
		f.Skip("run by TestFuzzBrokenConnection and TestFuzzFindsTheBreakingInput, in a child process: it fails by design")
	}
	if mode == "seed" {
		f.Add([]byte{3, 0, 6, 1, 2, 3})
	}
	Fuzz(f, breakingServer()) // the line failures must name
}

// fuzzLine is the line of FuzzBreakingServer that calls Fuzz.
func fuzzLine(t *testing.T) string {
	src, err := os.ReadFile("fuzzbreak_test.go")
	require.NoError(t, err)
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "// the line failures must name") {
			return fmt.Sprintf("fuzzbreak_test.go:%d: ", i+1)
		}
	}
	t.Fatal("no Fuzz line in fuzzbreak_test.go")
	return ""
}

// An input that breaks the connection fails, at the test's line that
// called Fuzz, saying so; the next inputs run on a new connection and pass.
// Before, the next input's reconnection called f.Helper inside the fuzz
// target, and the panic ended the test binary.
func TestFuzzBrokenConnection(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^FuzzBreakingServer$")
	cmd.Env = append(os.Environ(), fuzzChildEnv+"=seed")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", out)
	s := string(out)
	assert.NotContains(t, s, "panic")
	assert.Contains(t, s, "--- FAIL: FuzzBreakingServer/seed#0")
	assert.Equal(t, 1, strings.Count(s, "--- FAIL: FuzzBreakingServer/"), "only the breaking input fails:\n%s", s)
	assert.Contains(t, s, fuzzLine(t)+"sent {")
	assert.Contains(t, s, `"method":"logging/setLevel"`)
	assert.Contains(t, s, "the connection broke")
	assert.NotContains(t, s, "fuzz.go:", "a failure names the kit's file")
}

// Under -fuzz, the fuzzer finds the input that breaks the connection,
// saves it, and the saved input reproduces the failure; the binary does not
// crash. The fuzzing engine runs in this test binary, in a directory of its
// own (where it saves the input), with an execution-count budget; it finds
// the input within a few hundred.
func TestFuzzFindsTheBreakingInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.fuzz=^FuzzBreakingServer$", "-test.fuzztime=20000x",
		"-test.fuzzminimizetime=200x", "-test.parallel=1", "-test.fuzzcachedir="+filepath.Join(dir, "cache"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), fuzzChildEnv+"=fuzz")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the fuzzer found nothing:\n%s", out)
	s := string(out)
	assert.NotContains(t, s, "f.Helper was called inside the fuzz target")
	assert.NotContains(t, s, "panic:")
	assert.Contains(t, s, "the connection broke")
	m := regexp.MustCompile(`testdata/fuzz/FuzzBreakingServer/([0-9a-f]+)`).FindStringSubmatch(s)
	require.NotNil(t, m, "no input saved:\n%s", s)

	// The saved input is the one that breaks the connection.
	cmd = exec.Command(os.Args[0], "-test.run=^FuzzBreakingServer/"+m[1]+"$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), fuzzChildEnv+"=fuzz")
	out, err = cmd.CombinedOutput()
	require.ErrorAs(t, err, &exit, "the saved input passes:\n%s", out)
	assert.Contains(t, string(out), `"method":"logging/setLevel"`)
	assert.Contains(t, string(out), "the connection broke")
	assert.Contains(t, string(out), fuzzLine(t))
}
