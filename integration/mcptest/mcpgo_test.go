package mcptest_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// mcp-go servers, through their adapter mcpgotest.Server, meet the harness.

// newMCPGoServer is an mcp-go server with an echo tool and a tool, boom,
// that panics.
func newMCPGoServer(opts ...server.ServerOption) *server.MCPServer {
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

// mcpgoServer is newMCPGoServer behind its adapter.
func mcpgoServer(opts ...server.ServerOption) mcptest.Server {
	return mcpgotest.Server(newMCPGoServer(opts...))
}

// mcpgoHTTP is newMCPGoServer behind mcp-go's streamable HTTP handler.
func mcpgoHTTP() http.Handler { return server.NewStreamableHTTPServer(newMCPGoServer()) }

func TestConnectCallsARealMCPGoServer(t *testing.T) {
	t.Parallel()
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		c := mcptest.Connect(t, mcpgoServer(), mcptest.WithProtocolVersion(version))
		echoes(t, c, version)

		_, err := c.CallTool(t.Context(), "nope", nil)
		mcptest.Assert(t).ProtocolError(err, client.CodeInvalidParams)
	})
}

func TestMCPGoPanicWithoutRecoveryFailsTheTest(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := mcptest.Connect(tb, mcpgoServer())
		_, err := c.CallTool(tb.Context(), "boom", nil)
		mcptest.Assert(tb).ProtocolError(err, client.CodeInternalError)
	})
	f.ExpectFailure(t, `the server panicked in tools/call "boom": kaboom`, "mcpgo.Guard(logger)(srv)", "mcptest_test.explode")
}

// mcp-go's own WithRecovery is recovery of the server's own: the harness
// stays out, and the client sees what mcp-go sends.
func TestMCPGoOwnRecoveryIsLeftAlone(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := mcptest.Connect(tb, mcpgoServer(server.WithRecovery()))
		_, err := c.CallTool(tb.Context(), "boom", nil)
		if e := mcptest.Require(tb).ProtocolError(err, client.CodeInternalError); e.Message != "panic recovered in boom tool handler: kaboom" {
			tb.Errorf("unexpected message %q", e.Message)
		}
	})
	f.ExpectPass(t)
}

// Both SDKs side by side, many connections at once, each with its own leak
// check: none may see another's goroutines.
func TestBothSDKsInParallel(t *testing.T) {
	t.Parallel()
	// One server per SDK, shared by every connection.
	servers := map[string]mcptest.Server{"gosdk": gosdktest.Server(probeServer(nil)), "mcpgo": mcpgoServer()}
	for i := range 50 {
		for name, srv := range servers {
			t.Run(fmt.Sprintf("%s/%d", name, i), func(t *testing.T) {
				t.Parallel()
				c := mcptest.Connect(t, srv)
				want := fmt.Sprintf("%s %d", name, i)
				res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": want})
				require.NoError(t, err)
				mcptest.Assert(t).Text(res, want)
			})
		}
	}
}

// mcp-go serves the tasks of 2025-11-25 only: a test that pins no version
// speaks 2026-07-28 to it and gets no task. The failure says why and what
// to pin, both where the test asks through the client and through the
// harness's Task.
func TestMCPGoTasksAt20260728SayWhatToPin(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("reports", "v0", server.WithTaskCapabilities(true, true, true), server.WithToolCapabilities(false))
	s.AddTaskTool(mcp.NewTool("render", mcp.WithTaskSupport(mcp.TaskSupportRequired)), func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent("rendered")}}, nil
	})
	s.AddTool(mcp.NewTool("count", mcp.WithTaskSupport(mcp.TaskSupportOptional)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("3"), nil
	})
	const why = "the server declares the tasks of 2025-11-25 (capabilities.tasks), not the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks), " +
		"so at 2026-07-28 it runs no tool as a task: to test its tasks, connect with mcptest.WithProtocolVersion(client.Version20251125)"
	runFake(t, func(tb testing.TB) {
		c := mcptest.Connect(tb, mcpgotest.Server(s))
		_, err := c.CallTool(tb.Context(), "render", nil, client.WithTask(time.Minute))
		require.NoError(tb, err)
	}).ExpectFailure(t, `tools/call "render": error -32601`, `tools/call "render" (id 2, message #3) asked for a task at protocol version 2026-07-28, but `+why)

	runFake(t, func(tb testing.TB) {
		mcptest.Assert(tb).Task(mcptest.Connect(tb, mcpgotest.Server(s)), "render", nil)
	}).ExpectFailure(t, `mcptest: calling tool "render" as a task failed: tools/call "render": error -32601`, "\n("+why+")")
	runFake(t, func(tb testing.TB) {
		mcptest.Assert(tb).Task(mcptest.Connect(tb, mcpgotest.Server(s)), "count", nil)
	}).ExpectFailure(t, `mcptest: expected tool "count" to run as a task, the server answered at once instead`, "\n("+why+")")
}
