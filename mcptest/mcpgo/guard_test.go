package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest/mcpgo"
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
func guarded(logs *logcapture.Recorder, opts ...mcpgo.GuardOption) *server.MCPServer {
	l := logs.Logger()
	s := server.NewMCPServer("guarded", "v0",
		mcpgo.Guard(l, opts...),
		server.WithLogger(l),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(mcpgo.GuardPromptCompletions(l, crashingCompletions{})),
		server.WithResourceCompletionProvider(mcpgo.GuardResourceCompletions(l, crashingCompletions{})),
	)
	addHandlers(s)
	return s
}

func addHandlers(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("explode"), explode)
	s.AddTool(mcp.NewTool("explode_n", mcp.WithNumber("n")), explodeN)
	s.AddTool(mcp.NewTool("get_author", mcp.WithString("title")), getAuthor)
	s.AddTool(mcp.NewTool("fail"), toolFail)
	s.AddTool(mcp.NewTool("elicit"), toolElicit)
	s.AddResource(mcp.NewResource("file:///crash", "crash"), readCrash)
	s.AddResource(mcp.NewResource("file:///fail", "fail"), readFail)
	s.AddResourceTemplate(mcp.NewResourceTemplate("books://{title}", "book"), readBook)
	s.AddPrompt(mcp.NewPrompt("greet"), renderGreet)
	s.AddPrompt(mcp.NewPrompt("fail"), renderFail)
}

// guardedSession serves s and connects the go-sdk client.
func guardedSession(t *testing.T, s *server.MCPServer, version string) (*gomcp.ClientSession, *served) {
	t.Helper()
	sv := serve(t, mcpgo.Server(s))
	cs := connect(t, sv, version, nil)
	t.Cleanup(func() {
		// The guard answered every panic, so the adapter's last-resort
		// recovery never saw one.
		select {
		case r := <-sv.reports:
			t.Errorf("a panic got past the guard: %s %q: %v", r.Method, r.Name, r.Value)
		default:
		}
	})
	return cs, sv
}

// wireError returns the JSON-RPC error inside err.
func wireError(t *testing.T, err error) *jsonrpc.Error {
	t.Helper()
	require.Error(t, err)
	var we *jsonrpc.Error
	require.ErrorAs(t, err, &we)
	return we
}

func TestGuardToolPanic(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			logs := logcapture.New(t)
			cs, sv := guardedSession(t, guarded(logs), era.version)

			res := call(t, cs, "explode", nil)
			assert.True(t, res.IsError)
			assert.Equal(t, []gomcp.Content{&gomcp.TextContent{Text: "Error executing tool explode"}}, res.Content)
			assert.Nil(t, res.StructuredContent)
			assert.NotContains(t, sv.client.Transcript().String(), "kaboom", "the panic text reached the client")

			rec := logs.RequireLogged(t, logcapture.Level(slog.LevelError), logcapture.Message(mcpgo.MsgToolPanic),
				logcapture.Attr(mcpgo.KeyMethod, "tools/call"), logcapture.Attr(mcpgo.KeyTool, "explode"),
				logcapture.Attr(mcpgo.KeyPanic, "kaboom"))
			assert.Contains(t, rec.Stack(), "mcpgo_test.explode(", "the stack names the panicking function")
			logs.AssertCount(t, 1, logcapture.AtLeast(slog.LevelWarn))
		})
	}
}

func TestGuardResourcePanic(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		for _, res := range []struct{ uri, fn string }{
			{"file:///crash", "mcpgo_test.readCrash("},
			{"books://Dune", "mcpgo_test.readBook("},
		} {
			t.Run(era.name+"/"+res.uri, func(t *testing.T) {
				t.Parallel()
				logs := logcapture.New(t)
				cs, sv := guardedSession(t, guarded(logs), era.version)

				_, err := cs.ReadResource(t.Context(), &gomcp.ReadResourceParams{URI: res.uri})
				we := wireError(t, err)
				assert.Equal(t, int64(-32603), we.Code)
				assert.Equal(t, "Error reading resource "+res.uri, we.Message)
				assert.Empty(t, we.Data, "mcp-go sends no data for a handler's error")
				tr := sv.client.Transcript().String()
				assert.NotContains(t, tr, "kaboom")
				assert.NotContains(t, tr, "nil map")

				rec := logs.RequireLogged(t, logcapture.Level(slog.LevelError), logcapture.Message(mcpgo.MsgResourcePanic),
					logcapture.Attr(mcpgo.KeyMethod, "resources/read"), logcapture.Attr(mcpgo.KeyURI, res.uri),
					logcapture.HasAttr(mcpgo.KeyPanic))
				assert.Contains(t, rec.Stack(), res.fn)
				logs.AssertCount(t, 1, logcapture.AtLeast(slog.LevelWarn))
			})
		}
	}
}

