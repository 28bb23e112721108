package mcptest

import (
	"context"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
)

func mcpgoServer(opts ...server.ServerOption) *server.MCPServer {
	s := server.NewMCPServer("probe", "v0", opts...)
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text", mcp.Required())), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	s.AddTool(mcp.NewTool("boom"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		explode()
		return nil, nil
	})
	return s
}

func TestConnectCallsARealMCPGoServer(t *testing.T) {
	t.Parallel()
	EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		c := Connect(t, mcpgotest.Server(mcpgoServer()), WithProtocolVersion(version))
		res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": version})
		require.NoError(t, err)
		AssertText(t, res, version)

		_, err = c.CallTool(t.Context(), "nope", nil)
		AssertProtocolError(t, err, client.CodeInvalidParams)
	})
}

func TestMCPGoPanicWithoutRecoveryFailsTheTest(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, mcpgotest.Server(mcpgoServer()))
		_, err := c.CallTool(tb.Context(), "boom", nil)
		AssertProtocolError(tb, err, client.CodeInternalError)
	})
	f.expectFailure(t, `the server panicked in tools/call "boom": kaboom`, "mcpgo.Guard(logger)(srv)", "mcptest.explode")
}

// mcp-go's own WithRecovery is recovery of the server's own: the harness
// stays out, and the client sees what mcp-go sends.
func TestMCPGoOwnRecoveryIsLeftAlone(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, mcpgotest.Server(mcpgoServer(server.WithRecovery())))
		_, err := c.CallTool(tb.Context(), "boom", nil)
		if e := RequireProtocolError(tb, err, client.CodeInternalError); e.Message != "panic recovered in boom tool handler: kaboom" {
			tb.Errorf("unexpected message %q", e.Message)
		}
	})
	f.expectPass(t)
}

// Both SDKs side by side, many connections at once.
func TestBothSDKsInParallel(t *testing.T) {
	t.Parallel()
	// One server per SDK, shared by every connection.
	servers := map[string]Server{"gosdk": goSDKEcho(), "mcpgo": mcpgotest.Server(mcpgoServer())}
	for i := range 50 {
		for name, srv := range servers {
			t.Run(fmt.Sprintf("%s/%d", name, i), func(t *testing.T) {
				t.Parallel()
				c := Connect(t, srv)
				want := fmt.Sprintf("%s %d", name, i)
				res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": want})
				require.NoError(t, err)
				AssertText(t, res, want)
			})
		}
	}
}
