package surface_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/faketb"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/mcptest/surface"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// serverSeq names each test's server apart: the report is the process's,
// and -count=3 runs each test three times.
var serverSeq atomic.Int64

// notes is a hand-written server: tools add (required text, optional tag
// with an enum), boom (answers with the crash guard's words), slow (never
// answers); a resource and a template; a prompt.
func notes(name string) mcptest.ServerFunc {
	return func(ctx context.Context, conn *memtransport.Conn) error {
		for {
			msg, err := conn.Receive(ctx)
			if err != nil {
				return nil
			}
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name      string         `json:"name"`
					Arguments map[string]any `json:"arguments"`
				} `json:"params"`
			}
			if json.Unmarshal(msg, &req) != nil || len(req.ID) == 0 {
				continue
			}
			var result any
			switch req.Method {
			case "initialize":
				result = map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]any{"name": name, "version": "1"},
					"capabilities": map[string]any{"tools": map[string]any{}, "resources": map[string]any{}, "prompts": map[string]any{}}}
			case "tools/list":
				result = map[string]any{"tools": []any{
					map[string]any{"name": "add", "inputSchema": map[string]any{"type": "object", "required": []any{"text"},
						"properties": map[string]any{"text": map[string]any{"type": "string"}, "tag": map[string]any{"enum": []any{"home", "work"}}}}},
					map[string]any{"name": "boom", "inputSchema": map[string]any{"type": "object"}},
					map[string]any{"name": "slow", "inputSchema": map[string]any{"type": "object"}},
					map[string]any{"name": "exempt_tool", "inputSchema": map[string]any{"type": "object"}},
				}}
			case "resources/list":
				result = map[string]any{"resources": []any{map[string]any{"uri": "note://index", "name": "index"}}}
			case "resources/templates/list":
				result = map[string]any{"resourceTemplates": []any{map[string]any{"uriTemplate": "note://{id}", "name": "note"}}}
			case "prompts/list":
				result = map[string]any{"prompts": []any{map[string]any{"name": "summarize", "arguments": []any{map[string]any{"name": "style"}}}}}
			case "resources/read":
				result = map[string]any{"contents": []any{map[string]any{"uri": "note://1", "text": "x"}}}
			case "tools/call":
				switch req.Params.Name {
				case "add":
					if req.Params.Arguments["text"] == "" {
						result = map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "empty"}}}
					} else {
						result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "added"}}}
					}
				case "boom":
					result = map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "Error executing tool boom"}}}
				case "slow":
					continue // never answered
				}
			}
			var out []byte
			if result == nil {
				out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "no"}})
			} else {
				out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
			}
			if conn.Send(ctx, out) != nil {
				return nil
			}
		}
	}
}

// Parallel tests on several connections each: every call counts, once.
func TestParallelConnectionsLoseNothing(t *testing.T) {
	skipInChild(t)
	name := fmt.Sprintf("notes-%d", serverSeq.Add(1))
	const tests, conns, calls = 8, 3, 5
	t.Run("list", func(t *testing.T) { listAll(t, mcptest.Connect(t, notes(name))) })
	t.Run("group", func(t *testing.T) {
		for i := range tests {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				for range conns {
					c := mcptest.Connect(t, notes(name))
					for k := range calls {
						args := map[string]any{"text": "x"}
						if k%2 == 0 {
							args["tag"] = "home"
						}
						_, err := c.CallTool(t.Context(), "add", args)
						require.NoError(t, err)
					}
				}
			})
		}
	})
	s := surface.Snapshot().Servers[name]
	require.NotNil(t, s, "the server was not recorded")
	add := s.Tools["add"]
	assert.True(t, add.Declared)
	assert.Equal(t, tests*conns*calls, add.Calls[surface.Tests])
	assert.Equal(t, tests*conns*calls, add.Outcomes[surface.Tests]["success"])
	assert.Equal(t, tests*conns*calls, add.Arguments["text"].Given[surface.Tests])
	assert.Equal(t, tests*conns*3, add.Arguments["tag"].Given[surface.Tests]) // k = 0, 2, 4
	assert.Equal(t, map[string]int{`"home"`: tests * conns * 3}, add.Arguments["tag"].Sent[surface.Tests])
	assert.Equal(t, []string{`"home"`, `"work"`}, add.Arguments["tag"].Enum)
}

