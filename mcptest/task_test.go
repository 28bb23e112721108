package mcptest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
)

// A task test reads like the rest: start, wait, assert on the result and on
// the statuses, in both eras.
func TestRequireTaskWait(t *testing.T) {
	t.Parallel()
	for _, v := range []string{client.Version20251125, client.Version20260728} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			c := Connect(t, newTaskServer(5), WithProtocolVersion(v))

			task := Require(t).Task(c, "count", map[string]any{"n": 2, "ms": 5})
			res, err := task.Wait(t.Context())
			require.NoError(t, err)
			Assert(t).Text(res, "counted to 2")
			Assert(t).TaskStatuses(task, client.TaskWorking, client.TaskCompleted)
		})
	}
}

// A failed request is the server's error; a failed tool is an isError
// result; a cancelled task is ErrTaskCancelled: the client's contract.
func TestTaskOutcomes(t *testing.T) {
	t.Parallel()
	for _, v := range []string{client.Version20251125, client.Version20260728} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			c := Connect(t, newTaskServer(5), WithProtocolVersion(v))

			failed := Require(t).Task(c, "count", map[string]any{"n": -1})
			_, err := failed.Wait(t.Context())
			e := Require(t).ProtocolError(err, client.CodeInternalError)
			assert.Equal(t, "cannot count to -1", e.Message)
			Assert(t).TaskStatuses(failed, client.TaskWorking, client.TaskFailed)

			toolError := Require(t).Task(c, "echo", map[string]any{"text": "x", "fail": true})
			res, err := toolError.Wait(t.Context())
			require.NoError(t, err)
			Assert(t).ToolError(res, "echo failed: x")

			long := Require(t).Task(c, "count", map[string]any{"n": 5, "ms": 50})
			_, err = c.CancelTask(t.Context(), long.ID)
			require.NoError(t, err)
			_, err = long.Wait(t.Context())
			require.ErrorIs(t, err, client.ErrTaskCancelled)
			Assert(t).TaskStatuses(long, client.TaskWorking, client.TaskCancelled)
		})
	}
}

// The wait runs on the bubble's clock: an hour-long task ends at once, and
// a task that never ends fails with the connection's timeout.
func TestTaskInSynctestBubble(t *testing.T) {
	t.Parallel()
	inSynctest(t, func(t *testing.T) {
		start := time.Now()
		c := Connect(t, newTaskServer(60_000), WithProtocolVersion(client.Version20260728), WithClient(client.Options{Timeout: 2 * time.Hour}))
		task := Require(t).Task(c, "count", map[string]any{"n": 6, "ms": 595_000}) // 59 min 30 s
		res, err := task.Wait(t.Context())
		require.NoError(t, err)
		Assert(t).Text(res, "counted to 6")
		assert.Equal(t, time.Hour, time.Since(start), "the task ended at once on the bubble's clock, found by the poll of the hour (polls a minute apart)")

		slow := Require(t).Task(c, "count", map[string]any{"n": 3, "ms": 3_600_000})
		start = time.Now()
		_, err = slow.Wait(t.Context(), client.WithTimeout(10*time.Minute))
		assert.ErrorContains(t, err, "no response within 10m0s")
		assert.Equal(t, 10*time.Minute, time.Since(start))
		_, err = c.CancelTask(t.Context(), slow.ID)
		require.NoError(t, err)
	})
}

// Require(t).Task stops the test when no task comes of the call, saying why.
func TestRequireTaskFailures(t *testing.T) {
	t.Parallel()
	srv := newTaskServer(5)
	srv.defect = "forbidden-runs" // plain, called as a task, runs at once (rather than -32601, as it SHOULD)
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, srv, WithProtocolVersion(client.Version20251125))
		Require(tb).Task(c, "plain", nil)
		tb.Error("not reached")
	})
	f.expectFailure(t, `expected tool "plain" to run as a task, the server answered at once instead`, `result: {isError:false content:["plain"]}`,
		`a tool whose execution.taskSupport is not "optional" or "required"`)
	assert.NotContains(t, f.output(), "not reached")

	f = runFake(t, func(tb testing.TB) {
		c := Connect(tb, srv, WithProtocolVersion(client.Version20250618))
		Require(tb).Task(c, "count", nil)
	})
	f.expectFailure(t, `calling tool "count" as a task failed: tools/call "count": tasks arrived in protocol version 2025-11-25`)
}

func TestAssertTaskStatuses(t *testing.T) {
	t.Parallel()
	c := Connect(t, newTaskServer(5), WithProtocolVersion(client.Version20251125))
	task := Require(t).Task(c, "count", map[string]any{"n": 1, "ms": 5})
	check(t, false, func(a *Assertions) bool { return a.TaskStatuses(task, client.TaskWorking, client.TaskCompleted) },
		"expected: [working → completed]", "actual:   [working]", "the task has not ended: call task.Wait first")
	_, err := task.Wait(t.Context())
	require.NoError(t, err)
	check(t, true, func(a *Assertions) bool { return a.TaskStatuses(task, client.TaskWorking, client.TaskCompleted) })
	check(t, false, func(a *Assertions) bool { return a.TaskStatuses(task, client.TaskCompleted) },
		"expected: [completed]", "actual:   [working → completed]", "diff (-expected +actual)")
	check(t, false, func(a *Assertions) bool { return a.TaskStatuses(nil, client.TaskCompleted) }, "got no task")
	assert.Equal(t, client.TaskCompleted, task.Last().Status)
}
