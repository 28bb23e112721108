package client_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	. "github.com/mcptestkit/mcptestkit/client"

	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
)

// newTaskServer is an mcp-go v1.2.1 server with task tools:
//
//	count      required, a task tool: counts to n, a step every ms
//	           milliseconds, without looking at its context; n < 0 fails
//	watchful   required, a task tool that waits ms on its context
//	echo       optional, a plain tool: echoes text, isError when fail
//	plain      forbidden (no execution): a plain tool
func newTaskServer() *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("tasks", "v1", mcpserver.WithTaskCapabilities(true, true, true), mcpserver.WithToolCapabilities(false))
	s.AddTaskTool(mcp.NewTool("count", mcp.WithTaskSupport(mcp.TaskSupportRequired),
		mcp.WithNumber("n", mcp.Required()), mcp.WithNumber("ms")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
			n := req.GetInt("n", 0)
			if n < 0 {
				return nil, fmt.Errorf("cannot count to %d", n)
			}
			for range n {
				time.Sleep(time.Duration(req.GetInt("ms", 0)) * time.Millisecond)
			}
			return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent(fmt.Sprintf("counted to %d", n))}}, nil
		})
	s.AddTaskTool(mcp.NewTool("watchful", mcp.WithTaskSupport(mcp.TaskSupportRequired), mcp.WithNumber("ms")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(req.GetInt("ms", 0)) * time.Millisecond):
			}
			return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent("watched")}}, nil
		})
	s.AddTool(mcp.NewTool("echo", mcp.WithTaskSupport(mcp.TaskSupportOptional), mcp.WithString("text"), mcp.WithBoolean("fail")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.GetBool("fail", false) {
				return mcp.NewToolResultError("echo failed: " + req.GetString("text", "")), nil
			}
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	s.AddTool(mcp.NewTool("plain"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("plain"), nil
	})
	return s
}

// taskLog records the task states a client saw.
type taskLog struct {
	mu       sync.Mutex
	updates  []TaskStatus
	notified []TaskStatus
}

func (l *taskLog) update(t *Task) {
	l.mu.Lock()
	l.updates = append(l.updates, t.Status)
	l.mu.Unlock()
}
func (l *taskLog) notify(t *Task) {
	l.mu.Lock()
	l.notified = append(l.notified, t.Status)
	l.mu.Unlock()
}
func (l *taskLog) get() (updates, notified []TaskStatus) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.updates), slices.Clone(l.notified)
}

