package gosdk_test

import (
	"context"
	"log/slog"
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

func nothingRaw(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }

func nothingPrompt(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return nil, nil
}

// github-mcp-server's completion handler returns this for an argument it
// does not complete.
func nothingComplete(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return nil, nil
}

// A handler that returns neither a result nor an error gets the answer of a
// crash, and one ERROR record saying so: go-sdk would send a null result or,
// at 2026-07-28, dereference it and end the process.
func TestGuardNilResult(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		send   adaptertest.Request
		want   sdktest.Answer
		method string
	}{
		{"raw tool", adaptertest.CallTool("nothing", nil), sdktest.Answer{IsError: true, Text: "Error executing tool nothing"}, "tools/call"},
		{"prompt", adaptertest.GetPrompt("nothing"), sdktest.Answer{Err: &jsonrpc.Error{Code: -32603, Message: "Error rendering prompt nothing"}}, "prompts/get"},
		{"completion", adaptertest.Complete(client.PromptReference("nothing"), "x"), sdktest.Answer{Err: &jsonrpc.Error{Code: -32603, Message: "Internal server error"}}, "completion/complete"},
	}
	sdktest.EachEra(t, func(t *testing.T, era adaptertest.Era) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				logs := logcapture.New(t)
				s := mcp.NewServer(&mcp.Implementation{Name: "nothing", Version: "v0"},
					&mcp.ServerOptions{Logger: logs.Logger(), CompletionHandler: nothingComplete})
				s.AddTool(&mcp.Tool{Name: "nothing", InputSchema: map[string]any{"type": "object"}}, nothingRaw)
				s.AddPrompt(&mcp.Prompt{Name: "nothing"}, nothingPrompt)
				s.AddReceivingMiddleware(gosdk.Guard(logs.Logger()))
				sv := sdktest.Serve(t, adapter.Server(s))
				t.Cleanup(func() { sv.AssertNoPanic(t) })
				cl := sv.Connect(t, era.Version)

				res, err := c.send(t.Context(), cl)
				if c.want.Err != nil {
					require.Error(t, err)
					assert.Equal(t, c.want.Err, sdktest.WireError(t, err))
				} else {
					require.NoError(t, err)
					assert.True(t, res.IsError)
					assert.Equal(t, c.want.Text, res.Text())
				}
				logs.RequireLogged(t, logcapture.Level(slog.LevelError), logcapture.Attr(guard.MethodKey, c.method),
					logcapture.Attr(guard.PanicKey, "the handler returned neither a result nor an error"))
				logs.AssertCount(t, 1, logcapture.AtLeast(slog.LevelWarn))
			})
		}
	})
}
