package tasks_test

import (
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/examples/tasks"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// mcp-go keeps a task for its TTL on a goroutine of its own, which outlives
// the test that made the task by design.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/mark3labs/mcp-go/server.(*MCPServer).scheduleTaskCleanup"))
}

// connect serves the Reports at 2025-11-25, where mcp-go v1.2.1 has tasks.
func connect(t *testing.T, opts ...mcptest.Option) (*client.Client, *logcapture.Recorder) {
	logs := logcapture.New(t)
	opts = append([]mcptest.Option{mcptest.WithProtocolVersion(client.Version20251125)}, opts...)
	return mcptest.Connect(t, mcpgotest.Server(tasks.New(logs.Logger())), opts...), logs
}

// The way to test a task tool: start it as a task, wait for it, check the
// result and the statuses it went through.
func TestRenderReport(t *testing.T) {
	t.Parallel()
	c, logs := connect(t)

	task := mcptest.Require(t).Task(c, "render_report", map[string]any{"title": "Q3", "sections": 2})
	res, err := task.Wait(t.Context())
	require.NoError(t, err)
	mcptest.Assert(t).Text(res, `Report "Q3": 2 sections.`)
	mcptest.Assert(t).TaskStatuses(task, client.TaskWorking, client.TaskCompleted)
	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
}

// Or in one call: client.WithTask runs the call as a task and waits for it.
func TestRenderReportInOneCall(t *testing.T) {
	t.Parallel()
	c, _ := connect(t)

	res, err := c.CallTool(t.Context(), "render_report", map[string]any{"title": "Q3"}, client.WithTask(time.Minute))
	require.NoError(t, err)
	mcptest.Assert(t).Text(res, `Report "Q3": 3 sections.`)
}

// A tool that requires a task refuses a plain call with -32601.
func TestRenderReportNeedsATask(t *testing.T) {
	t.Parallel()
	c, _ := connect(t)

	_, err := c.CallTool(t.Context(), "render_report", map[string]any{"title": "Q3"})
	e := mcptest.Require(t).ProtocolError(err, client.CodeMethodNotFound)
	assert.Equal(t, "tool 'render_report' requires task augmentation", e.Message)
}

// A task keeps the tool's error contract: a bad argument is an isError
// result the model reads, through tasks/result.
func TestRenderReportWithoutTitle(t *testing.T) {
	t.Parallel()
	c, logs := connect(t)

	task := mcptest.Require(t).Task(c, "render_report", map[string]any{"title": " "})
	res, err := task.Wait(t.Context())
	require.NoError(t, err)
	mcptest.Assert(t).ToolError(res, "A report needs a title.")
	mcptest.Assert(t).TaskStatuses(task, client.TaskWorking, client.TaskCompleted) // mcp-go completes it
	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
}

// An optional tool runs either way, with the same answer.
func TestWordCountBothWays(t *testing.T) {
	t.Parallel()
	c, _ := connect(t)

	res, err := c.CallTool(t.Context(), "word_count", map[string]any{"text": "to be or not"})
	require.NoError(t, err)
	mcptest.Assert(t).Text(res, "4 words")

	task := mcptest.Require(t).Task(c, "word_count", map[string]any{"text": "to be or not"})
	res, err = task.Wait(t.Context())
	require.NoError(t, err)
	mcptest.Assert(t).Text(res, "4 words")
}

// A cancelled task ends cancelled, and waiting for it says so.
func TestCancelReport(t *testing.T) {
	t.Parallel()
	c, _ := connect(t)

	task := mcptest.Require(t).Task(c, "render_report", map[string]any{"title": "Q3", "sections": 5})
	cancelled, err := c.CancelTask(t.Context(), task.ID)
	require.NoError(t, err)
	assert.Equal(t, client.TaskCancelled, cancelled.Status)
	_, err = task.Wait(t.Context())
	require.ErrorIs(t, err, client.ErrTaskCancelled)
	mcptest.Assert(t).TaskStatuses(task, client.TaskWorking, client.TaskCancelled)

	// An ended task cannot be cancelled again.
	_, err = c.CancelTask(t.Context(), task.ID)
	mcptest.Assert(t).ProtocolError(err, client.CodeInvalidParams)
}

// The server keeps the tasks of the connection: tasks/list pages through
// them, tasks/get reports each.
func TestListReports(t *testing.T) {
	t.Parallel()
	c, _ := connect(t)

	first := mcptest.Require(t).Task(c, "word_count", map[string]any{"text": "one"})
	second := mcptest.Require(t).Task(c, "word_count", map[string]any{"text": "two"})
	for _, task := range []*mcptest.Task{first, second} {
		_, err := task.Wait(t.Context())
		require.NoError(t, err)
	}
	var ids []string
	for task, err := range c.Tasks(t.Context()) {
		require.NoError(t, err)
		ids = append(ids, task.ID)
	}
	assert.ElementsMatch(t, []string{first.ID, second.ID}, ids)
	got, err := c.GetTask(t.Context(), first.ID)
	require.NoError(t, err)
	assert.Equal(t, client.TaskCompleted, got.Status)
}

// Inside synctest.Test the task runs on the bubble's fake clock: three
// sections of 100 ms take exactly 300 ms, at once; the client wakes on the
// server's status notification, not on its next poll (mcp-go suggests no
// poll interval, and the client's default is 500 ms).
func TestRenderReportOnTheFakeClock(t *testing.T) {
	stop := time.AfterFunc(time.Minute, func() { panic(t.Name() + ": the synctest bubble is stuck") })
	defer stop.Stop()
	synctest.Test(t, func(t *testing.T) {
		c, _ := connect(t)
		start := time.Now()
		task := mcptest.Require(t).Task(c, "render_report", map[string]any{"title": "Q3", "sections": 3})
		res, err := task.Wait(t.Context())
		require.NoError(t, err)
		mcptest.Assert(t).Text(res, `Report "Q3": 3 sections.`)
		assert.Equal(t, 3*tasks.SectionTime, time.Since(start))
	})
}

// At 2026-07-28 mcp-go v1.2.1 serves no tasks: it does not declare the
// io.modelcontextprotocol/tasks extension, so a client of the extension
// gets no task. word_count runs at once; render_report cannot run at all.
func TestNoTasksAt20260728(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, mcpgotest.Server(tasks.New(logcapture.New(t).Logger())), mcptest.WithProtocolVersion(client.Version20260728))
	assert.False(t, c.SupportsTasks())

	task, err := c.CallToolAsTask(t.Context(), "word_count", map[string]any{"text": "to be"})
	require.NoError(t, err)
	assert.Empty(t, task.ID, "no task was made")
	mcptest.Assert(t).Text(task.Result, "2 words")

	_, err = c.CallTool(t.Context(), "render_report", map[string]any{"title": "Q3"}, client.WithTask(0))
	mcptest.Assert(t).ProtocolError(err, client.CodeMethodNotFound)
}
