package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// rpcError is a JSON-RPC error a handwritten server answers with.
type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// handServer is a legacy MCP server written by hand, so that a test can
// break any one thing: every method answers from handlers, and what has no
// handler gets -32601.
type handServer struct {
	caps     map[string]any
	handlers map[string]func(params json.RawMessage) (any, *rpcError)
	// before, when set, returns notifications to send before answering.
	before func(method string, params json.RawMessage) []map[string]any
	// echoVersion makes initialize agree to any version asked for (a
	// defect); else it answers a legacy version it speaks, the newest for
	// one it does not.
	echoVersion bool
	// idAs, when set, gives the id a response to method carries (a
	// defect unless it returns id).
	idAs func(method string, id json.RawMessage) json.RawMessage
}

// goodServer is a handwritten server that keeps every rule the checks
// test: one tool "add" with an output schema, no resources, no prompts.
func goodServer() *handServer {
	h := &handServer{caps: map[string]any{"tools": map[string]any{}}, handlers: map[string]func(json.RawMessage) (any, *rpcError){}}
	h.handlers["ping"] = func(json.RawMessage) (any, *rpcError) { return map[string]any{}, nil }
	h.handlers["tools/list"] = func(p json.RawMessage) (any, *rpcError) {
		var page struct{ Cursor string }
		if json.Unmarshal(p, &page) == nil && page.Cursor != "" {
			return nil, &rpcError{Code: -32602, Message: "Invalid cursor"}
		}
		return map[string]any{"tools": []any{map[string]any{
			"name":        "add",
			"description": "Add two integers.",
			"inputSchema": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"a": map[string]any{"type": "integer", "description": "The first addend."},
					"b": map[string]any{"type": "integer", "description": "The second addend."},
				},
				"required":             []string{"a", "b"},
				"additionalProperties": false,
			},
			"outputSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"sum": map[string]any{"type": "integer"}},
				"required":   []string{"sum"},
			},
		}}}, nil
	}
	h.handlers["tools/call"] = func(p json.RawMessage) (any, *rpcError) {
		var req struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		_ = json.Unmarshal(p, &req)
		if req.Name != "add" {
			return nil, &rpcError{Code: -32602, Message: "Unknown tool: " + req.Name}
		}
		a, aok := req.Arguments["a"].(float64)
		b, bok := req.Arguments["b"].(float64)
		if !aok || !bok || len(req.Arguments) != 2 {
			return toolError("a and b must be integers, and nothing else"), nil
		}
		return map[string]any{
			"content":           []any{map[string]any{"type": "text", "text": fmt.Sprint(a + b)}},
			"structuredContent": map[string]any{"sum": a + b},
		}, nil
	}
	return h
}

func toolError(text string) map[string]any {
	return map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": text}}}
}

func (h *handServer) Serve(ctx context.Context, conn *memtransport.Conn) error {
	for {
		msg, err := conn.Receive(ctx)
		if err != nil {
			return nil
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		var resp map[string]any
		if err := json.Unmarshal(msg, &req); err != nil {
			resp = map[string]any{"id": nil, "error": rpcError{Code: -32700, Message: "Parse error"}}
		} else if req.ID == nil {
			continue // a notification
		} else {
			if h.before != nil {
				for _, n := range h.before(req.Method, req.Params) {
					n["jsonrpc"] = "2.0"
					out, _ := json.Marshal(n)
					if err := conn.Send(ctx, out); err != nil {
						return nil
					}
				}
			}
			resp = map[string]any{"id": req.ID}
			if h.idAs != nil {
				resp["id"] = h.idAs(req.Method, req.ID)
			}
			result, rerr := h.answer(req.Method, req.Params)
			if rerr != nil {
				resp["error"] = rerr
			} else {
				resp["result"] = result
			}
		}
		resp["jsonrpc"] = "2.0"
		out, _ := json.Marshal(resp)
		if err := conn.Send(ctx, out); err != nil {
			return nil
		}
	}
}

func (h *handServer) answer(method string, params json.RawMessage) (any, *rpcError) {
	if method == "initialize" {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(params, &p)
		if !h.echoVersion && (!slices.Contains(client.SupportedVersions(), p.ProtocolVersion) || !client.IsLegacy(p.ProtocolVersion)) {
			p.ProtocolVersion = client.LatestLegacyVersion
		}
		return map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": h.caps,
			"serverInfo": map[string]any{"name": "hand", "version": "v0"}}, nil
	}
	if fn, ok := h.handlers[method]; ok {
		return fn(params)
	}
	return nil, &rpcError{Code: -32601, Message: "Method not found"}
}

