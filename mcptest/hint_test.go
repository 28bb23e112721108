package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

func TestCallbackHint(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "\nhint: the client answers sampling/createMessage only when Connect is given mcptest.WithClient(client.Options{CreateMessage: fn})",
		callbackHint(`calling "sampling/createMessage": client does not support sampling (no CreateMessage callback)`))
	assert.Contains(t, callbackHint("client does not support elicitation (no Elicit callback)"), "mcptest.WithClient(client.Options{Elicit: fn}), at protocol version 2025-06-18 and later")
	assert.Contains(t, callbackHint("client does not support elicitation"), "mcptest.WithClient(client.Options{Elicit: fn})", "go-sdk's own refusal")
	assert.Contains(t, callbackHint("client does not support roots (no ListRoots callback)"), "mcptest.WithClient(client.Options{ListRoots: fn})")
	assert.Empty(t, callbackHint("No book titled Nothing"))
}

// askingServer has tools that need input from the client, asked for the
// 2026-07-28 way (the fake, as go-sdk does, turns an input request into a
// request of the server's own on a legacy connection).
func askingServer() *fakeServer {
	return probeServer(
		newTool("summarise", func(_ context.Context, c *fakeCall) (*fakeResult, error) {
			if _, ok := c.answers["summary"]; !ok {
				return &fakeResult{ask: map[string]fakeAsk{"summary": {Method: "sampling/createMessage", Params: map[string]any{
					"maxTokens": 10, "messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "summarise"}}},
				}}}}, nil
			}
			return fakeText("summarised"), nil
		}),
		newTool("where", func(_ context.Context, c *fakeCall) (*fakeResult, error) {
			if c.answers == nil {
				return &fakeResult{ask: map[string]fakeAsk{"roots": {Method: "roots/list"}}}, nil
			}
			var roots struct{ Roots []struct{ URI string } }
			if err := json.Unmarshal(c.answers["roots"], &roots); err != nil || len(roots.Roots) == 0 {
				return nil, fmt.Errorf("no roots in %s", c.answers["roots"])
			}
			return fakeText(roots.Roots[0].URI), nil
		}),
	)
}

// Legacy: the client refuses the server's request; the tool fails quoting
// the client's refusal, and both the assertion and the transcript say which
// option the test lacks.
func TestMissingCallbackHintLegacy(t *testing.T) {
	t.Parallel()
	var text string
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, askingServer(), WithProtocolVersion(client.LatestLegacyVersion))
		res, err := c.CallTool(tb.Context(), "where", nil)
		require.NoError(tb, err)
		text = res.Text()
		Assert(tb).ToolSuccess(res)
	})
	assert.Contains(t, text, "client does not support roots (no ListRoots callback)", "the client's own words are unchanged")
	f.expectFailure(t,
		"expected a successful tool result, got a tool error",
		"\nhint: the client answers roots/list only when Connect is given mcptest.WithClient(client.Options{ListRoots: fn})",
	)
	assert.Regexp(t, `the client has no callback for roots/list \(id 1, message #\d+\), so it refused it at message #\d+: the client answers roots/list only when Connect is given mcptest.WithClient\(client.Options\{ListRoots: fn\}\)`, f.output())

	// With the callback the same test passes, and nothing hints.
	f = runFake(t, func(tb testing.TB) {
		c := Connect(tb, askingServer(), WithProtocolVersion(client.LatestLegacyVersion), WithClient(client.Options{ListRoots: func(context.Context) ([]*client.Root, error) {
			return []*client.Root{&client.Root{URI: "file:///w"}}, nil
		}}))
		res, err := c.CallTool(tb.Context(), "where", nil)
		require.NoError(tb, err)
		Assert(tb).Text(res, "file:///w")
	})
	f.expectPass(t)
}

// 2026-07-28: the server's input request reaches the client inside a
// result; the call fails in the client, and the transcript and the
// assertion name the option.
func TestMissingCallbackHintModern(t *testing.T) {
	t.Parallel()
	var callErr error
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, askingServer(), WithProtocolVersion(client.LatestVersion))
		_, callErr = c.CallTool(tb.Context(), "summarise", nil)
		Assert(tb).ProtocolError(callErr, client.CodeInvalidParams)
	})
	require.Error(t, callErr)
	assert.Contains(t, callErr.Error(), "(no CreateMessage callback)", "the client's own words are unchanged")
	f.expectFailure(t,
		"got this client's own input callback failing",
		"\nhint: the client answers sampling/createMessage only when Connect is given mcptest.WithClient(client.Options{CreateMessage: fn})",
	)
	assert.Regexp(t, `the server asked for sampling/createMessage input \(message #\d+, a result of id 2\), which the client has no callback for: the client answers sampling/createMessage only when Connect is given mcptest.WithClient\(client.Options\{CreateMessage: fn\}\)`, f.output())
}

