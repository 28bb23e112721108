package gosdk_test

//lint:file-ignore SA5000 the handlers that write to a nil map do it for the runtime panic the guard must catch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk"
	adapter "github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/adaptertest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/guard"
	"github.com/mcptestkit/mcptestkit/logcapture"
)

// The handlers below are named functions, not closures, so that the tests
// can check that a logged stack names the function that panicked.

func explode(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
	panic("kaboom")
}

func explodeRaw(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	panic("kaboom")
}

type nIn struct {
	N int `json:"n"`
}

func explodeN(_ context.Context, _ *mcp.CallToolRequest, in nIn) (*mcp.CallToolResult, any, error) {
	panic(fmt.Sprintf("kaboom %d", in.N))
}

type titleIn struct {
	Title string `json:"title"`
}

func getAuthor(_ context.Context, _ *mcp.CallToolRequest, in titleIn) (*mcp.CallToolResult, any, error) {
	if in.Title != "Dune" {
		return nil, nil, fmt.Errorf("No book titled %q in the catalog.", in.Title)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Frank Herbert"}}}, nil, nil
}

func protocolFail(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
	return nil, nil, &jsonrpc.Error{Code: -32001, Message: "custom", Data: json.RawMessage(`{"k":1}`)}
}

func rawFail(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, errors.New("raw boom")
}

func readCrash(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	panic(errors.New("resource kaboom"))
}

func readBook(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	var catalog map[string]string
	catalog["x"] = "y" // a real runtime panic: assignment to a nil map
	return nil, nil
}

func renderGreet(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	panic("prompt kaboom")
}

func completeArg(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	panic("completion kaboom")
}

// guarded builds a server that logs into logs, SDK records included, as a
// real server would, with Guard installed.
func guarded(logs *logcapture.Recorder, opts ...guard.Option) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "guarded", Version: "v0"},
		&mcp.ServerOptions{Logger: logs.Logger(), CompletionHandler: completeArg})
	object := json.RawMessage(`{"type":"object"}`)
	mcp.AddTool(s, &mcp.Tool{Name: "explode"}, explode)
	s.AddTool(&mcp.Tool{Name: "explode_raw", InputSchema: object}, explodeRaw)
	mcp.AddTool(s, &mcp.Tool{Name: "explode_n"}, explodeN)
	mcp.AddTool(s, &mcp.Tool{Name: "get_author"}, getAuthor)
	mcp.AddTool(s, &mcp.Tool{Name: "protocol"}, protocolFail)
	s.AddTool(&mcp.Tool{Name: "raw_fail", InputSchema: object}, rawFail)
	s.AddResource(&mcp.Resource{URI: "file:///crash", Name: "crash"}, readCrash)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "books://{title}", Name: "book"}, readBook)
	s.AddPrompt(&mcp.Prompt{Name: "greet"}, renderGreet)
	s.AddReceivingMiddleware(gosdk.Guard(logs.Logger(), opts...))
	return s
}

// guardedSession serves a guarded server and connects the client. When the
// test ends it checks that every panic stopped at the guard.
func guardedSession(t *testing.T, version string, opts ...guard.Option) (*client.Client, *logcapture.Recorder, *sdktest.Served) {
	t.Helper()
	logs := logcapture.New(t)
	sv := sdktest.Serve(t, adapter.Server(guarded(logs, opts...)))
	t.Cleanup(func() { sv.AssertNoPanic(t) })
	return sv.Connect(t, version), logs, sv
}