// runCheck runs CheckServer on a fake test and returns it.
func runCheck(t *testing.T, srv Server, opts ...Option) *fakeTB {
	t.Helper()
	return runFake(t, func(tb testing.TB) { CheckServer(tb, srv, opts...) })
}

func TestCheckServerPassesAGoodServer(t *testing.T) {
	t.Parallel()
	runCheck(t, goodServer()).expectPass(t)
}

// Issue 31: a server that agrees to any protocol version asked for, even
// one that does not exist, fails version-negotiation.
func TestCheckServerEchoesAnyVersion(t *testing.T) {
	t.Parallel()
	h := goodServer()
	h.echoVersion = true
	f := runCheck(t, h)
	f.expectFailure(t, "version-negotiation: sent initialize asking for protocol version 2099-12-31, which does not exist; the server agreed to it",
		"MUST respond with another protocol version it supports")
}

// Issue 31: a server that serves 2026-07-28 requests MUST implement
// server/discover; one whose discover fails with -32603 looks legacy to a
// client's fallback, and is caught by a 2026-07-28 request that gets a
// result with resultType.
func TestCheckServerDiscoverFailsOnAModernServer(t *testing.T) {
	t.Parallel()
	srv := probeServer(echoTool())
	srv.discoverFails = true
	f := runCheck(t, srv)
	f.expectFailure(t, "version-negotiation: the server answers 2026-07-28 requests (tools/list at 2026-07-28 got a result with resultType \"complete\"), "+
		"but server/discover got JSON-RPC error -32603 \"Internal error\"", "servers MUST implement server/discover")
}

// Issue 31: a declared capability whose method is not found fails
// capabilities, naming the capability and the method.
func TestCheckServerDeclaredButNotImplemented(t *testing.T) {
	t.Parallel()
	empty := func(key string) func(json.RawMessage) (any, *rpcError) {
		return func(json.RawMessage) (any, *rpcError) { return map[string]any{key: []any{}}, nil }
	}
	for _, tc := range []struct {
		capability string
		value      any
		missing    string
	}{
		{"resources", map[string]any{"subscribe": true}, "the resources.subscribe capability is declared, but resources/subscribe answered"},
		{"logging", map[string]any{}, "the logging capability is declared, but logging/setLevel answered"},
		{"completions", map[string]any{}, "the completions capability is declared, but completion/complete answered"},
	} {
		t.Run(tc.capability, func(t *testing.T) {
			t.Parallel()
			h := goodServer()
			h.caps[tc.capability] = tc.value
			h.handlers["resources/list"] = empty("resources")
			h.handlers["resources/templates/list"] = empty("resourceTemplates")
			h.handlers["completion/complete"] = func(json.RawMessage) (any, *rpcError) {
				return map[string]any{"completion": map[string]any{"values": []any{}}}, nil
			}
			h.handlers["logging/setLevel"] = func(json.RawMessage) (any, *rpcError) { return map[string]any{}, nil }
			for _, m := range []string{"resources/subscribe", "resources/unsubscribe"} {
				h.handlers[m] = h.handlers["logging/setLevel"]
			}
			// The declared capability's method is the one left out.
			switch tc.capability {
			case "resources":
				delete(h.handlers, "resources/subscribe")
			case "logging":
				delete(h.handlers, "logging/setLevel")
			case "completions":
				delete(h.handlers, "completion/complete")
			}
			f := runCheck(t, h, SkipChecks("resources/unknown-uri"))
			f.expectFailure(t, "capabilities: "+tc.missing+" JSON-RPC error -32601", "every method of a declared capability implemented")
		})
	}
	// With every method there, it passes.
	h := goodServer()
	h.caps["logging"], h.caps["completions"] = map[string]any{}, map[string]any{}
	h.handlers["logging/setLevel"] = func(json.RawMessage) (any, *rpcError) { return map[string]any{}, nil }
	h.handlers["completion/complete"] = func(json.RawMessage) (any, *rpcError) {
		return map[string]any{"completion": map[string]any{"values": []any{}}}, nil
	}
	runCheck(t, h).expectPass(t)
}

