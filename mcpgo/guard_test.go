package mcpgo_test

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

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/guard"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcpgo"
	"github.com/mcptestkit/mcptestkit/mcpgo/internal/adaptertest"
	"github.com/mcptestkit/mcptestkit/mcpgo/internal/sdktest"
	adapter "github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// The handlers below are named functions, not closures, so that the tests
// can check that a logged stack names the function that panicked.

func explode(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	panic("kaboom")
}

func explodeN(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	panic(fmt.Sprintf("kaboom %d", req.GetInt("n", -1)))
}

func getAuthor(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	title := req.GetString("title", "")
	if title != "Dune" {
		return mcp.NewToolResultError(fmt.Sprintf("No book titled %q in the catalog.", title)), nil
	}
	return mcp.NewToolResultText("Frank Herbert"), nil
}

func toolFail(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, errors.New("boom")
}

func toolElicit(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{}}
}

func readElicit(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	return nil, fmt.Errorf("sign in first: %w", &mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{}})
}

func renderElicit(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return nil, mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{}}
}

func readCrash(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	panic(errors.New("resource kaboom"))
}

func readBook(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	var catalog map[string]string
	catalog["x"] = "y" // a real runtime panic: assignment to a nil map
	return nil, nil
}

func readFail(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	return nil, errors.New("resource boom")
}

func renderGreet(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	panic("prompt kaboom")
}

func renderFail(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return nil, errors.New("prompt boom")
}

type crashingCompletions struct{}

func (crashingCompletions) CompletePromptArgument(context.Context, string, mcp.CompleteArgument, mcp.CompleteContext) (*mcp.Completion, error) {
	panic("completion kaboom")
}

func (crashingCompletions) CompleteResourceArgument(context.Context, string, mcp.CompleteArgument, mcp.CompleteContext) (*mcp.Completion, error) {
	return nil, errors.New("completion boom")
}

// guarded builds a server that logs into logs, SDK records included, as a
// real server would, with Guard given first so that it is outermost.
func guarded(logs *logcapture.Recorder, opts ...guard.Option) *server.MCPServer {
	l := logs.Logger()
	serverOpts := append([]server.ServerOption{mcpgo.Guard(l, opts...)}, sdkLogger(l)...)
	s := server.NewMCPServer("guarded", "v0", append(serverOpts,
		server.WithCompletions(),
		server.WithPromptCompletionProvider(mcpgo.GuardPromptCompletions(l, crashingCompletions{})),
		server.WithResourceCompletionProvider(mcpgo.GuardResourceCompletions(l, crashingCompletions{})),
	)...)
	addHandlers(s)
	return s
}

// sdkLogger returns the option that makes mcp-go log into l, where the
// release has one: from v0.58.0 server.WithLogger takes a *slog.Logger and
// is a server option; before, it configures the streamable HTTP transport
// and the server itself logs nothing. Matching on its type names no API the
// oldest supported release lacks.
func sdkLogger(l *slog.Logger) []server.ServerOption {
	if withLogger, ok := any(server.WithLogger).(func(*slog.Logger) server.ServerOption); ok {
		return []server.ServerOption{withLogger(l)}
	}
	return nil
}

func addHandlers(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("explode"), explode)
	s.AddTool(mcp.NewTool("explode_n", mcp.WithNumber("n")), explodeN)
	s.AddTool(mcp.NewTool("get_author", mcp.WithString("title")), getAuthor)
	s.AddTool(mcp.NewTool("fail"), toolFail)
	s.AddTool(mcp.NewTool("elicit"), toolElicit)
	s.AddResource(mcp.NewResource("file:///crash", "crash"), readCrash)
	s.AddResource(mcp.NewResource("file:///fail", "fail"), readFail)
	s.AddResource(mcp.NewResource("file:///elicit", "elicit"), readElicit)
	s.AddResourceTemplate(mcp.NewResourceTemplate("books://{title}", "book"), readBook)
	s.AddPrompt(mcp.NewPrompt("greet"), renderGreet)
	s.AddPrompt(mcp.NewPrompt("fail"), renderFail)
	s.AddPrompt(mcp.NewPrompt("elicit"), renderElicit)
}

// guardedSession connects the test kit's client to s through the harness,
// at version ("" negotiates). The harness fails the test if a panic gets
// past the guard to the adapter. tr is the connection's transcript.
func guardedSession(t *testing.T, s *server.MCPServer, version string) (c *client.Client, tr *mcptest.Transcript) {
	t.Helper()
	tr = new(mcptest.Transcript)
	return mcptest.Connect(t, adapter.Server(s), mcptest.WithProtocolVersion(version), mcptest.WithTranscript(tr)), tr
}