func TestGuardPromptPanic(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			logs := logcapture.New(t)
			cs, sv := guardedSession(t, guarded(logs), era.version)

			_, err := cs.GetPrompt(t.Context(), &gomcp.GetPromptParams{Name: "greet"})
			we := wireError(t, err)
			assert.Equal(t, int64(-32603), we.Code)
			assert.Equal(t, "Error rendering prompt greet", we.Message)
			assert.NotContains(t, sv.client.Transcript().String(), "kaboom")

			rec := logs.RequireLogged(t, logcapture.Level(slog.LevelError), logcapture.Message(mcpgo.MsgPromptPanic),
				logcapture.Attr(mcpgo.KeyMethod, "prompts/get"), logcapture.Attr(mcpgo.KeyPrompt, "greet"),
				logcapture.Attr(mcpgo.KeyPanic, "prompt kaboom"))
			assert.Contains(t, rec.Stack(), "mcpgo_test.renderGreet(")
			logs.AssertCount(t, 1, logcapture.AtLeast(slog.LevelWarn))
		})
	}
}

func TestGuardOtherMethodPanic(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			logs := logcapture.New(t)
			cs, sv := guardedSession(t, guarded(logs), era.version)

			_, err := cs.Complete(t.Context(), &gomcp.CompleteParams{
				Ref:      &gomcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
				Argument: gomcp.CompleteParamsArgument{Name: "name", Value: "A"},
			})
			we := wireError(t, err)
			assert.Equal(t, int64(-32603), we.Code)
			assert.Equal(t, "Internal server error", we.Message)
			assert.NotContains(t, sv.client.Transcript().String(), "kaboom")

			rec := logs.RequireLogged(t, logcapture.Level(slog.LevelError), logcapture.Message(mcpgo.MsgPanic),
				logcapture.Attr(mcpgo.KeyMethod, "completion/complete"), logcapture.Attr(mcpgo.KeyPanic, "completion kaboom"))
			assert.Contains(t, rec.Stack(), "mcpgo_test.crashingCompletions.CompletePromptArgument(")
			for _, key := range []string{mcpgo.KeyTool, mcpgo.KeyURI, mcpgo.KeyPrompt} {
				_, ok := rec.Lookup(key)
				assert.False(t, ok, "a record for another method has %s", key)
			}
			logs.AssertCount(t, 1, logcapture.AtLeast(slog.LevelWarn))

			// A provider's error passes through and is logged at INFO.
			_, err = cs.Complete(t.Context(), &gomcp.CompleteParams{
				Ref:      &gomcp.CompleteReference{Type: "ref/resource", URI: "books://{title}"},
				Argument: gomcp.CompleteParamsArgument{Name: "title", Value: "D"},
			})
			we = wireError(t, err)
			assert.Equal(t, int64(-32603), we.Code)
			assert.Equal(t, "completion boom", we.Message)
			logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(mcpgo.MsgRequestFailed),
				logcapture.Attr(mcpgo.KeyMethod, "completion/complete"), logcapture.Attr(mcpgo.KeyCode, -32603),
				logcapture.Attr(mcpgo.KeyError, "completion boom"))
		})
	}
}

func TestGuardToolErrorResultIsInfo(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			logs := logcapture.New(t)
			cs, _ := guardedSession(t, guarded(logs), era.version)

			res := call(t, cs, "get_author", map[string]any{"title": "Nothing"})
			assert.True(t, res.IsError)
			assert.Equal(t, `No book titled "Nothing" in the catalog.`, text(t, res))
			logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(mcpgo.MsgToolError),
				logcapture.Attr(mcpgo.KeyMethod, "tools/call"), logcapture.Attr(mcpgo.KeyTool, "get_author"),
				logcapture.Attr(mcpgo.KeyError, `No book titled "Nothing" in the catalog.`))
			logs.AssertNone(t, logcapture.HasAttr(mcpgo.KeyStack))
			logs.AssertNoWarnings(t)

			// A successful call logs nothing from the guard.
			logs.Clear()
			res = call(t, cs, "get_author", map[string]any{"title": "Dune"})
			assert.False(t, res.IsError)
			logs.AssertNone(t, logcapture.Any(logcapture.Message(mcpgo.MsgToolError), logcapture.Message(mcpgo.MsgRequestFailed)))
		})
	}
}