// Issue 31: a tool that declares an outputSchema but fails every valid call
// never shows its output. Issue 39: that is what the generator could reach,
// no SHOULD broken: a note, which fails nothing even with StrictChecks.
func TestCheckServerOutputSchemaNeverExercised(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	srv.handlers["tools/call"] = func(p json.RawMessage) (any, *rpcError) {
		var req struct{ Name string }
		_ = json.Unmarshal(p, &req)
		if req.Name != "add" {
			return nil, &rpcError{Code: -32602, Message: "Unknown tool: " + req.Name}
		}
		return toolError("the adder is broken"), nil
	}
	f := runCheck(t, srv, StrictChecks())
	f.expectPass(t)
	assert.NotContains(t, f.output(), "declares an outputSchema")
	var note string
	err := servercheck.Run(t.Context(), memDialer(srv), &servercheck.Options{Run: "tools/calls", OnResult: func(r servercheck.Result) {
		if r.Name == "tools/calls/add" {
			assert.Equal(t, servercheck.Pass, r.Status, r.Detail)
			note = r.Detail
		}
	}})
	assert.NoError(t, err)
	assert.Contains(t, note, `tool "add" declares an outputSchema, but none of its 23 call(s) with arguments valid against its inputSchema succeeded`)
	assert.Contains(t, note, "the first answer: the adder is broken")
}

// Issue 31: every message the server sends is checked against its
// version's schema; the messages check lists what broke it, with the check
// it came in.
func TestCheckServerMessagesBreakingTheSchema(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	add := srv.handlers["tools/call"]
	srv.handlers["tools/call"] = func(p json.RawMessage) (any, *rpcError) {
		res, rerr := add(p)
		if m, ok := res.(map[string]any); ok && m["isError"] == nil {
			m["content"] = []any{map[string]any{"type": "text", "value": "the sum"}} // "text" misnamed
		}
		return res, rerr
	}
	f := runCheck(t, srv)
	f.expectFailure(t, "messages: 1 message(s) the server sent break the protocol's schema for the connection's version:",
		"the tools/call result breaks the 2025-11-25 schema at result.content[0].text: is required (during tools/calls/add)")
}

func TestCheckServerWrongErrorCode(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	srv.handlers["mcptestkit/no-such-method"] = func(json.RawMessage) (any, *rpcError) {
		return nil, &rpcError{Code: -32603, Message: "no idea"}
	}
	runCheck(t, srv).expectFailure(t,
		"unknown-method: sent mcptestkit/no-such-method; got JSON-RPC error -32603 \"no idea\"",
		"expected: JSON-RPC error -32601 (Method not found)",
		`→ {"jsonrpc":"2.0","id":`, // the excerpt of the connection
	)
}

func TestCheckServerCapabilitiesLiedAbout(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	srv.caps["prompts"] = map[string]any{}                                    // declared, not served
	srv.handlers["resources/list"] = func(json.RawMessage) (any, *rpcError) { // served, not declared
		return map[string]any{"resources": []any{map[string]any{"uri": "file:///a", "name": "a"}}}, nil
	}
	runCheck(t, srv).expectFailure(t,
		"capabilities: the server does not declare the resources capability, but resources/list lists some",
		"the server declares the prompts capability, but prompts/list failed: JSON-RPC error -32601",
	)
}

func TestCheckServerInvalidSchema(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	srv.handlers["tools/list"] = func(json.RawMessage) (any, *rpcError) {
		return map[string]any{"tools": []any{
			map[string]any{"name": "bad", "description": "d", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "strang"}}}},
			map[string]any{"name": "list", "description": "d", "inputSchema": map[string]any{"type": "array"}},
			map[string]any{"name": "no spaces please", "inputSchema": map[string]any{"type": "object"}},
		}}, nil
	}
	runCheck(t, srv).expectFailure(t,
		`tools/schemas/bad: tool "bad": inputSchema is not valid`,
		`tools/schemas/list: tool "list": inputSchema has "type": "array" at the root; MCP requires "object"`,
		// Two SHOULDs: warnings, reported beside the failures.
		`tools/names: warning: tool name "no spaces please" does not follow the naming rule`,
		`tools/descriptions: warning: tools without a description: ["no spaces please"]`,
	)
}

func TestCheckServerOutputNotMatchingSchema(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	srv.handlers["tools/call"] = func(json.RawMessage) (any, *rpcError) {
		return map[string]any{"content": []any{}, "structuredContent": map[string]any{"sum": "many"}}, nil
	}
	runCheck(t, srv).expectFailure(t,
		`tools/calls/add: called tool "add" with arguments {"a":`,
		"structuredContent does not match the outputSchema",
		`structuredContent: {"sum":"many"}`,
	)
}

