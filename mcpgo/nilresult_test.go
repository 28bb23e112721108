package mcpgo_test

import (
	"context"
	"log/slog"
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
)

func nothingTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }

func nothingPrompt(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return nil, nil
}

type nothingCompletions struct{}

func (nothingCompletions) CompletePromptArgument(context.Context, string, mcp.CompleteArgument, mcp.CompleteContext) (*mcp.Completion, error) {
	return nil, nil
}

func (nothingCompletions) CompleteResourceArgument(context.Context, string, mcp.CompleteArgument, mcp.CompleteContext) (*mcp.Completion, error) {
	return nil, nil
}

// A handler that returns neither a result nor an error gets the answer of a
// crash, and one ERROR record saying so: mcp-go would send a null result,
// which is no result at all.
func TestGuardNilResult(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		send   adaptertest.Request
		want   sdktest.Answer
		method string
	}{
		{"tool", adaptertest.CallTool("nothing", nil), sdktest.Answer{IsError: true, Text: "Error executing tool nothing"}, "tools/call"},
		{"prompt", adaptertest.GetPrompt("nothing"), sdktest.Answer{Err: &client.Error{Code: -32603, Message: "Error rendering prompt nothing"}}, "prompts/get"},
		{"completion", adaptertest.Complete(client.PromptReference("nothing"), "x"), sdktest.Answer{Err: &client.Error{Code: -32603, Message: "Internal server error"}}, "completion/complete"},
	}
	sdktest.EachEra(t, func(t *testing.T, era adaptertest.Era) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				logs := logcapture.New(t)
				l := logs.Logger()
				s := server.NewMCPServer("nothing", "v0", append([]server.ServerOption{mcpgo.Guard(l)}, append(sdkLogger(l),
					server.WithCompletions(),
					server.WithPromptCompletionProvider(mcpgo.GuardPromptCompletions(l, nothingCompletions{})))...)...)
				s.AddTool(mcp.NewTool("nothing"), nothingTool)
				s.AddPrompt(mcp.NewPrompt("nothing"), nothingPrompt)
				cl, _ := guardedSession(t, s, era.Version)

				res, err := c.send(t.Context(), cl)
				if c.want.Err != nil {
					require.Error(t, err)
					got := adaptertest.WireError(t, err)
					assert.Equal(t, c.want.Err.Code, got.Code)
					assert.Equal(t, c.want.Err.Message, got.Message)
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
