package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest/gosdk"
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
func guarded(logs *logcapture.Recorder, opts ...gosdk.GuardOption) *mcp.Server {
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

// guardedSession serves a guarded server and connects the go-sdk client.
func guardedSession(t *testing.T, version string, opts ...gosdk.GuardOption) (*mcp.ClientSession, *logcapture.Recorder, *served) {
	t.Helper()
	logs := logcapture.New(t)
	sv := serve(t, gosdk.Server(guarded(logs, opts...)))
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
	return cs, logs, sv
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
		for _, tool := range []struct{ name, fn string }{
			{"explode", "gosdk_test.explode("},
			{"explode_raw", "gosdk_test.explodeRaw("},
		} {
			t.Run(era.name+"/"+tool.name, func(t *testing.T) {
				t.Parallel()
				cs, logs, sv := guardedSession(t, era.version)

				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool.name, Arguments: map[string]any{}})
				require.NoError(t, err, "a crashed tool is a result, not a protocol error")
				assert.True(t, res.IsError)
				assert.Equal(t, []mcp.Content{&mcp.TextContent{Text: "Error executing tool " + tool.name}}, res.Content)
				assert.Nil(t, res.StructuredContent)
				assert.NotContains(t, sv.client.Transcript().String(), "kaboom", "the panic text reached the client")

				rec := logs.RequireLogged(t, logcapture.Level(slog.LevelError), logcapture.Message(gosdk.MsgToolPanic),
					logcapture.Attr(gosdk.KeyMethod, "tools/call"), logcapture.Attr(gosdk.KeyTool, tool.name),
					logcapture.Attr(gosdk.KeyPanic, "kaboom"))
				assert.Contains(t, rec.Stack(), tool.fn, "the stack names the panicking function")
				logs.AssertCount(t, 1, logcapture.AtLeast(slog.LevelWarn))
			})
		}
	}
}

func TestGuardResourcePanic(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		for _, res := range []struct{ uri, fn string }{
			{"file:///crash", "gosdk_test.readCrash("},
			{"books://Dune", "gosdk_test.readBook("},
		} {
			t.Run(era.name+"/"+res.uri, func(t *testing.T) {
				t.Parallel()
				cs, logs, sv := guardedSession(t, era.version)

				_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: res.uri})
				we := wireError(t, err)
				assert.Equal(t, int64(-32603), we.Code)
				assert.Equal(t, "Error reading resource "+res.uri, we.Message)
				assert.JSONEq(t, fmt.Sprintf(`{"uri":%q}`, res.uri), string(we.Data))
				tr := sv.client.Transcript().String()
				assert.NotContains(t, tr, "kaboom")
				assert.NotContains(t, tr, "nil map")

				rec := logs.RequireLogged(t, logcapture.Level(slog.LevelError), logcapture.Message(gosdk.MsgResourcePanic),
					logcapture.Attr(gosdk.KeyMethod, "resources/read"), logcapture.Attr(gosdk.KeyURI, res.uri),
					logcapture.HasAttr(gosdk.KeyPanic))
				assert.Contains(t, rec.Stack(), res.fn)
				logs.AssertCount(t, 1, logcapture.AtLeast(slog.LevelWarn))
			})
		}
	}
}

func TestGuardResourcePanicValueIsKept(t *testing.T) {
	t.Parallel()
	cs, logs, _ := guardedSession(t, "")
	_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///crash"})
	require.Error(t, err)
	rec := logs.RequireLogged(t, logcapture.Message(gosdk.MsgResourcePanic))
	perr, ok := rec.Value(gosdk.KeyPanic).(error)
	require.True(t, ok, "panic value %T, want the error given to panic", rec.Value(gosdk.KeyPanic))
	assert.EqualError(t, perr, "resource kaboom")
}

func TestGuardPromptPanic(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			cs, logs, sv := guardedSession(t, era.version)

			_, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "greet"})
			we := wireError(t, err)
			assert.Equal(t, int64(-32603), we.Code)
			assert.Equal(t, "Error rendering prompt greet", we.Message)
			assert.NotContains(t, sv.client.Transcript().String(), "kaboom")

			rec := logs.RequireLogged(t, logcapture.Level(slog.LevelError), logcapture.Message(gosdk.MsgPromptPanic),
				logcapture.Attr(gosdk.KeyMethod, "prompts/get"), logcapture.Attr(gosdk.KeyPrompt, "greet"),
				logcapture.Attr(gosdk.KeyPanic, "prompt kaboom"))
			assert.Contains(t, rec.Stack(), "gosdk_test.renderGreet(")
			logs.AssertCount(t, 1, logcapture.AtLeast(slog.LevelWarn))
		})
	}
}

func TestGuardOtherMethodPanic(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			cs, logs, sv := guardedSession(t, era.version)

			_, err := cs.Complete(t.Context(), &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
				Argument: mcp.CompleteParamsArgument{Name: "name", Value: "A"},
			})
			we := wireError(t, err)
			assert.Equal(t, int64(-32603), we.Code)
			assert.Equal(t, "Internal server error", we.Message)
			assert.NotContains(t, sv.client.Transcript().String(), "kaboom")

			rec := logs.RequireLogged(t, logcapture.Level(slog.LevelError), logcapture.Message(gosdk.MsgPanic),
				logcapture.Attr(gosdk.KeyMethod, "completion/complete"), logcapture.Attr(gosdk.KeyPanic, "completion kaboom"))
			assert.Contains(t, rec.Stack(), "gosdk_test.completeArg(")
			for _, key := range []string{gosdk.KeyTool, gosdk.KeyURI, gosdk.KeyPrompt} {
				_, ok := rec.Lookup(key)
				assert.False(t, ok, "a record for another method has %s", key)
			}
			logs.AssertCount(t, 1, logcapture.AtLeast(slog.LevelWarn))
		})
	}
}