func TestCheckServerAcceptsSchemaViolations(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	srv.handlers["tools/call"] = func(p json.RawMessage) (any, *rpcError) {
		var call struct{ Name string }
		if json.Unmarshal(p, &call) != nil || call.Name != "add" {
			return nil, &rpcError{Code: -32602, Message: "Unknown tool"}
		}
		return map[string]any{"content": []any{}, "structuredContent": map[string]any{"sum": 1}}, nil
	}
	// Servers MUST validate all tool inputs; but a plain result may be a
	// refusal in prose, which a client cannot tell from a success (issue
	// 39: mcp-grafana's create_datasource): a warning, a failure only
	// with StrictChecks.
	runCheck(t, srv).expectPass(t)
	runCheck(t, srv, StrictChecks()).expectFailure(t,
		`tools/invalid-arguments/add: warning: called tool "add" with arguments that break its inputSchema (required property "a" left out)`,
		"got a result without isError",
		"servers MUST validate all tool inputs", "SHOULD be tool execution errors")
}

// Issue 31: a server that ignores an extra property the schema forbids
// (zod strips it: every TypeScript SDK server) harms nothing: no warning.
func TestCheckServerIgnoresAnUnknownProperty(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	add := srv.handlers["tools/call"]
	srv.handlers["tools/call"] = func(p json.RawMessage) (any, *rpcError) {
		var call struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		_ = json.Unmarshal(p, &call)
		delete(call.Arguments, "mcptestkit_unexpected") // stripped, as zod does
		stripped, _ := json.Marshal(call)
		return add(stripped)
	}
	f := runCheck(t, srv, StrictChecks())
	f.expectPass(t)
	assert.NotContains(t, f.output(), "warning")
}

// expectWarning checks that CheckServer passes srv, logging the warnings,
// and that StrictChecks fails it with them.
func expectWarning(t *testing.T, srv Server, want ...string) {
	t.Helper()
	f := runCheck(t, srv)
	f.expectPass(t)
	for _, w := range want {
		if !strings.Contains(f.output(), w) {
			t.Errorf("the passing test's output lacks %q; its output:\n%s", w, f.output())
		}
	}
	runCheck(t, srv, StrictChecks()).expectFailure(t, want...)
}

func TestCheckServerCrashTextReachesTheClient(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	srv.handlers["tools/call"] = func(json.RawMessage) (any, *rpcError) {
		return toolError("panic: runtime error: index out of range\n\ngoroutine 7 [running]:\nmain.add(...)\n\t/src/add.go:12"), nil
	}
	runCheck(t, srv).expectFailure(t,
		"the answer shows the client what looks like crash text",
		`"panic: runtime error`,
	)
}

func TestCheckServerUnknownResource(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	srv.caps["resources"] = map[string]any{}
	srv.handlers["resources/list"] = func(json.RawMessage) (any, *rpcError) { return map[string]any{"resources": []any{}}, nil }
	srv.handlers["resources/templates/list"] = func(json.RawMessage) (any, *rpcError) {
		return map[string]any{"resourceTemplates": []any{}}, nil
	}
	srv.handlers["resources/read"] = func(json.RawMessage) (any, *rpcError) {
		return nil, &rpcError{Code: -32603, Message: "not there"}
	}
	// Servers SHOULD answer with resource not found: a warning.
	expectWarning(t, srv,
		"resources/unknown-uri: warning: read mcptestkit-check://no/such/resource, a URI the server does not have; got JSON-RPC error -32603",
		`(resource not found) with data {"uri": "mcptestkit-check://no/such/resource"}`,
	)
}

func TestCheckServerPagingLoop(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	list := srv.handlers["tools/list"]
	srv.handlers["tools/list"] = func(p json.RawMessage) (any, *rpcError) {
		var page struct{ Cursor string }
		if json.Unmarshal(p, &page) == nil && page.Cursor != "" && page.Cursor != "again" {
			return nil, &rpcError{Code: -32602, Message: "Invalid cursor"}
		}
		r, _ := list(nil)
		r.(map[string]any)["nextCursor"] = "again"
		return r, nil
	}
	runCheck(t, srv).expectFailure(t,
		`tools/list: tools/list lists "add" twice (pages 1 and 2)`,
		`tools/list page 2 gives nextCursor "again", which an earlier page gave too`,
	)
}