// TestGuardPanics walks the crash rows of the contract in the package doc:
// for each kind of handler, exactly what the client gets (never the panic
// text) and the one ERROR record, whose stack names the function that
// panicked.
func TestGuardPanics(t *testing.T) {
	t.Parallel()
	cases := []sdktest.Crash{{
		Name: "tool", Send: adaptertest.CallTool("explode", nil),
		Want:   sdktest.Answer{IsError: true, Text: "Error executing tool explode"},
		Method: "tools/call",
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgToolPanic), logcapture.Attr(guard.ToolKey, "explode"), logcapture.Attr(guard.PanicKey, "kaboom")},
		Func:   "mcpgo_test.explode(",
	}, {
		// mcp-go gives a handler's error no data: no {"uri": ...} here.
		Name: "resource", Send: adaptertest.ReadResource("file:///crash"),
		Want:   sdktest.Answer{Err: sdktest.WireErr(-32603, "Error reading resource file:///crash")},
		Method: "resources/read",
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgResourcePanic), logcapture.Attr(guard.URIKey, "file:///crash"), logcapture.HasAttr(guard.PanicKey)},
		Func:   "mcpgo_test.readCrash(",
	}, {
		Name: "resource template", Send: adaptertest.ReadResource("books://Dune"),
		Want:   sdktest.Answer{Err: sdktest.WireErr(-32603, "Error reading resource books://Dune")},
		Method: "resources/read",
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgResourcePanic), logcapture.Attr(guard.URIKey, "books://Dune"), logcapture.HasAttr(guard.PanicKey)},
		Func:   "mcpgo_test.readBook(",
	}, {
		Name: "prompt", Send: adaptertest.GetPrompt("greet"),
		Want:   sdktest.Answer{Err: sdktest.WireErr(-32603, "Error rendering prompt greet")},
		Method: "prompts/get",
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgPromptPanic), logcapture.Attr(guard.PromptKey, "greet"), logcapture.Attr(guard.PanicKey, "prompt kaboom")},
		Func:   "mcpgo_test.renderGreet(",
	}, {
		Name: "guarded completion provider", Send: adaptertest.Complete(client.PromptReference("greet"), "name"),
		Want:   sdktest.Answer{Err: sdktest.WireErr(-32603, "Internal server error")},
		Method: "completion/complete",
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgPanic), logcapture.Attr(guard.PanicKey, "completion kaboom"),
			logcapture.Not(logcapture.Any(logcapture.HasAttr(guard.ToolKey), logcapture.HasAttr(guard.URIKey), logcapture.HasAttr(guard.PromptKey)))},
		Func: "mcpgo_test.crashingCompletions.CompletePromptArgument(",
	}}
	sdktest.EachEra(t, func(t *testing.T, era adaptertest.Era) {
		for _, c := range cases {
			t.Run(c.Name, func(t *testing.T) {
				t.Parallel()
				logs := logcapture.New(t)
				cl, tr := guardedSession(t, guarded(logs), era.Version)
				sdktest.AssertCrash(t, cl, tr, logs, c)
			})
		}
	})
}