// TestGuardPanics walks the crash rows of the contract in the package doc:
// for each kind of handler, exactly what the client gets (never the panic
// text) and the one ERROR record, whose stack names the function that
// panicked.
func TestGuardPanics(t *testing.T) {
	t.Parallel()
	crashed := func(uri string) *jsonrpc.Error {
		return &jsonrpc.Error{Code: -32603, Message: "Error reading resource " + uri, Data: json.RawMessage(`{"uri":"` + uri + `"}`)}
	}
	cases := []sdktest.Crash{{
		Name: "typed tool", Send: adaptertest.CallTool("explode", nil),
		Want:   sdktest.Answer{IsError: true, Text: "Error executing tool explode"},
		Method: "tools/call",
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgToolPanic), logcapture.Attr(guard.ToolKey, "explode"), logcapture.Attr(guard.PanicKey, "kaboom")},
		Func:   "gosdk_test.explode(",
	}, {
		Name: "raw tool", Send: adaptertest.CallTool("explode_raw", nil),
		Want:   sdktest.Answer{IsError: true, Text: "Error executing tool explode_raw"},
		Method: "tools/call",
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgToolPanic), logcapture.Attr(guard.ToolKey, "explode_raw"), logcapture.Attr(guard.PanicKey, "kaboom")},
		Func:   "gosdk_test.explodeRaw(",
	}, {
		Name: "resource", Send: adaptertest.ReadResource("file:///crash"),
		Want:   sdktest.Answer{Err: crashed("file:///crash")},
		Method: "resources/read",
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgResourcePanic), logcapture.Attr(guard.URIKey, "file:///crash"), logcapture.HasAttr(guard.PanicKey)},
		Func:   "gosdk_test.readCrash(",
	}, {
		Name: "resource template", Send: adaptertest.ReadResource("books://Dune"),
		Want:   sdktest.Answer{Err: crashed("books://Dune")},
		Method: "resources/read",
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgResourcePanic), logcapture.Attr(guard.URIKey, "books://Dune"), logcapture.HasAttr(guard.PanicKey)},
		Func:   "gosdk_test.readBook(",
	}, {
		Name: "prompt", Send: adaptertest.GetPrompt("greet"),
		Want:   sdktest.Answer{Err: &jsonrpc.Error{Code: -32603, Message: "Error rendering prompt greet"}},
		Method: "prompts/get",
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgPromptPanic), logcapture.Attr(guard.PromptKey, "greet"), logcapture.Attr(guard.PanicKey, "prompt kaboom")},
		Func:   "gosdk_test.renderGreet(",
	}, {
		Name: "other method", Send: adaptertest.Complete(client.PromptReference("greet"), "name"),
		Want:   sdktest.Answer{Err: &jsonrpc.Error{Code: -32603, Message: "Internal server error"}},
		Method: "completion/complete",
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgPanic), logcapture.Attr(guard.PanicKey, "completion kaboom"),
			logcapture.Not(logcapture.Any(logcapture.HasAttr(guard.ToolKey), logcapture.HasAttr(guard.URIKey), logcapture.HasAttr(guard.PromptKey)))},
		Func: "gosdk_test.completeArg(",
	}}
	sdktest.EachEra(t, func(t *testing.T, era adaptertest.Era) {
		for _, c := range cases {
			t.Run(c.Name, func(t *testing.T) {
				t.Parallel()
				cl, logs, sv := guardedSession(t, era.Version)
				sdktest.AssertCrash(t, cl, sv.Client.Transcript(), logs, c)
			})
		}
	})
}

func TestGuardResourcePanicValueIsKept(t *testing.T) {
	t.Parallel()
	c, logs, _ := guardedSession(t, "")
	_, err := c.ReadResource(t.Context(), "file:///crash")
	require.Error(t, err)
	rec := logs.RequireLogged(t, logcapture.Message(guard.MsgResourcePanic))
	perr, ok := rec.Value(guard.PanicKey).(error)
	require.True(t, ok, "panic value %T, want the error given to panic", rec.Value(guard.PanicKey))
	assert.EqualError(t, perr, "resource kaboom")
}