// crashingServer has a tool that crashes on a negative count, the edge the
// generator tries, behind the crash guard logging to logger when guarded.
func crashingServer(logger *slog.Logger, guarded bool) *fakeServer {
	return &fakeServer{name: "crashy", guard: guarded, logger: logger, tools: []*fakeTool{{
		name: "repeat", description: "Repeat x count times.",
		input: `{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"],"additionalProperties":false}`,
		handle: func(_ context.Context, c *fakeCall) (*fakeResult, error) {
			return fakeText(strings.Repeat("x", min(int(c.num("count")), 64))), nil
		},
	}}}
}

func TestCheckServerNoCrashGuard(t *testing.T) {
	t.Parallel()
	f := runCheck(t, crashingServer(nil, false))
	f.expectFailure(t,
		`tools/calls/repeat: called tool "repeat" with arguments {"count":-`,
		`the handler panicked (panic in tool "repeat": strings: negative Repeat count), and the server has no crash guard of its own`,
		"srv.AddReceivingMiddleware(gosdk.Guard(logger))",
	)
}

func TestCheckServerCrashOnEdgeValue(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t, logcapture.NoDump())
	f := runCheck(t, crashingServer(logs.Logger(), true), CheckLogs(logs))
	f.expectFailure(t,
		`tools/calls/repeat: called tool "repeat" with arguments {"count":-`,
		`the handler crashed (the crash guard caught it: the client got {isError:true content:["Error executing tool repeat"]})`,
		"expected: no crash on arguments that conform to the inputSchema",
	)
	assert.NotContains(t, f.output(), "ERROR record", "the guard logs each crash once")
}

func TestCheckServerRunAndSkip(t *testing.T) {
	t.Parallel()
	var names []string
	err := servercheck.Run(t.Context(), memDialer(goodServer()), &servercheck.Options{
		Run:      "tools/(list|calls)",
		Skip:     []string{"tools/calls"},
		OnResult: func(r servercheck.Result) { names = append(names, r.Status.String()+" "+r.Name) },
	})
	assert.NoError(t, err)
	assert.Equal(t, []string{"pass tools/list", "skip tools/calls/add"}, names)
}

func TestCheckServerNotificationBeforeInitialized(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	srv.before = func(method string, _ json.RawMessage) []map[string]any {
		if method != "initialize" {
			return nil
		}
		return []map[string]any{{"method": "notifications/tools/list_changed"}}
	}
	runCheck(t, srv).expectFailure(t,
		"handshake/2025-11-25: the server sent notifications/tools/list_changed before the client's notifications/initialized",
	)
}

func TestCheckServerProgressWithAStrangeToken(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	srv.before = func(method string, _ json.RawMessage) []map[string]any {
		if method != "tools/call" {
			return nil
		}
		return []map[string]any{{"method": "notifications/progress", "params": map[string]any{"progressToken": "not-yours", "progress": 1}}}
	}
	runCheck(t, srv).expectFailure(t,
		`tools/progress: the server sent notifications/progress with tokens no request carried: "not-yours"`,
	)
}

// A recovery that answers like the crash guard but logs nothing: with the
// logs given, the check wants the ERROR record.
func TestCheckServerCrashNotLogged(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t, logcapture.NoDump())
	runCheck(t, crashingServer(nil, true), CheckLogs(logs)).expectFailure(t,
		"the handler crashed and the server logged 0 ERROR record(s) with a stack for it\nexpected: exactly one ERROR record with the stack per crash",
	)
}

// A server that ends the connection on a frame that is not JSON instead of
// answering -32700 (as go-sdk v1.8.0 does): the check says so, and how to
// leave it out.
func TestCheckServerMalformedFrameEndsTheConnection(t *testing.T) {
	t.Parallel()
	srv := probeServer()
	strict := ServerFunc(func(ctx context.Context, conn *memtransport.Conn) error {
		inner, end := memtransport.Pair()
		var wg sync.WaitGroup
		defer wg.Wait()
		defer inner.Close()
		wg.Go(func() { _ = srv.Serve(ctx, end) })
		wg.Go(func() { // the server's answers
			for {
				msg, err := inner.Receive(ctx)
				if err != nil || conn.Send(ctx, msg) != nil {
					return
				}
			}
		})
		for {
			msg, err := conn.Receive(ctx)
			if err != nil {
				return nil
			}
			if !json.Valid(msg) {
				return conn.Close() // the session ends
			}
			if err := inner.Send(ctx, msg); err != nil {
				return nil
			}
		}
	})
	only := withChecks(func(o *servercheck.Options) { o.Run = "malformed-frame" })
	f := runCheck(t, strict, only)
	f.expectFailure(t,
		"malformed-frame: sent a frame that is not valid JSON",
		"the connection ended",
		"\n(go-sdk ends a session on a frame it cannot decode, as its stdio transport does: for a go-sdk server this is the SDK's behaviour; "+
			`leave the check out with mcptest.SkipChecks("malformed-frame"))`,
	)
	// A server that names its SDK release (as gosdktest's Adapter does) gets
	// that release named.
	runCheck(t, namedSDK{strict, "go-sdk v1.4.0"}, only).expectFailure(t,
		"\n(go-sdk v1.4.0, which serves this server, ends a session on a frame it cannot decode, as its stdio transport does: "+
			`for this server this is the SDK's behaviour; leave the check out with mcptest.SkipChecks("malformed-frame"))`,
	)
}

