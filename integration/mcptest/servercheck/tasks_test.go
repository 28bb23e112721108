package servercheck_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// mcpGoTaskServer is an mcp-go v1.2.1 server with a tool that requires a
// task and one that may run as one.
func mcpGoTaskServer(watchful bool) *mcpgoserver.MCPServer {
	s := mcpgoserver.NewMCPServer("tasks", "v1", mcpgoserver.WithTaskCapabilities(true, true, true), mcpgoserver.WithToolCapabilities(false))
	s.AddTaskTool(mcpgo.NewTool("count", mcpgo.WithDescription("Count to n."), mcpgo.WithTaskSupport(mcpgo.TaskSupportRequired),
		mcpgo.WithNumber("n", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(3))),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CreateTaskResult, error) {
			n, ok := req.GetArguments()["n"].(float64)
			if !ok {
				return &mcpgo.CreateTaskResult{Content: []mcpgo.Content{mcpgo.NewTextContent("n must be a number")}, IsError: true}, nil
			}
			for range int(n) {
				time.Sleep(time.Millisecond)
			}
			return &mcpgo.CreateTaskResult{Content: []mcpgo.Content{mcpgo.NewTextContent(fmt.Sprintf("counted to %d", int(n)))}}, nil
		})
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithDescription("Echo text."), mcpgo.WithTaskSupport(mcpgo.TaskSupportOptional), mcpgo.WithString("text")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if watchful && req.Params.Task != nil {
				// Run as a task, it waits for its context alone: mcp-go
				// v1.2.1 cancels that once the tools/call is answered, so
				// the task ends cancelled however loaded the machine (a
				// timer racing the cancellation would let it complete).
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return mcpgo.NewToolResultText(req.GetString("text", "")), nil
		})
	return s
}

func runTaskChecks(t *testing.T, srv mcptest.Server, version string) map[string]servercheck.Result {
	t.Helper()
	results := map[string]servercheck.Result{}
	_ = servercheck.Run(t.Context(), inMemory(srv), &servercheck.Options{
		Version: version, Run: "tasks|tools", Skip: []string{"tools/invalid-arguments"}, Calls: 4,
		OnResult: func(r servercheck.Result) { results[r.Name] = r },
	})
	return results
}

func requireResult(t *testing.T, results map[string]servercheck.Result, name string, want servercheck.Status) servercheck.Result {
	t.Helper()
	r, ok := results[name]
	require.True(t, ok, "check %s did not run", name)
	assert.Equal(t, want, r.Status, "%s: %s\n%v", name, r.Detail, r.Transcript)
	return r
}

// mcp-go v1.2.1 serves tasks at 2025-11-25 only: checked era-neutrally, the
// main connection speaks 2026-07-28 and the tasks checks run on a
// 2025-11-25 connection of their own, saying so; the tool that requires a
// task cannot be called at 2026-07-28, which tools/calls says.
func TestTaskChecksMCPGo(t *testing.T) {
	t.Parallel()
	results := runTaskChecks(t, mcpgotest.Server(mcpGoTaskServer(false)), "")
	for _, name := range []string{"tasks/required/count", "tasks/optional/echo", "tasks/unknown-task", "tasks/cancel", "tasks/failed-result",
		"tasks/created", "tasks/result-blocks", "tasks/related-task", "tasks/list", "tasks/status-notifications"} {
		r := requireResult(t, results, name, servercheck.Pass)
		assert.Contains(t, r.Detail, "checked at 2025-11-25: at 2026-07-28 the server does not declare the tasks extension (io.modelcontextprotocol/tasks), and declares there the 2025-11-25 tasks capability, which 2026-07-28 removed", name)
	}
	assert.Contains(t, results["tasks/failed-result"].Detail, "ended completed with an isError result: n must be a number", "mcp-go completes a task whose tool failed")
	r := requireResult(t, results, "tools/calls/count", servercheck.Skip)
	assert.Equal(t, `tool "count" runs only as a task (execution.taskSupport "required", a 2025-11-25 field), and at 2026-07-28 the server does not declare the tasks extension (io.modelcontextprotocol/tasks), so no call can reach it; the tasks checks call it at 2025-11-25 if the server offers it`, r.Detail)

	// Pinned to 2025-11-25, the generated calls of count run as tasks.
	results = runTaskChecks(t, mcpgotest.Server(mcpGoTaskServer(false)), client.Version20251125)
	r = requireResult(t, results, "tools/calls/count", servercheck.Pass)
	assert.Contains(t, r.Detail, "succeeded")
	requireResult(t, results, "tasks/cancel", servercheck.Pass)

	// Pinned to 2026-07-28: no tasks there.
	results = runTaskChecks(t, mcpgotest.Server(mcpGoTaskServer(false)), client.Version20260728)
	for _, name := range []string{"tasks/required/count", "tasks/unknown-task", "tasks/cancel"} {
		r := requireResult(t, results, name, servercheck.Skip)
		assert.Equal(t, "at 2026-07-28 tasks are the io.modelcontextprotocol/tasks extension, which the server does not declare; it declares the 2025-11-25 tasks capability, which 2026-07-28 removed (check it at 2025-11-25)", r.Detail)
	}
}

