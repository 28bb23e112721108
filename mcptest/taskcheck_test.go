package mcptest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// The tasks checks against a server that keeps the rules, in each era: at
// 2025-11-25 every one runs; at 2026-07-28 (also when the checks pick the
// version) those of execution.taskSupport skip, naming why.
func TestTaskChecks(t *testing.T) {
	t.Parallel()
	for _, v := range []string{client.Version20251125, client.Version20260728, ""} {
		t.Run("version="+v, func(t *testing.T) {
			t.Parallel()
			results := map[string]servercheck.Result{}
			err := servercheck.Run(t.Context(), memDialer(newTaskServer(5)), &servercheck.Options{
				Version: v, Run: "tasks|tools", Skip: []string{"tools/invalid-arguments"}, Strict: true,
				OnResult: func(r servercheck.Result) { results[r.Name] = r },
			})
			require.NoError(t, err)
			status := func(name string) servercheck.Status {
				r, ok := results[name]
				require.True(t, ok, "check %s did not run", name)
				return r.Status
			}
			for _, name := range []string{"tasks/unknown-task", "tasks/cancel", "tasks/failed-result", "tasks/created", "tasks/related-task", "tools/calls/count", "tools/calls/echo"} {
				assert.Equal(t, servercheck.Pass, status(name), "%s: %s", name, results[name].Detail)
			}
			if v == client.Version20251125 {
				assert.Equal(t, servercheck.Pass, status("tasks/required/count"), results["tasks/required/count"].Detail)
				assert.Equal(t, servercheck.Pass, status("tasks/optional/echo"), results["tasks/optional/echo"].Detail)
				assert.Equal(t, servercheck.Pass, status("tasks/status-notifications"), results["tasks/status-notifications"].Detail)
				for _, name := range []string{"tasks/forbidden", "tasks/result-blocks", "tasks/list"} {
					assert.Equal(t, servercheck.Pass, status(name), "%s: %s", name, results[name].Detail)
				}
				assert.Contains(t, results["tasks/failed-result"].Detail, "ended failed with an isError result: n must be a number")
				return
			}
			assert.Equal(t, servercheck.Pass, status("tasks/no-extension"), results["tasks/no-extension"].Detail)
			assert.Equal(t, servercheck.Pass, status("tasks/listen"), results["tasks/listen"].Detail)
			assert.Equal(t, servercheck.Skip, status("tasks/required/count"))
			assert.Equal(t, `taskSupport "required" is a 2025-11-25 rule: at 2026-07-28 execution.taskSupport is gone, and the server decides which calls become tasks`, results["tasks/required/count"].Detail)
			assert.Equal(t, servercheck.Skip, status("tasks/optional/echo"))
			assert.Equal(t, servercheck.Pass, status("tasks/status-notifications"), "notifications/tasks on the stream tasks/listen opened: %s", results["tasks/status-notifications"].Detail)
			assert.Contains(t, results["tasks/failed-result"].Detail, "ended completed with an isError result: n must be a number")
		})
	}
}

// Issue 30.11: a task reported completed whose tasks/result is a JSON-RPC
// error is a contradiction, whichever check comes upon it.
func TestTaskChecksFindACompletedTaskWithAnError(t *testing.T) {
	t.Parallel()
	srv := newTaskServer(5)
	srv.contradict = true
	results := map[string]servercheck.Result{}
	err := servercheck.Run(t.Context(), memDialer(srv), &servercheck.Options{
		Version: client.Version20251125, Run: "tasks/optional",
		OnResult: func(r servercheck.Result) { results[r.Name] = r },
	})
	require.EqualError(t, err, "1 check(s) failed: tasks/optional/echo")
	r, ok := results["tasks/optional/echo"]
	require.True(t, ok, "tasks/optional/echo did not run: %v", results)
	assert.Equal(t, servercheck.Fail, r.Status, r.Detail)
	assert.Contains(t, r.Detail, `the task is completed, yet tasks/result answers with JSON-RPC error -32603 "the result was lost"`)
}

// Issue 31.1: tasks/cancel of a task that has ended must be refused with
// -32602 and leave its status as it was.
func TestTaskChecksFindACancelOverwritingAnEndedTask(t *testing.T) {
	t.Parallel()
	srv := newTaskServer(5)
	srv.overwrite = true
	results := map[string]servercheck.Result{}
	err := servercheck.Run(t.Context(), memDialer(srv), &servercheck.Options{
		Version: client.Version20251125, Run: "tasks/cancel",
		OnResult: func(r servercheck.Result) { results[r.Name] = r },
	})
	require.EqualError(t, err, "1 check(s) failed: tasks/cancel")
	r := results["tasks/cancel"]
	assert.Equal(t, servercheck.Fail, r.Status, r.Detail)
	assert.Contains(t, r.Detail, "receivers MUST reject cancellation of a task already in a terminal status")
}