// namedSDK is a Server that names the SDK release serving it, as the
// adapters do (see Server).
type namedSDK struct {
	Server
	sdk string
}

func (n namedSDK) SDK() string { return n.sdk }

// go-sdk before v1.7.0 answers an unknown method with code 0: the check's
// failure says so when the server names such a release, and how to leave
// the check out; for any other server it is the check's failure alone.
func TestCheckServerUnknownMethodNamesTheSDKRelease(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	srv.handlers["mcptestkit/no-such-method"] = func(json.RawMessage) (any, *rpcError) {
		return nil, &rpcError{Code: 0, Message: `JSON RPC not handled: "mcptestkit/no-such-method" unsupported`}
	}
	only := withChecks(func(o *servercheck.Options) { o.Run = "unknown-method" })
	const failure = `unknown-method: sent mcptestkit/no-such-method; got JSON-RPC error 0 "JSON RPC not handled: \"mcptestkit/no-such-method\" unsupported"` +
		"\nexpected: JSON-RPC error -32601 (Method not found)"
	runCheck(t, namedSDK{srv, "go-sdk v1.4.0"}, only).expectFailure(t, failure+
		"\n(go-sdk v1.4.0, which serves this server, answers an unknown method with code 0 (fixed in go-sdk v1.7.0): "+
		`for this server that is the SDK's behaviour; upgrade go-sdk, or leave the check out with mcptest.SkipChecks("unknown-method"))`)
	runCheck(t, namedSDK{srv, "go-sdk"}, only).expectFailure(t, failure+
		"\n(go-sdk before v1.7.0 answers an unknown method with code 0: for such a release that is the SDK's behaviour; "+
		`upgrade go-sdk, or leave the check out with mcptest.SkipChecks("unknown-method"))`)
	for _, s := range []Server{srv, namedSDK{srv, "go-sdk v1.8.0"}, namedSDK{srv, "mcp-go v0.46.0"}} {
		f := runCheck(t, s, only)
		f.expectFailure(t, failure)
		assert.NotContains(t, f.output(), "SkipChecks", "%T: only a release known to answer so is blamed", s)
	}
}

func TestCheckServerTemplateEmptyContents(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	srv.caps["resources"] = map[string]any{}
	srv.handlers["resources/list"] = func(json.RawMessage) (any, *rpcError) { return map[string]any{"resources": []any{}}, nil }
	srv.handlers["resources/templates/list"] = func(json.RawMessage) (any, *rpcError) {
		return map[string]any{"resourceTemplates": []any{map[string]any{"uriTemplate": "notes://{id}", "name": "note"}}}, nil
	}
	srv.handlers["resources/read"] = func(json.RawMessage) (any, *rpcError) { return map[string]any{"contents": []any{}}, nil }
	runCheck(t, srv).expectFailure(t,
		"resources/templates/read/note: read notes://mcptestkit, an expansion of template notes://{id}; the result has no contents",
		"resources/unknown-uri: read mcptestkit-check://no/such/resource, a URI the server does not have; it succeeded",
	)
}

// TestChildCheckServerFails fails on purpose, in a child process run by
// TestCheckServerFailsAtTheCallersLine.
func TestChildCheckServerFails(t *testing.T) {
	if os.Getenv("MCPTEST_CHECK_CHILD") != "1" {
		t.Skip("run by TestCheckServerFailsAtTheCallersLine")
	}
	srv := goodServer()
	srv.handlers["mcptestkit/no-such-method"] = func(json.RawMessage) (any, *rpcError) {
		return nil, &rpcError{Code: -32603, Message: "no idea"}
	}
	CheckServer(t, srv, SkipChecks("tools")) // the line failures name
}