// mcp-go v1.2.1 runs a tool that does not support tasks, called as one, as
// a plain call, where 2025-11-25 says it SHOULD refuse with -32601: a
// warning.
func TestTaskChecksMCPGoRunsAForbiddenTool(t *testing.T) {
	t.Parallel()
	s := mcpGoTaskServer(false)
	s.AddTool(mcpgo.NewTool("plain", mcpgo.WithDescription("A plain tool.")), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("plain"), nil
	})
	results := runTaskChecks(t, mcpgotest.Server(s), client.Version20251125)
	r := requireResult(t, results, "tasks/forbidden", servercheck.Warn)
	assert.Contains(t, r.Detail, `called tool "plain", whose execution.taskSupport is "forbidden" (or absent), as a task (params.task), with arguments {}; the server ran it as a plain call`)
}

// mcp-go v1.2.1 runs a task under the context of the tools/call that made
// it: a handler that watches its context is cancelled once the call is
// answered, which tasks/optional reports.
func TestTaskChecksMCPGoCancelsWatchfulTasks(t *testing.T) {
	t.Parallel()
	results := runTaskChecks(t, mcpgotest.Server(mcpGoTaskServer(true)), client.Version20251125)
	r := requireResult(t, results, "tasks/optional/echo", servercheck.Fail)
	assert.Contains(t, r.Detail, `the task was cancelled ("context canceled"), though the client never asked`)
	assert.Contains(t, r.Detail, "mcp-go v1.2.1 runs a task under the context of the tools/call that made it")
}

// go-sdk has no tasks: every tasks check skips, naming why.
func TestTaskChecksGoSDK(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "note", Description: "Take a note."}, func(context.Context, *mcp.CallToolRequest, noteIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	results := runTaskChecks(t, gosdktest.Server(s), "")
	for _, name := range []string{"tasks/unknown-task", "tasks/cancel", "tasks/failed-result", "tasks/status-notifications"} {
		r := requireResult(t, results, name, servercheck.Skip)
		assert.Equal(t, "the server declares neither the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks) nor, at 2025-11-25, the tasks capability for tools/call (capabilities.tasks.requests.tools.call)", r.Detail)
	}
	// At 2025-11-25 it ignores a task param, as a server that declares no
	// tasks must.
	r := requireResult(t, results, "tasks/param-ignored", servercheck.Pass)
	assert.Contains(t, r.Detail, `tool "note": the task-augmented call was answered as a plain one`)
	results = runTaskChecks(t, gosdktest.Server(s), client.Version20251125)
	r = requireResult(t, results, "tasks/unknown-task", servercheck.Skip)
	assert.Equal(t, "the server does not declare tasks for tools/call (capabilities.tasks.requests.tools.call, 2025-11-25)", r.Detail)
	requireResult(t, results, "tasks/param-ignored", servercheck.Pass)
}
