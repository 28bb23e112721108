package cassette_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/faketb"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/mcptest/cassette"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A recorded session answers the same calls, in recorded order, then the
// last answer again; the progress recorded before an answer comes first.
func TestServerPlaysTheRecording(t *testing.T) {
	var progress []float64
	c := mcptest.Connect(t, cassette.Server(t, "testdata/notes.cassette"))
	add := func(text string) *client.CallToolResult {
		res, err := c.CallTool(t.Context(), "add_note", map[string]any{"text": text},
			client.WithProgress(func(p client.Progress) { progress = append(progress, p.Progress) }))
		require.NoError(t, err)
		return res
	}
	assert.Equal(t, "note 1 kept", add("buy milk").Text())
	assert.Equal(t, "note 2 kept", add("buy milk").Text())
	assert.Equal(t, "note 2 kept", add("buy milk").Text(), "past the recording, the last answer again")
	res := add("")
	assert.True(t, res.IsError)
	assert.Equal(t, "a note needs some text", res.Text())
	assert.Equal(t, []float64{1}, progress, "the recorded progress, under the live call's token")
}

// A request the cassette has no answer for fails the test, naming the
// closest recorded request, and gets a JSON-RPC error.
func TestServerUnrecordedRequest(t *testing.T) {
	tb := faketb.Run(t, func(tb testing.TB) {
		c := mcptest.Connect(tb, cassette.Server(tb, "testdata/notes.cassette"))
		_, err := c.CallTool(tb.Context(), "add_note", map[string]any{"text": "buy eggs"})
		assert.ErrorContains(t, err, "no recorded answer for tools/call")
		_, err = c.ListTools(tb.Context(), "")
		assert.Error(t, err)
	})
	out := tb.Text()
	assert.Contains(t, out, `no recorded answer for the request tools/call {"arguments":{"text":"buy eggs"},"name":"add_note"}`)
	assert.Contains(t, out, `the closest recorded request: tools/call {"arguments":{"text":"buy milk"},"name":"add_note"}`)
	assert.Contains(t, out, "the cassette has no tools/list request at all; it has: initialize, tools/call")
}

// A tampered cassette fails the test at once, naming the line.
func TestServerTamperedCassette(t *testing.T) {
	data, err := os.ReadFile("testdata/notes.cassette")
	require.NoError(t, err)
	bad := filepath.Join(t.TempDir(), "bad.cassette")
	require.NoError(t, os.WriteFile(bad, append(data, []byte(`{"dir":"s2c","ms":1,"msg":{"jsonrpc":"2.0","id":9,"result":{}}}`+"\n")...), 0o644))
	tb := faketb.Run(t, func(tb testing.TB) { cassette.Server(tb, bad) })
	assert.Contains(t, tb.Text(), bad+":12: ms 1 goes back in time")
}

// Replay against a server that answers otherwise: the diff; with
// MCPTEST_UPDATE=1, the cassette takes the new answers and replays clean.
func TestReplayUpdates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.cassette")
	data, err := os.ReadFile("testdata/notes.cassette")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	// The same recording played as the server: a "changed server" is a
	// cassette whose answers differ.
	changedPath := filepath.Join(t.TempDir(), "changed.cassette")
	require.NoError(t, os.WriteFile(changedPath, []byte(strings.ReplaceAll(string(data), "note 2 kept", "note 2 stored")), 0o644))

	tb := faketb.Run(t, func(tb testing.TB) {
		cassette.Replay(tb, mcptest.Connect(tb, cassette.Server(tb, changedPath)), path)
	})
	assert.Contains(t, tb.Text(), `-        "text": "note 2 kept",`)
	assert.Contains(t, tb.Text(), `+        "text": "note 2 stored",`)

	t.Setenv("MCPTEST_UPDATE", "1")
	cassette.Replay(t, mcptest.Connect(t, cassette.Server(t, changedPath)), path)
	updated, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(updated), "note 2 stored")
	assert.Contains(t, string(updated), `"clientInfo":{"name":"Inspector"`, "the requests stay as recorded")
	t.Setenv("MCPTEST_UPDATE", "")
	cassette.Replay(t, mcptest.Connect(t, cassette.Server(t, changedPath)), path)
}

// A list in another order is the same list; another item is not.
func TestReplayListsInAnyOrder(t *testing.T) {
	data, err := os.ReadFile("testdata/lists.cassette")
	require.NoError(t, err)
	dir := t.TempDir()
	reordered := filepath.Join(dir, "reordered.cassette")
	require.NoError(t, os.WriteFile(reordered, []byte(strings.Replace(string(data),
		`[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]`,
		`[{"name":"b","inputSchema":{"type":"object"}},{"name":"a","inputSchema":{"type":"object"}}]`, 1)), 0o644))
	cassette.Replay(t, mcptest.Connect(t, cassette.Server(t, reordered)), "testdata/lists.cassette")

	renamed := filepath.Join(dir, "renamed.cassette")
	require.NoError(t, os.WriteFile(renamed, []byte(strings.Replace(string(data), `{"name":"b"`, `{"name":"c"`, 1)), 0o644))
	tb := faketb.Run(t, func(tb testing.TB) {
		cassette.Replay(tb, mcptest.Connect(tb, cassette.Server(tb, renamed)), "testdata/lists.cassette")
	})
	assert.Contains(t, tb.Text(), `-        "name": "b"`)
	assert.Contains(t, tb.Text(), `+        "name": "c"`)
}

// Once: each recorded answer plays once, and a request sent more often
// than recorded fails the test.
func TestServerOnce(t *testing.T) {
	tb := faketb.Run(t, func(tb testing.TB) {
		c := mcptest.Connect(tb, cassette.Server(tb, "testdata/notes.cassette", cassette.Once()))
		for _, want := range []string{"note 1 kept", "note 2 kept"} {
			res, err := c.CallTool(tb.Context(), "add_note", map[string]any{"text": "buy milk"})
			require.NoError(t, err)
			assert.Equal(t, want, res.Text())
		}
		_, err := c.CallTool(tb.Context(), "add_note", map[string]any{"text": "buy milk"})
		assert.ErrorContains(t, err, "no recorded answer")
	})
	assert.Contains(t, tb.Text(), `no recorded answer left for the request tools/call {"arguments":{"text":"buy milk"},"name":"add_note"}: it was recorded 2 time(s)`)
}

// IgnoreParams: a member that changes from run to run does not keep a
// request from matching; the recorded answers come in recorded order. The
// zero Option beside it changes nothing.
func TestServerIgnoreParams(t *testing.T) {
	c := mcptest.Connect(t, cassette.Server(t, "testdata/notes.cassette", cassette.Option{}, cassette.IgnoreParams("text")))
	for _, want := range []string{"note 1 kept", "note 2 kept", "a note needs some text"} {
		res, err := c.CallTool(t.Context(), "add_note", map[string]any{"text": "anything at all"})
		require.NoError(t, err)
		assert.Equal(t, want, res.Text())
	}
}