// A failing check is reported at the test's CheckServer line, not at a line
// of check.go: go test prints that line before the failure.
func TestCheckServerFailsAtTheCallersLine(t *testing.T) {
	if os.Getenv("MCPTEST_CHECK_CHILD") == "1" {
		t.Skip("the child runs only TestChildCheckServerFails")
	}
	t.Parallel()
	out, line, err := runFailingCheckChild(t, "-test.v")
	if err == nil {
		t.Fatalf("the child test passed; want it to fail:\n%s", out)
	}
	want := fmt.Sprintf("check_test.go:%d: sent mcptestkit/no-such-method; got JSON-RPC error -32603", line)
	if !strings.Contains(string(out), want) {
		t.Errorf("the failure is not reported at the line of CheckServer (want %q):\n%s", want, out)
	}
	if strings.Contains(string(out), "check.go:") {
		t.Errorf("a line of check.go is reported:\n%s", out)
	}
}

// runFailingCheckChild runs TestChildCheckServerFails in a child test binary
// with the verbosity flag v, and returns its output, the line of its
// CheckServer call, and how the child ended.
func runFailingCheckChild(t *testing.T, v string) (out []byte, line int, err error) {
	t.Helper()
	src, err := os.ReadFile("check_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(l, "// the line failures name") {
			line = i + 1
		}
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChildCheckServerFails$", v)
	cmd.Env = append(os.Environ(), "MCPTEST_CHECK_CHILD=1")
	out, err = cmd.CombinedOutput()
	return out, line, err
}

// Issue 30.14: a server that sends progress with a new bogus token each
// time fails tools/progress with a message that names a few, not all.
func TestCheckServerProgressWithManyStrangeTokens(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	var n atomic.Int64
	srv.before = func(method string, _ json.RawMessage) []map[string]any {
		if method != "tools/call" {
			return nil
		}
		var notes []map[string]any
		for range 500 {
			token := fmt.Sprintf("bogus-token-%06d-%s", n.Add(1), strings.Repeat("x", 40))
			notes = append(notes, map[string]any{"method": "notifications/progress", "params": map[string]any{"progressToken": token, "progress": 1}})
		}
		return notes
	}
	f := runCheck(t, srv)
	f.expectFailure(t, `tools/progress: the server sent notifications/progress with tokens no request carried: "bogus-token-000001-`, "more\nexpected:")
	start := strings.Index(f.output(), "tools/progress:")
	end := strings.Index(f.output()[start:], "expected:")
	assert.Less(t, end, 1200, "the list of tokens is cut short:\n%s", f.output()[start:start+end])
}

// Issue 31: on a legacy-only server the handshake check at 2026-07-28 reuses
// what the first connection learned instead of starting another connection
// (a process, over stdio) to learn it again.
func TestCheckServerLegacyHandshakeStartsNothing(t *testing.T) {
	t.Parallel()
	var dials atomic.Int32
	dial := memDialer(goodServer())
	counting := func(ctx context.Context) (client.Transport, error) {
		dials.Add(1)
		return dial(ctx)
	}
	var got servercheck.Result
	err := servercheck.Run(t.Context(), counting, &servercheck.Options{Run: "handshake/2026-07-28",
		OnResult: func(r servercheck.Result) { got = r }})
	assert.NoError(t, err)
	assert.Equal(t, servercheck.Skip, got.Status, "%s", got)
	assert.Contains(t, got.Detail, "the first connection's server/discover at 2026-07-28 got JSON-RPC error -32601")
	assert.Equal(t, int32(1), dials.Load(), "connections opened: the main one only")
}

// Issue 39: an isError result that carries structuredContent fails
// CheckServer by the rule Assert(t).ToolError judges by (one definition,
// mcptest/internal/toolrule); before, CheckServer passed it even with
// StrictChecks.
func TestCheckServerToolErrorWithStructuredContent(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	srv.handlers["tools/call"] = func(json.RawMessage) (any, *rpcError) {
		res := toolError("the adder is broken")
		res["structuredContent"] = map[string]any{"sum": 0}
		return res, nil
	}
	want := []string{`tools/calls/add: called tool "add" with arguments`, "got an isError result with structuredContent",
		`a tool error must not carry structuredContent, got {"sum":0}`}
	runCheck(t, srv).expectFailure(t, want...)
	runCheck(t, srv, StrictChecks()).expectFailure(t, want...)
	// The assertion names the same breach in the same words.
	a := runFake(t, func(tb testing.TB) {
		Assert(tb).ToolError(&client.CallToolResult{IsError: true, StructuredContent: json.RawMessage(`{"sum":0}`)})
	})
	a.expectFailure(t, `a tool error must not carry structuredContent, got {"sum":0}`)
}