// TestGuardFailures walks the expected-failure rows of the contract: the
// client gets mcp-go's answer, and the log one INFO record without a stack
// (or nothing, where no handler ran or nothing failed).
func TestGuardFailures(t *testing.T) {
	t.Parallel()
	notFound := `No book titled "Nothing" in the catalog.`
	cases := []sdktest.Failure{{
		Name: "tool error result", Send: adaptertest.CallTool("get_author", map[string]any{"title": "Nothing"}),
		Want: sdktest.Answer{IsError: true, Text: notFound},
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgToolError), logcapture.Attr(guard.MethodKey, "tools/call"),
			logcapture.Attr(guard.ToolKey, "get_author"), logcapture.Attr(guard.ErrorKey, notFound)},
	}, {
		Name: "success", Send: adaptertest.CallTool("get_author", map[string]any{"title": "Dune"}),
		Want: sdktest.Answer{Text: "Frank Herbert"},
	}, {
		Name: "tool's Go error", Send: adaptertest.CallTool("fail", nil),
		Want: sdktest.Answer{Err: sdktest.WireErr(-32603, "boom")},
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgRequestFailed), logcapture.Attr(guard.MethodKey, "tools/call"),
			logcapture.Attr(guard.ToolKey, "fail"), logcapture.Attr(guard.CodeKey, -32603), logcapture.Attr(guard.ErrorKey, "boom")},
	}, {
		Name: "resource's Go error", Send: adaptertest.ReadResource("file:///fail"),
		Want: sdktest.Answer{Err: sdktest.WireErr(-32603, "resource boom")},
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgRequestFailed), logcapture.Attr(guard.MethodKey, "resources/read"),
			logcapture.Attr(guard.URIKey, "file:///fail"), logcapture.Attr(guard.CodeKey, -32603), logcapture.Attr(guard.ErrorKey, "resource boom")},
	}, {
		Name: "prompt's Go error", Send: adaptertest.GetPrompt("fail"),
		Want: sdktest.Answer{Err: sdktest.WireErr(-32603, "prompt boom")},
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgRequestFailed), logcapture.Attr(guard.MethodKey, "prompts/get"),
			logcapture.Attr(guard.PromptKey, "fail"), logcapture.Attr(guard.CodeKey, -32603), logcapture.Attr(guard.ErrorKey, "prompt boom")},
	}, {
		Name: "guarded completion provider's error", Send: adaptertest.Complete(client.ResourceReference("books://{title}"), "title"),
		Want: sdktest.Answer{Err: sdktest.WireErr(-32603, "completion boom")},
		Record: []logcapture.Matcher{logcapture.Message(guard.MsgRequestFailed), logcapture.Attr(guard.MethodKey, "completion/complete"),
			logcapture.Attr(guard.CodeKey, -32603), logcapture.Attr(guard.ErrorKey, "completion boom")},
	}, {
		// mcp-go rejects it before any handler runs: the guard logs nothing.
		Name: "mcp-go's unknown tool", Send: adaptertest.CallTool("nope", nil),
		Want: sdktest.Answer{Err: sdktest.WireErr(-32602, "tool 'nope' not found: tool not found")},
	}}
	sdktest.EachEra(t, func(t *testing.T, era adaptertest.Era) {
		for _, f := range cases {
			t.Run(f.Name, func(t *testing.T) {
				t.Parallel()
				logs := logcapture.New(t)
				c, _ := guardedSession(t, guarded(logs), era.Version)
				sdktest.AssertFailure(t, c, logs, f)
			})
		}
	})
}

// A URL elicitation keeps its own code on a legacy request from mcp-go
// v1.2.0; before it, and at 2026-07-28, mcp-go sends -32603. The record
// names the code the client got, whichever it is, for each kind of handler.
func TestGuardURLElicitationKeepsItsCode(t *testing.T) {
	t.Parallel()
	requests := []struct {
		name   string
		send   adaptertest.Request
		record logcapture.Matcher
	}{
		{"tool", adaptertest.CallTool("elicit", nil), logcapture.Attr(guard.ToolKey, "elicit")},
		{"resource", adaptertest.ReadResource("file:///elicit"), logcapture.Attr(guard.URIKey, "file:///elicit")},
		{"prompt", adaptertest.GetPrompt("elicit"), logcapture.Attr(guard.PromptKey, "elicit")},
	}
	for _, era := range []struct{ name, version string }{{"legacy", "2025-11-25"}, {"2026-07-28", ""}} {
		for _, r := range requests {
			t.Run(era.name+"/"+r.name, func(t *testing.T) {
				t.Parallel()
				want := int64(-32603)
				if era.version == "" {
					sdktest.SkipUnlessModern(t)
				} else if sdktest.ReleaseAtLeast("v1.2.0") {
					want = -32042
				}
				logs := logcapture.New(t)
				c, _ := guardedSession(t, guarded(logs, guard.ToolErrorsAsResults), era.version)

				_, err := r.send(t.Context(), c)
				assert.Equal(t, want, adaptertest.WireError(t, err).Code, "on %s", sdktest.Release())
				logs.AssertLogged(t, logcapture.Message(guard.MsgRequestFailed), r.record, logcapture.Attr(guard.CodeKey, want))
			})
		}
	}
}

func TestGuardToolErrorsAsResults(t *testing.T) {
	t.Parallel()
	sdktest.EachEra(t, func(t *testing.T, era adaptertest.Era) {
		logs := logcapture.New(t)
		c, _ := guardedSession(t, guarded(logs, guard.ToolErrorsAsResults), era.Version)

		res := adaptertest.Call(t, c, "fail", nil)
		assert.True(t, res.IsError)
		assert.Equal(t, "boom", adaptertest.Text(t, res))
		logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(guard.MsgToolError),
			logcapture.Attr(guard.ToolKey, "fail"), logcapture.Attr(guard.ErrorKey, "boom"))
		logs.AssertNone(t, logcapture.Message(guard.MsgRequestFailed))
		logs.AssertNoWarnings(t)
	})
}