// At 2025-11-25 mcp-go serves the core tasks: every method, with status
// notifications, and the error contract holds.
func TestMCPGoTasks20251125(t *testing.T) {
	t.Parallel()
	var log taskLog
	c, _ := connect(t, mcpgotest.Server(newTaskServer()), &Options{ProtocolVersion: Version20251125, OnTaskStatus: log.notify, Timeout: 10 * time.Second})
	require.True(t, c.SupportsTasks())
	ctx := t.Context()
	tools := map[string]string{}
	for tool, err := range c.Tools(ctx) {
		require.NoError(t, err)
		tools[tool.Name] = tool.TaskSupport()
	}
	assert.Equal(t, map[string]string{"count": "required", "watchful": "required", "echo": "optional", "plain": "forbidden"}, tools)

	t.Run("call and wait", func(t *testing.T) {
		res, err := c.CallTool(ctx, "count", map[string]any{"n": 3, "ms": 5}, WithTask(time.Minute), WithTaskUpdates(log.update))
		require.NoError(t, err)
		assert.Equal(t, "counted to 3", res.Text())
		updates, notified := log.get()
		assert.Equal(t, []TaskStatus{TaskWorking, TaskCompleted}, updates)
		assert.Contains(t, notified, TaskCompleted, "mcp-go sends notifications/tasks/status when a task ends")
	})

	t.Run("required refuses a plain call", func(t *testing.T) {
		_, err := c.CallTool(ctx, "count", map[string]any{"n": 1})
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, CodeMethodNotFound, e.Code, "the spec's -32601 (%s)", e.Message)
	})

	t.Run("optional works both ways", func(t *testing.T) {
		res, err := c.CallTool(ctx, "echo", map[string]any{"text": "hi"})
		require.NoError(t, err)
		assert.Equal(t, "hi", res.Text())
		task, err := c.CallToolAsTask(ctx, "echo", map[string]any{"text": "hi"})
		require.NoError(t, err)
		require.NotEmpty(t, task.ID, "a task was made")
		res, err = c.WaitTask(ctx, task.ID)
		require.NoError(t, err)
		assert.Equal(t, "hi", res.Text())
	})

	t.Run("a plain tool runs at once", func(t *testing.T) {
		task, err := c.CallToolAsTask(ctx, "plain", nil)
		require.NoError(t, err)
		assert.Empty(t, task.ID, "mcp-go ignores the task param of a tool without taskSupport")
		assert.Equal(t, "plain", task.Result.Text())
	})

	t.Run("methods", func(t *testing.T) {
		task, err := c.CallToolAsTask(ctx, "count", map[string]any{"n": 2, "ms": 1}, WithTask(time.Minute))
		require.NoError(t, err)
		assert.Equal(t, TaskWorking, task.Status)
		assert.Equal(t, time.Minute, task.TTL)
		got, err := c.GetTask(ctx, task.ID)
		require.NoError(t, err)
		assert.Equal(t, task.ID, got.ID)
		var ids []string
		for tk, err := range c.Tasks(ctx) {
			require.NoError(t, err)
			ids = append(ids, tk.ID)
		}
		assert.Contains(t, ids, task.ID)
		res, err := c.TaskResult(ctx, task.ID) // blocks until the task ends
		require.NoError(t, err)
		assert.Equal(t, "counted to 2", res.Text())
		assert.Equal(t, map[string]any{"taskId": task.ID}, res.Meta["io.modelcontextprotocol/related-task"])
		_, err = c.GetTask(ctx, "no-such-task")
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, CodeInvalidParams, e.Code)
	})

	t.Run("cancel", func(t *testing.T) {
		task, err := c.CallToolAsTask(ctx, "count", map[string]any{"n": 50, "ms": 2})
		require.NoError(t, err)
		cancelled, err := c.CancelTask(ctx, task.ID)
		require.NoError(t, err)
		assert.Equal(t, TaskCancelled, cancelled.Status)
		_, err = c.WaitTask(ctx, task.ID)
		require.ErrorIs(t, err, ErrTaskCancelled)
		_, err = c.CancelTask(ctx, task.ID)
		var e *Error
		require.ErrorAs(t, err, &e, "a terminal task cannot be cancelled")
		assert.Equal(t, CodeInvalidParams, e.Code)
	})

	t.Run("failures keep the contract", func(t *testing.T) {
		// A tool error is a result (mcp-go completes the task; 2025-11-25
		// would also allow failed).
		var log taskLog
		res, err := c.CallTool(ctx, "echo", map[string]any{"text": "x", "fail": true}, WithTask(0), WithTaskUpdates(log.update))
		require.NoError(t, err)
		assert.True(t, res.IsError)
		assert.Equal(t, "echo failed: x", res.Text())
		updates, _ := log.get()
		assert.Equal(t, TaskCompleted, updates[len(updates)-1])
		// A Go error from a task handler fails the task: tasks/result is
		// mcp-go's -32603, as for a plain call.
		_, err = c.CallTool(ctx, "count", map[string]any{"n": -1}, WithTask(0))
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, CodeInternalError, e.Code)
		assert.Equal(t, "tasks/result", e.Method)
		assert.Equal(t, "cannot count to -1", e.Message)
	})

	// mcp-go v1.2.1 runs a task under the context of the tools/call that
	// created it, which ends as soon as the call is answered: a task
	// handler that watches its context is cancelled at once.
	t.Run("mcp-go cancels a watchful task at once", func(t *testing.T) {
		_, err := c.CallTool(ctx, "watchful", map[string]any{"ms": 50}, WithTask(0))
		var ce *TaskCancelledError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, "context canceled", ce.Task.StatusMessage)
	})
}

// At 2026-07-28 mcp-go v1.2.1 does not serve the tasks extension: it
// declares the 2025-11-25 tasks capability (which 2026-07-28 removed), not
// io.modelcontextprotocol/tasks, makes a task only of a request carrying the
// 2025-11-25 "task" param (which the extension tells servers to ignore), and
// answers tasks/get in the 2025-11-25 form. A client speaking the extension
// therefore gets no task from it: an optional tool runs at once, a required
// one is refused.
func TestMCPGoTasks20260728(t *testing.T) {
	t.Parallel()
	c, _ := connect(t, mcpgotest.Server(newTaskServer()), &Options{ProtocolVersion: Version20260728, Timeout: 10 * time.Second})
	ctx := t.Context()
	assert.False(t, c.SupportsTasks(), "no io.modelcontextprotocol/tasks extension")
	assert.NotEmpty(t, c.ServerCapabilities().Tasks, "the 2025-11-25 capability, declared at 2026-07-28 too")

	task, err := c.CallToolAsTask(ctx, "echo", map[string]any{"text": "hi"})
	require.NoError(t, err)
	assert.Empty(t, task.ID, "no task: the call ran at once")
	assert.Equal(t, "hi", task.Result.Text())

	_, err = c.CallTool(ctx, "count", map[string]any{"n": 1}, WithTask(0))
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeMethodNotFound, e.Code)
	assert.Contains(t, e.Message, "requires task augmentation")

	_, err = c.GetTask(ctx, "no-such-task")
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeInvalidParams, e.Code)
	for _, method := range []string{"tasks/result", "tasks/list"} {
		_, err = c.Call(ctx, method, map[string]any{"taskId": "x"})
		require.ErrorAs(t, err, &e, method)
		assert.Equal(t, CodeMethodNotFound, e.Code, "%s is not in the extension", method)
	}
}