func TestGuardHandlerErrorsPassThrough(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			logs := logcapture.New(t)
			cs, _ := guardedSession(t, guarded(logs), era.version)

			_, err := cs.CallTool(t.Context(), &gomcp.CallToolParams{Name: "fail", Arguments: map[string]any{}})
			assert.Equal(t, &jsonrpc.Error{Code: -32603, Message: "boom"}, wireError(t, err))
			logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(mcpgo.MsgRequestFailed),
				logcapture.Attr(mcpgo.KeyMethod, "tools/call"), logcapture.Attr(mcpgo.KeyTool, "fail"),
				logcapture.Attr(mcpgo.KeyCode, -32603), logcapture.Attr(mcpgo.KeyError, "boom"))

			_, err = cs.ReadResource(t.Context(), &gomcp.ReadResourceParams{URI: "file:///fail"})
			assert.Equal(t, &jsonrpc.Error{Code: -32603, Message: "resource boom"}, wireError(t, err))
			logs.AssertLogged(t, logcapture.Message(mcpgo.MsgRequestFailed),
				logcapture.Attr(mcpgo.KeyURI, "file:///fail"), logcapture.Attr(mcpgo.KeyCode, -32603))

			_, err = cs.GetPrompt(t.Context(), &gomcp.GetPromptParams{Name: "fail"})
			assert.Equal(t, &jsonrpc.Error{Code: -32603, Message: "prompt boom"}, wireError(t, err))
			logs.AssertLogged(t, logcapture.Message(mcpgo.MsgRequestFailed),
				logcapture.Attr(mcpgo.KeyPrompt, "fail"), logcapture.Attr(mcpgo.KeyCode, -32603))

			// mcp-go's own protocol errors pass through; no handler ran, so
			// the guard logs nothing for them.
			_, err = cs.CallTool(t.Context(), &gomcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
			assert.Equal(t, int64(-32602), wireError(t, err).Code)

			logs.AssertCount(t, 3, logcapture.Message(mcpgo.MsgRequestFailed))
			logs.AssertNone(t, logcapture.HasAttr(mcpgo.KeyStack))
			logs.AssertNoWarnings(t)
		})
	}
}

// A URL elicitation keeps its own code on a legacy session, and the record
// says so.
func TestGuardURLElicitationKeepsItsCode(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	cs, _ := guardedSession(t, guarded(logs, mcpgo.ToolErrorsAsResults()), "2025-11-25")

	_, err := cs.CallTool(t.Context(), &gomcp.CallToolParams{Name: "elicit", Arguments: map[string]any{}})
	assert.Equal(t, int64(-32042), wireError(t, err).Code)
	logs.AssertLogged(t, logcapture.Message(mcpgo.MsgRequestFailed),
		logcapture.Attr(mcpgo.KeyTool, "elicit"), logcapture.Attr(mcpgo.KeyCode, -32042))
}

func TestGuardToolErrorsAsResults(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			logs := logcapture.New(t)
			cs, _ := guardedSession(t, guarded(logs, mcpgo.ToolErrorsAsResults()), era.version)

			res := call(t, cs, "fail", nil)
			assert.True(t, res.IsError)
			assert.Equal(t, "boom", text(t, res))
			logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(mcpgo.MsgToolError),
				logcapture.Attr(mcpgo.KeyTool, "fail"), logcapture.Attr(mcpgo.KeyError, "boom"))
			logs.AssertNone(t, logcapture.Message(mcpgo.MsgRequestFailed))
			logs.AssertNoWarnings(t)
		})
	}
}

func TestGuardRetrofitted(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	s := server.NewMCPServer("retrofitted", "v0")
	addHandlers(s)
	mcpgo.Guard(logs.Logger())(s) // on a server someone else built

	cs, _ := guardedSession(t, s, "")
	res := call(t, cs, "explode", nil)
	assert.Equal(t, "Error executing tool explode", text(t, res))
	logs.AssertCount(t, 1, logcapture.Message(mcpgo.MsgToolPanic), logcapture.Attr(mcpgo.KeyTool, "explode"))
}

func TestGuardKeepsServingAfterPanic(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	cs, _ := guardedSession(t, guarded(logs), "")
	for range 3 {
		assert.True(t, call(t, cs, "explode", nil).IsError)
		assert.Equal(t, "Frank Herbert", text(t, call(t, cs, "get_author", map[string]any{"title": "Dune"})))
	}
	logs.AssertCount(t, 3, logcapture.Message(mcpgo.MsgToolPanic))
}

func TestGuardConcurrentPanicsAreEachReportedOnce(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	cs, _ := guardedSession(t, guarded(logs), "")
	const n = 32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, err := cs.CallTool(t.Context(), &gomcp.CallToolParams{Name: "explode_n", Arguments: map[string]any{"n": i}})
			if assert.NoError(t, err) {
				assert.Equal(t, []gomcp.Content{&gomcp.TextContent{Text: "Error executing tool explode_n"}}, res.Content)
			}
		})
	}
	wg.Wait()
	logs.AssertCount(t, n, logcapture.Level(slog.LevelError))
	for i := range n {
		logs.AssertCount(t, 1, logcapture.Message(mcpgo.MsgToolPanic), logcapture.Attr(mcpgo.KeyPanic, fmt.Sprintf("kaboom %d", i)))
	}
}