// Issue 39: a server that answers request id 3 (a number) with id "3" (a
// string) is reported for what it did, not only as "no answer".
func TestCheckServerIDAnsweredAsAnotherType(t *testing.T) {
	t.Parallel()
	srv := goodServer()
	srv.idAs = func(method string, id json.RawMessage) json.RawMessage {
		if method == "tools/call" {
			return json.RawMessage(strconv.Quote(string(id)))
		}
		return id
	}
	var got *servercheck.Result
	err := servercheck.Run(t.Context(), memDialer(srv), &servercheck.Options{Run: "tools/calls", Calls: 1, Timeout: 3 * time.Second,
		OnResult: func(r servercheck.Result) {
			if r.Name == "tools/calls/add" {
				got = &r
			}
		}})
	assert.Error(t, err)
	if assert.NotNil(t, got) {
		assert.Equal(t, servercheck.Fail, got.Status)
		assert.Regexp(t, `^the server answered with id "\d+" \(string\) to request id \d+ \(number\)`, got.Detail)
		assert.Contains(t, got.Detail, "MUST be the same as the value of the id member in the Request Object")
	}
}

// Issue 39: requests a correct server must refuse. A tools/call without a
// name that succeeds fails invalid-params; one that makes the server list
// more warns (a refused request changes nothing); a cursor the server never
// gave out answered with a page warns (invalid cursors SHOULD get -32602).
func TestCheckServerRefusals(t *testing.T) {
	t.Parallel()
	run := func(srv *handServer, check string) servercheck.Result {
		var got servercheck.Result
		_ = servercheck.Run(t.Context(), memDialer(srv), &servercheck.Options{Run: check,
			OnResult: func(r servercheck.Result) { got = r }})
		return got
	}
	good := run(goodServer(), "invalid-params")
	assert.Equal(t, servercheck.Pass, good.Status, "%s", good)
	assert.Equal(t, servercheck.Pass, run(goodServer(), "invalid-cursor").Status)

	served := goodServer()
	call := served.handlers["tools/call"]
	served.handlers["tools/call"] = func(p json.RawMessage) (any, *rpcError) {
		if !strings.Contains(string(p), `"name"`) {
			return map[string]any{"content": []any{}}, nil
		}
		return call(p)
	}
	got := run(served, "invalid-params")
	assert.Equal(t, servercheck.Fail, got.Status, "%s", got)
	assert.Contains(t, got.Detail, `sent tools/call without "name", a parameter it requires; it succeeded`)

	changed := goodServer()
	list, refused := changed.handlers["tools/list"], false
	changed.handlers["tools/call"] = func(json.RawMessage) (any, *rpcError) {
		refused = true
		return nil, &rpcError{Code: -32602, Message: "Invalid params"}
	}
	changed.handlers["tools/list"] = func(p json.RawMessage) (any, *rpcError) {
		res, rerr := list(p)
		if m, ok := res.(map[string]any); ok && refused {
			m["tools"] = append(m["tools"].([]any), map[string]any{"name": "ghost", "inputSchema": map[string]any{"type": "object"}})
		}
		return res, rerr
	}
	got = run(changed, "invalid-params")
	assert.Equal(t, servercheck.Warn, got.Status, "%s", got)
	assert.Contains(t, got.Detail, "what the server lists changed across requests it refused")

	// A list that never pages may ignore a cursor (noted); one that pages
	// must not take one it never gave out for a page.
	unpaged := goodServer()
	list = unpaged.handlers["tools/list"]
	unpaged.handlers["tools/list"] = func(json.RawMessage) (any, *rpcError) { return list(nil) }
	got = run(unpaged, "invalid-cursor")
	assert.Equal(t, servercheck.Pass, got.Status, "%s", got)
	assert.Contains(t, got.Detail, "answered with the whole list (the server gives out no cursors for it)")
	lenient := goodServer()
	lenient.handlers["tools/list"] = func(p json.RawMessage) (any, *rpcError) {
		res, rerr := list(nil)
		if m, ok := res.(map[string]any); ok && !strings.Contains(string(p), "cursor") {
			m["nextCursor"] = "page-2"
		}
		return res, rerr
	}
	got = run(lenient, "invalid-cursor")
	assert.Equal(t, servercheck.Warn, got.Status, "%s", got)
	assert.Contains(t, got.Detail, `sent tools/list with cursor "mcptestkit-check-no-such-cursor", which the server never gave out; it was answered with a page`)
}