func TestGuardToolErrorResultIsInfo(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			cs, logs, _ := guardedSession(t, era.version)

			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_author", Arguments: map[string]any{"title": "Nothing"}})
			require.NoError(t, err)
			assert.True(t, res.IsError)
			assert.Equal(t, `No book titled "Nothing" in the catalog.`, text(t, res))

			logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(gosdk.MsgToolError),
				logcapture.Attr(gosdk.KeyMethod, "tools/call"), logcapture.Attr(gosdk.KeyTool, "get_author"),
				logcapture.Attr(gosdk.KeyError, `No book titled "Nothing" in the catalog.`))
			logs.AssertNone(t, logcapture.HasAttr(gosdk.KeyStack))
			logs.AssertNoWarnings(t)

			// A successful call logs nothing from the guard.
			logs.Clear()
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_author", Arguments: map[string]any{"title": "Dune"}})
			require.NoError(t, err)
			assert.False(t, res.IsError)
			logs.AssertNone(t, logcapture.Any(logcapture.Message(gosdk.MsgToolError), logcapture.Message(gosdk.MsgRequestFailed)))
		})
	}
}

func TestGuardProtocolErrorsPassThrough(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			cs, logs, _ := guardedSession(t, era.version)

			_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "protocol", Arguments: map[string]any{}})
			we := wireError(t, err)
			assert.Equal(t, &jsonrpc.Error{Code: -32001, Message: "custom", Data: json.RawMessage(`{"k":1}`)}, we)
			logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(gosdk.MsgRequestFailed),
				logcapture.Attr(gosdk.KeyMethod, "tools/call"), logcapture.Attr(gosdk.KeyTool, "protocol"),
				logcapture.Attr(gosdk.KeyCode, -32001), logcapture.Attr(gosdk.KeyError, "custom"))

			// The SDK's own protocol errors pass through too.
			_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
			assert.Equal(t, int64(-32602), wireError(t, err).Code)
			_, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///missing"})
			we = wireError(t, err)
			assert.Equal(t, int64(-32602), we.Code)
			assert.JSONEq(t, `{"uri":"file:///missing"}`, string(we.Data))
			logs.AssertLogged(t, logcapture.Message(gosdk.MsgRequestFailed),
				logcapture.Attr(gosdk.KeyURI, "file:///missing"), logcapture.Attr(gosdk.KeyCode, -32602))

			// A raw handler's plain error keeps the SDK's code 0.
			_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "raw_fail", Arguments: map[string]any{}})
			we = wireError(t, err)
			assert.Equal(t, int64(0), we.Code)
			assert.Equal(t, "raw boom", we.Message)
			logs.AssertLogged(t, logcapture.Message(gosdk.MsgRequestFailed),
				logcapture.Attr(gosdk.KeyTool, "raw_fail"), logcapture.Attr(gosdk.KeyCode, 0))

			logs.AssertCount(t, 4, logcapture.Message(gosdk.MsgRequestFailed))
			logs.AssertNone(t, logcapture.HasAttr(gosdk.KeyStack))
			logs.AssertNoWarnings(t)
		})
	}
}

func TestGuardToolErrorsAsResults(t *testing.T) {
	t.Parallel()
	cs, logs, _ := guardedSession(t, "", gosdk.ToolErrorsAsResults())

	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "raw_fail", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, "raw boom", text(t, res))
	logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(gosdk.MsgToolError),
		logcapture.Attr(gosdk.KeyTool, "raw_fail"), logcapture.Attr(gosdk.KeyError, "raw boom"))

	// A JSON-RPC error is still a protocol error.
	_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "protocol", Arguments: map[string]any{}})
	assert.Equal(t, int64(-32001), wireError(t, err).Code)
	logs.AssertCount(t, 1, logcapture.Message(gosdk.MsgToolError))
	logs.AssertNoWarnings(t)
}

func TestGuardKeepsServingAfterPanic(t *testing.T) {
	t.Parallel()
	cs, logs, _ := guardedSession(t, "")
	for range 3 {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "explode", Arguments: map[string]any{}})
		require.NoError(t, err)
		assert.True(t, res.IsError)

		res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_author", Arguments: map[string]any{"title": "Dune"}})
		require.NoError(t, err)
		assert.Equal(t, "Frank Herbert", text(t, res))
	}
	logs.AssertCount(t, 3, logcapture.Message(gosdk.MsgToolPanic))
}

func TestGuardConcurrentPanicsAreEachReportedOnce(t *testing.T) {
	t.Parallel()
	cs, logs, _ := guardedSession(t, "")
	const n = 32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "explode_n", Arguments: map[string]any{"n": i}})
			if assert.NoError(t, err) {
				assert.Equal(t, []mcp.Content{&mcp.TextContent{Text: "Error executing tool explode_n"}}, res.Content)
			}
		})
	}
	wg.Wait()
	logs.AssertCount(t, n, logcapture.Level(slog.LevelError))
	for i := range n {
		logs.AssertCount(t, 1, logcapture.Message(gosdk.MsgToolPanic), logcapture.Attr(gosdk.KeyPanic, fmt.Sprintf("kaboom %d", i)))
	}
}