func TestGuardRetrofitted(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	s := server.NewMCPServer("retrofitted", "v0")
	addHandlers(s)
	mcpgo.Guard(logs.Logger())(s) // on a server someone else built

	c, _ := guardedSession(t, s, "")
	res := adaptertest.Call(t, c, "explode", nil)
	assert.Equal(t, "Error executing tool explode", adaptertest.Text(t, res))
	logs.AssertCount(t, 1, logcapture.Message(guard.MsgToolPanic), logcapture.Attr(guard.ToolKey, "explode"))
}

func TestGuardKeepsServingAfterPanic(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	c, _ := guardedSession(t, guarded(logs), "")
	for range 3 {
		assert.True(t, adaptertest.Call(t, c, "explode", nil).IsError)
		assert.Equal(t, "Frank Herbert", adaptertest.Text(t, adaptertest.Call(t, c, "get_author", map[string]any{"title": "Dune"})))
	}
	logs.AssertCount(t, 3, logcapture.Message(guard.MsgToolPanic))
}

func TestGuardConcurrentPanicsAreEachReportedOnce(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	c, _ := guardedSession(t, guarded(logs), "")
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
// handler, not the guard's code: in a tool (a call of panic) and in a
// resource (a nil map, a runtime error the runtime raises from helpers of
// its own), which the guard recovers in two places.
func TestGuardRecordSourceIsThePanickingLine(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{AddSource: true}))
	var file string
	var line int
	nextLine := func() { _, file, line, _ = runtime.Caller(1); line++ } // the caller's next line
	s := server.NewMCPServer("source", "v0", mcpgo.Guard(logger))
	s.AddTool(mcp.NewTool("explode"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		nextLine()
		panic("kaboom")
	})
	s.AddResource(mcp.NewResource("file:///nil-map", "nil map"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		var catalog map[string]string
		nextLine()
		catalog["x"] = "y"
		return nil, nil
	})
	c, _ := guardedSession(t, s, "")
	for _, send := range []adaptertest.Request{adaptertest.CallTool("explode", nil), adaptertest.ReadResource("file:///nil-map")} {
		out.Reset()
		_, _ = send(t.Context(), c) // the client's answer is TestGuardPanics's
		var rec struct {
			Msg    string `json:"msg"`
			Source struct {
				File string `json:"file"`
				Line int    `json:"line"`
			} `json:"source"`
		}
		require.NoError(t, json.Unmarshal(out.Bytes(), &rec), "one JSON record:\n%s", out.String())
		assert.Contains(t, []string{guard.MsgToolPanic, guard.MsgResourcePanic}, rec.Msg)
		assert.Equal(t, fmt.Sprintf("%s:%d", file, line), fmt.Sprintf("%s:%d", rec.Source.File, rec.Source.Line), rec.Msg)
	}
}

// A logger whose handler panics (on every record, or on ERROR records only)
// does not turn the guard's recovery into a dead server: the client gets
// the contract's answers and the server goes on serving. (The guard says
// the first lost record on standard error.)
func TestGuardSurvivesAPanickingLogger(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelError} {
		s := server.NewMCPServer("broken-logger", "v0", mcpgo.Guard(slog.New(adaptertest.PanicsFrom(level))))
		s.AddTool(mcp.NewTool("explode"), explode)
		s.AddTool(mcp.NewTool("get_author", mcp.WithString("title")), getAuthor)
		s.AddTool(mcp.NewTool("fail"), toolFail)
		c, _ := guardedSession(t, s, "")
		for range 2 {
			res := adaptertest.Call(t, c, "explode", nil)
			assert.True(t, res.IsError)
			assert.Equal(t, "Error executing tool explode", adaptertest.Text(t, res))
			assert.True(t, adaptertest.Call(t, c, "get_author", map[string]any{"title": "Nothing"}).IsError, "a tool's error is still a result")
			_, err := c.CallTool(t.Context(), "fail", nil)
			assert.ErrorContains(t, err, "boom", "a Go error is still -32603 with its text")
			assert.Equal(t, "Frank Herbert", adaptertest.Text(t, adaptertest.Call(t, c, "get_author", map[string]any{"title": "Dune"})))
		}
	}
}