// Each outcome, each kind of item, and what the tests left out.
func TestOutcomesAndListing(t *testing.T) {
	skipInChild(t)
	name := fmt.Sprintf("notes-%d", serverSeq.Add(1))
	t.Run("calls", func(t *testing.T) {
		c := mcptest.Connect(t, notes(name), mcptest.WithClient(client.Options{Timeout: 300 * time.Millisecond}))
		ctx := t.Context()
		listAll(t, c)
		_, _ = c.CallTool(ctx, "add", map[string]any{"text": ""})
		_, _ = c.CallTool(ctx, "add", map[string]any{"text": "x", "tag": "work"})
		_, _ = c.CallTool(ctx, "boom", nil)
		_, _ = c.CallTool(ctx, "nope", nil)
		_, _ = c.CallTool(ctx, "slow", nil)
		_, _ = c.ReadResource(ctx, "note://7")
	})
	r := &surface.Report{Servers: map[string]*surface.Server{name: surface.Snapshot().Servers[name]}}
	s := r.Servers[name]
	assert.Equal(t, map[string]int{"success": 1, "isError": 1}, s.Tools["add"].Outcomes[surface.Tests])
	assert.Equal(t, map[string]int{"crash": 1}, s.Tools["boom"].Outcomes[surface.Tests])
	assert.Equal(t, map[string]int{"error": 1}, s.Tools["nope"].Outcomes[surface.Tests])
	assert.False(t, s.Tools["nope"].Declared)
	assert.Equal(t, map[string]int{"timeout": 1}, s.Tools["slow"].Outcomes[surface.Tests])
	assert.Equal(t, []string{"tool exempt_tool", "resource note://index", "prompt summarize"}, r.Missing(surface.Tests),
		"the template note://{id} was used by reading note://7")
	assert.Contains(t, r.Listing(surface.Tests), "tool boom: never succeeded")
	assert.Contains(t, r.Summary(surface.Tests), "tools 3/4, arguments 2/2, optional omitted 1/1, enum values 1/2, resources 0/1, templates 1/1, prompts 0/1; outcomes: 1 success, 1 isError, 1 error, 1 crash, 1 timeout")
}

// CheckServer's calls count apart from the tests'.
func TestCheckServerCountsApart(t *testing.T) {
	skipInChild(t)
	name := fmt.Sprintf("notes-%d", serverSeq.Add(1))
	// The crude server fails checks (no ping): only the counts matter here.
	faketb.Run(t, func(tb testing.TB) {
		mcptest.CheckServer(tb, notes(name), mcptest.WithClient(client.Options{Timeout: 300 * time.Millisecond}))
	})
	s := surface.Snapshot().Servers[name]
	require.NotNil(t, s)
	assert.Zero(t, s.Tools["add"].Calls[surface.Tests])
	assert.Positive(t, s.Tools["add"].Calls[surface.Check])
}

// Require fails the test binary naming what the tests never exercised,
// when every test of the binary ran; of a part of them (-run) it does not
// judge.
func TestRequireFailsTheBinary(t *testing.T) {
	skipInChild(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", out)
	assert.Equal(t, 1, exit.ExitCode())
	assert.Contains(t, string(out), "mcp surface: the tests never exercised 5 declared item(s):\n\ttool boom\n\ttool slow\n\tresource note://index\n\ttemplate note://{id}\n\tprompt summarize")
	assert.NotContains(t, string(out), "exempt_tool")

	for _, flag := range []string{"-test.run=^TestChildCallsOneTool$", "-test.skip=^TestNothing$"} {
		cmd = exec.Command(os.Args[0], flag)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		out, err = cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", flag, out)
		assert.Contains(t, string(out), "ran a part of the tests: surface.Require judges only a run of them all", flag)
	}
}

// The child's one test: it lists what the server declares and calls one
// tool.
func TestChildCallsOneTool(t *testing.T) {
	c := mcptest.Connect(t, notes("child"))
	listAll(t, c)
	_, err := c.CallTool(t.Context(), "add", map[string]any{"text": "x"})
	require.NoError(t, err)
}

func skipInChild(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("the child runs TestChildCallsOneTool only")
	}
}

// listAll lists every kind of item on c, as a test that looks at what a
// server declares does.
func listAll(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := t.Context()
	for _, err := range c.Tools(ctx) {
		require.NoError(t, err)
	}
	for _, err := range c.Resources(ctx) {
		require.NoError(t, err)
	}
	for _, err := range c.ResourceTemplates(ctx) {
		require.NoError(t, err)
	}
	for _, err := range c.Prompts(ctx) {
		require.NoError(t, err)
	}
}

// The observer sends nothing: a test that never lists sees on its
// connection only what it sent and what came back, and the server gets no
// request the test did not make. What the server declares is then
// unknown, and the report says so rather than counting nothing as all.
func TestObserverSendsNothing(t *testing.T) {
	skipInChild(t)
	name := fmt.Sprintf("notes-%d", serverSeq.Add(1))
	var tr mcptest.Transcript
	t.Run("call", func(t *testing.T) {
		c := mcptest.Connect(t, notes(name), mcptest.WithTranscript(&tr))
		_, err := c.CallTool(t.Context(), "add", map[string]any{"text": "x"})
		require.NoError(t, err)
	})
	for _, m := range tr.Messages() {
		assert.NotContains(t, string(m), "/list", "the observer sent a request: %s", m)
	}
	r := &surface.Report{Servers: map[string]*surface.Server{name: surface.Snapshot().Servers[name]}}
	assert.Contains(t, r.Summary(surface.Tests), "tools 0/?, arguments 0/0, optional omitted 0/0, enum values 0/0, resources 0/?, templates 0/?, prompts 0/?; outcomes: 1 success")
	missing := r.Missing(surface.Tests)
	require.Len(t, missing, 4)
	assert.Contains(t, missing[0], "tools (never listed: ")

	// A CheckServer in the same binary lists them: then they are known.
	faketb.Run(t, func(tb testing.TB) {
		mcptest.CheckServer(tb, notes(name), mcptest.WithClient(client.Options{Timeout: 300 * time.Millisecond}))
	})
	r = &surface.Report{Servers: map[string]*surface.Server{name: surface.Snapshot().Servers[name]}}
	assert.Equal(t, []string{"tool boom", "tool exempt_tool", "tool slow", "resource note://index", "template note://{id}", "prompt summarize"},
		r.Missing(surface.Tests))
}