// TestGuardFailures walks the expected-failure rows of the contract: the
// client gets the handler's own answer, unchanged, and the log one INFO
// record without a stack (or nothing, for a success).
func TestGuardFailures(t *testing.T) {
	t.Parallel()
	noBook := `No book titled "Nothing" in the catalog.`
	// The SDK's own answer for a resource it does not have: -32002 before
	// go-sdk v1.7.0, -32602 since (unless MCPGODEBUG restores -32002).
	notFound, ok := mcp.ResourceNotFoundError("file:///missing").(*jsonrpc.Error)
	require.True(t, ok, "mcp.ResourceNotFoundError is a *jsonrpc.Error")
	cases := []sdktest.Failure{{
		Name: "tool error result", Send: adaptertest.CallTool("get_author", map[string]any{"title": "Nothing"}),
		Want: sdktest.Answer{IsError: true, Text: noBook},
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgToolError), logcapture.Attr(guard.MethodKey, "tools/call"),
			logcapture.Attr(guard.ToolKey, "get_author"), logcapture.Attr(guard.ErrorKey, noBook)},
	}, {
		Name: "success", Send: adaptertest.CallTool("get_author", map[string]any{"title": "Dune"}),
		Want: sdktest.Answer{Text: "Frank Herbert"},
	}, {
		Name: "handler's JSON-RPC error", Send: adaptertest.CallTool("protocol", nil),
		Want: sdktest.Answer{Err: &jsonrpc.Error{Code: -32001, Message: "custom", Data: json.RawMessage(`{"k":1}`)}},
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgRequestFailed), logcapture.Attr(guard.MethodKey, "tools/call"),
			logcapture.Attr(guard.ToolKey, "protocol"), logcapture.Attr(guard.CodeKey, -32001), logcapture.Attr(guard.ErrorKey, "custom")},
	}, {
		Name: "SDK's unknown tool", Send: adaptertest.CallTool("nope", nil),
		Want: sdktest.Answer{Err: &jsonrpc.Error{Code: -32602, Message: `unknown tool "nope"`}},
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgRequestFailed), logcapture.Attr(guard.ToolKey, "nope"),
			logcapture.Attr(guard.CodeKey, -32602)},
	}, {
		Name: "SDK's resource not found", Send: adaptertest.ReadResource("file:///missing"),
		Want: sdktest.Answer{Err: notFound},
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgRequestFailed), logcapture.Attr(guard.MethodKey, "resources/read"),
			logcapture.Attr(guard.URIKey, "file:///missing"), logcapture.Attr(guard.CodeKey, notFound.Code)},
	}, {
		Name: "raw handler's plain error", Send: adaptertest.CallTool("raw_fail", nil),
		Want: sdktest.Answer{Err: &jsonrpc.Error{Code: 0, Message: "raw boom"}},
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgRequestFailed), logcapture.Attr(guard.ToolKey, "raw_fail"),
			logcapture.Attr(guard.CodeKey, 0), logcapture.Attr(guard.ErrorKey, "raw boom")},
	}}
	sdktest.EachEra(t, func(t *testing.T, era adaptertest.Era) {
		for _, f := range cases {
			t.Run(f.Name, func(t *testing.T) {
				t.Parallel()
				c, logs, _ := guardedSession(t, era.Version)
				sdktest.AssertFailure(t, c, logs, f)
			})
		}
	})
}

func TestGuardToolErrorsAsResults(t *testing.T) {
	t.Parallel()
	c, logs, _ := guardedSession(t, "", guard.ToolErrorsAsResults)

	res := adaptertest.Call(t, c, "raw_fail", nil)
	assert.True(t, res.IsError)
	assert.Equal(t, "raw boom", adaptertest.Text(t, res))
	logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(guard.MsgToolError),
		logcapture.Attr(guard.ToolKey, "raw_fail"), logcapture.Attr(guard.ErrorKey, "raw boom"))

	// A JSON-RPC error is still a protocol error.
	_, err := c.CallTool(t.Context(), "protocol", map[string]any{})
	assert.Equal(t, int64(-32001), sdktest.WireError(t, err).Code)
	logs.AssertCount(t, 1, logcapture.Message(guard.MsgToolError))
	logs.AssertNoWarnings(t)
}