// inputNotes reads only what the client lacks: a refusal by a callback the
// test gave (a user's own method-not-found) is not the harness's business.
func TestInputNotesOnlyForMissingCallbacks(t *testing.T) {
	t.Parallel()
	c2s, s2c := memtransport.ClientToServer, memtransport.ServerToClient
	entries := []memtransport.Entry{
		entry(1, s2c, `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`),
		entry(2, c2s, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`),
		entry(3, s2c, `{"jsonrpc":"2.0","id":9,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"},"b":{"method":"sampling/createMessage"},"c":{"method":"elicitation/create"},"d":{"method":"roots/list"}}}}`),
	}
	none := func(string) bool { return false }
	assert.Empty(t, inputNotes(entries, none))
	notes := inputNotes(entries, missingCallbacks(&client.Options{}))
	require.Len(t, notes, 4, strings.Join(notes, "\n"))
	assert.Contains(t, notes[0], "sampling/createMessage (id 1, message #1), so it refused it at message #2")
	assert.Contains(t, notes[1], "elicitation/create input (message #3")
	assert.Contains(t, notes[2], "roots/list input (message #3")
	assert.Contains(t, notes[3], "sampling/createMessage input (message #3")
}

// A request of the server's own refused by its SDK at 2026-07-28 (go-sdk's
// and mcp-go's words): the hint says why, and how to pin a legacy version.
func TestVersionRefusalHint(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		`"elicitation/create" cannot be sent while serving a request on protocol version 2026-07-28: return an InputRequests map instead (multi round-trip requests, SEP-2322)`,
		`"sampling/createMessage": server-initiated requests are not supported in protocol version 2026-07-28 or later: return an InputRequests map from the handler instead`,
	} {
		hint := callbackHint(text)
		assert.True(t, strings.HasPrefix(hint, "\nhint: at protocol version 2026-07-28 a handler asks the client for input with an input_required result"), hint)
		assert.Contains(t, hint, "Connect speaks 2026-07-28 when the server does and the test pins no version")
		assert.Contains(t, hint, "mcptest.WithProtocolVersion(client.Version20251125) (in mcptest.EachVersion: mcptest.Before(client.Version20260728))")
	}
	method, ok := refusedRequest(`"sampling/createMessage": server-initiated requests are not supported in protocol version 2026-07-28`)
	assert.True(t, ok)
	assert.Equal(t, "sampling/createMessage", method)
	method, ok = refusedRequest(`it cannot be sent while serving a request on protocol version 2026-07-28`)
	assert.True(t, ok)
	assert.Empty(t, method, "no method quoted")
}

// The failing test's transcript says which call failed for the version and
// why: a refused request of the handler's (as an isError result or an
// error), and a task asked of a server that has only 2025-11-25 tasks.
func TestVersionNotes(t *testing.T) {
	t.Parallel()
	c2s, s2c := memtransport.ClientToServer, memtransport.ServerToClient
	const discover = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`
	legacyTasks := `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}}}}`
	const taskCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"render",` +
		`"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
	entries := []memtransport.Entry{
		entry(1, c2s, discover),
		entry(2, s2c, legacyTasks),
		entry(3, c2s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet"}}`),
		entry(4, s2c, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"\"elicitation/create\" cannot be sent while serving a request on protocol version 2026-07-28"}],"isError":true}}`),
		entry(5, c2s, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"where"}}`),
		entry(6, s2c, `{"jsonrpc":"2.0","id":3,"error":{"code":0,"message":"\"roots/list\": server-initiated requests are not supported in protocol version 2026-07-28 or later"}}`),
		entry(7, c2s, fmt.Sprintf(taskCall, 4)),
		entry(8, s2c, `{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"tool 'render' requires task augmentation"}}`),
		entry(9, c2s, fmt.Sprintf(taskCall, 5)),
		entry(10, s2c, `{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"tool 'render' requires task augmentation"}}`),
	}
	notes := versionNotes(entries)
	require.Len(t, notes, 3, strings.Join(notes, "\n"))
	assert.True(t, strings.HasPrefix(notes[0], `tools/call "greet" (id 2, message #3) failed at message #4: its handler tried to send elicitation/create; `+
		`at protocol version 2026-07-28 a handler asks the client for input with an input_required result`), notes[0])
	assert.True(t, strings.HasPrefix(notes[1], `tools/call "where" (id 3, message #5) failed at message #6: its handler tried to send roots/list; `), notes[1])
	assert.Equal(t, `tools/call "render" (id 4, message #7) asked for a task at protocol version 2026-07-28, but the server declares the tasks of 2025-11-25 `+
		`(capabilities.tasks), not the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks), so at 2026-07-28 it runs no tool as a task: `+
		`to test its tasks, connect with mcptest.WithProtocolVersion(client.Version20251125)`, notes[2], "one note for the server, at the first task asked")

	// A server with the extension, or one that offers no 2025-11-25, or a
	// call that asked for no task: nothing to say.
	for _, discovered := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tasks":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tasks":{}}}}`,
	} {
		assert.Empty(t, versionNotes([]memtransport.Entry{entry(1, c2s, discover), entry(2, s2c, discovered), entry(3, c2s, fmt.Sprintf(taskCall, 2)),
			entry(4, s2c, `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)}), discovered)
	}
	assert.Empty(t, versionNotes([]memtransport.Entry{entry(1, c2s, discover), entry(2, s2c, legacyTasks),
		entry(3, c2s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"plain"}}`), entry(4, s2c, `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)}))
	// The same text in a successful result is the tool's business.
	assert.Empty(t, versionNotes([]memtransport.Entry{entry(1, c2s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"quote"}}`),
		entry(2, s2c, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"cannot be sent while serving a request on protocol version"}]}}`)}))

	// A failing test prints them under its transcript.
	out := renderTranscript(memtransport.Transcript{Entries: entries}, -1, -1, 0)
	assert.Contains(t, out, "\n\t"+notes[0])
	assert.Contains(t, out, "\n\t"+notes[2])
}