func TestGuardKeepsServingAfterPanic(t *testing.T) {
	t.Parallel()
	c, logs, _ := guardedSession(t, "")
	for range 3 {
		assert.True(t, adaptertest.Call(t, c, "explode", nil).IsError)
		assert.Equal(t, "Frank Herbert", adaptertest.Text(t, adaptertest.Call(t, c, "get_author", map[string]any{"title": "Dune"})))
	}
	logs.AssertCount(t, 3, logcapture.Message(guard.MsgToolPanic))
}

func TestGuardConcurrentPanicsAreEachReportedOnce(t *testing.T) {
	t.Parallel()
	c, logs, _ := guardedSession(t, "")
	const n = 32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, err := c.CallTool(t.Context(), "explode_n", map[string]any{"n": i})
			if assert.NoError(t, err) {
				assert.Equal(t, []client.Content{&client.TextContent{Text: "Error executing tool explode_n"}}, res.Content)
			}
		})
	}
	wg.Wait()
	logs.AssertCount(t, n, logcapture.Level(slog.LevelError))
	for i := range n {
		logs.AssertCount(t, 1, logcapture.Message(guard.MsgToolPanic), logcapture.Attr(guard.PanicKey, fmt.Sprintf("kaboom %d", i)))
	}
}

// With AddSource, the ERROR record's source is the line that panicked, in the
// handler, not the guard's code: for a call of panic and for a runtime error
// (a nil map), which the runtime raises from helpers of its own.
func TestGuardRecordSourceIsThePanickingLine(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{AddSource: true}))
	var file string
	var line int
	nextLine := func() { _, file, line, _ = runtime.Caller(1); line++ } // the caller's next line
	s := mcp.NewServer(&mcp.Implementation{Name: "source", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "explode"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		nextLine()
		panic("kaboom")
	})
	mcp.AddTool(s, &mcp.Tool{Name: "nil_map"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		var catalog map[string]string
		nextLine()
		catalog["x"] = "y"
		return nil, nil, nil
	})
	s.AddReceivingMiddleware(gosdk.Guard(logger))
	c := sdktest.Serve(t, adapter.Server(s)).Connect(t, "")
	for _, tool := range []string{"explode", "nil_map"} {
		out.Reset()
		assert.True(t, adaptertest.Call(t, c, tool, nil).IsError, tool)
		var rec struct {
			Msg    string `json:"msg"`
			Source struct {
				File string `json:"file"`
				Line int    `json:"line"`
			} `json:"source"`
		}
		require.NoError(t, json.Unmarshal(out.Bytes(), &rec), "one JSON record:\n%s", out.String())
		assert.Equal(t, guard.MsgToolPanic, rec.Msg)
		assert.Equal(t, fmt.Sprintf("%s:%d", file, line), fmt.Sprintf("%s:%d", rec.Source.File, rec.Source.Line), tool)
	}
}

// A logger whose handler panics (on every record, or on ERROR records only)
// does not turn the guard's recovery into a dead server: the client gets
// the contract's answers and the server goes on serving. (The guard says
// the first lost record on standard error.)
func TestGuardSurvivesAPanickingLogger(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelError} {
		s := mcp.NewServer(&mcp.Implementation{Name: "broken-logger", Version: "v0"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "explode"}, explode)
		mcp.AddTool(s, &mcp.Tool{Name: "get_author"}, getAuthor)
		s.AddReceivingMiddleware(gosdk.Guard(slog.New(adaptertest.PanicsFrom(level))))
		c := sdktest.Serve(t, adapter.Server(s)).Connect(t, "")
		for range 2 {
			res := adaptertest.Call(t, c, "explode", nil)
			assert.True(t, res.IsError)
			assert.Equal(t, "Error executing tool explode", adaptertest.Text(t, res))
			res = adaptertest.Call(t, c, "get_author", map[string]any{"title": "Nothing"})
			assert.True(t, res.IsError, "a tool's error is still a result")
			assert.Equal(t, "Frank Herbert", adaptertest.Text(t, adaptertest.Call(t, c, "get_author", map[string]any{"title": "Dune"})))
		}
	}
}
