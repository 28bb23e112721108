package mcptest

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/google/go-cmp/cmp"

	"github.com/mcptestkit/mcptestkit/client"
)

// Task is a tool call running as a task on a test's connection, from
// [Assertions.Task]: wait for it with [Task.Wait], check the statuses it
// went through with [Assertions.TaskStatuses], and reach it with the
// client's task methods (c.GetTask(ctx, task.ID), c.CancelTask(ctx,
// task.ID), ...).
//
//	task := mcptest.Require(t).Task(c, "process_batch", map[string]any{"items": []string{"a", "b"}})
//	res, err := task.Wait(t.Context())
//	require.NoError(t, err)
//	mcptest.Assert(t).Text(res, "processed 2 items")
//	mcptest.Assert(t).TaskStatuses(task, client.TaskWorking, client.TaskCompleted)
type Task struct {
	// ID is the task's id (taskId).
	ID string
	// Created is the task as the server created it.
	Created *client.Task

	c        *client.Client
	mu       sync.Mutex
	statuses []client.TaskStatus
	last     *client.Task
}

// Task calls the tool name with args as a task on c
// ([client.Client.CallToolAsTask]; opts may add client.WithTask for a TTL)
// and returns the task once the server has created it. It fails, returning
// nil, if the call fails or if the server ran it at once instead of making a
// task (at 2026-07-28 the server decides; at 2025-11-25 a tool that does
// not support tasks runs at once): call c.CallToolAsTask to accept both.
// The call runs under the test's context when the TestingT has one.
func (a *Assertions) Task(c *client.Client, name string, args any, opts ...client.CallOption) *Task {
	a.h.Helper()
	ctx := context.Background()
	if tc, ok := a.t.(interface{ Context() context.Context }); ok {
		ctx = tc.Context()
	}
	created, err := c.CallToolAsTask(ctx, name, args, opts...)
	if err != nil {
		a.fail("mcptest: calling tool %q as a task failed: %v%s%s", name, err, callbackHint(err.Error()), legacyTasks(c))
		return nil
	}
	if created.ID == "" {
		a.fail("mcptest: expected tool %q to run as a task, the server answered at once instead\nresult: %s%s", name, created.Result, taskHint(c))
		return nil
	}
	tk := &Task{ID: created.ID, Created: created, c: c}
	tk.saw(created)
	return tk
}

// taskHint says why a server may not have made a task.
func taskHint(c *client.Client) string {
	switch {
	case c.ProtocolVersion() < client.Version20251125:
		return "\n(tasks arrived in protocol version 2025-11-25; this connection speaks " + c.ProtocolVersion() + ")"
	case legacyTasks(c) != "":
		return legacyTasks(c)
	case !c.SupportsTasks() && c.IsModern():
		return "\n(the server does not declare the 2026-07-28 tasks extension, " + client.ExtensionTasks + "; if it serves 2025-11-25 tasks, connect with mcptest.WithProtocolVersion(\"2025-11-25\"))"
	case !c.SupportsTasks():
		return "\n(the server does not declare tasks for tools/call: capabilities.tasks.requests.tools.call)"
	}
	return "\n(at 2025-11-25 a server runs a tool whose execution.taskSupport is not \"optional\" or \"required\" as a plain call)"
}

// legacyTasks says why a server on a 2026-07-28 connection makes no task
// when it declares the tasks of 2025-11-25 instead of the extension; "" for
// any other connection.
func legacyTasks(c *client.Client) string {
	if !c.IsModern() || c.SupportsTasks() {
		return ""
	}
	if caps := c.ServerCapabilities(); caps == nil || len(caps.Tasks) == 0 || string(caps.Tasks) == "null" ||
		!slices.Contains(c.ServerVersions(), client.Version20251125) {
		return ""
	}
	return "\n(" + legacyTasksHint + ")"
}

// saw records a state of the task: its status, when it changed.
func (tk *Task) saw(t *client.Task) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.last = t
	if n := len(tk.statuses); n == 0 || tk.statuses[n-1] != t.Status {
		tk.statuses = append(tk.statuses, t.Status)
	}
}

// Wait waits for the task to end and returns what its tool call would have
// returned, with the client's error contract: the tool's result (isError
// for a failed tool, see [Assertions.ToolError]), the server's JSON-RPC
// error ([Assertions.ProtocolError]), an error wrapping
// client.ErrTaskCancelled for a cancelled task. It polls as the server
// suggests and wakes on status notifications ([client.Client.WaitTask]);
// ctx and the connection's timeout (client.Options.Timeout through
// [WithClient], or a client.WithTimeout in opts) bound the wait, on the
// bubble's fake clock inside synctest.Test, so a task that never ends fails
// the test instead of hanging it.
func (tk *Task) Wait(ctx context.Context, opts ...client.CallOption) (*client.CallToolResult, error) {
	opts = append(slices.Clip(opts), client.WithTaskUpdates(tk.saw))
	return tk.c.WaitTask(ctx, tk.ID, opts...)
}

// Statuses returns the statuses the client saw the task in, in order, each
// change once: as created, then as [Task.Wait] saw it change through polls
// and status notifications. A status the task passed through between two
// polls, of which no notification told, is not among them.
func (tk *Task) Statuses() []client.TaskStatus {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	return slices.Clone(tk.statuses)
}

// Last returns the task's state as the client last saw it.
func (tk *Task) Last() *client.Task {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	return tk.last
}

// TaskStatuses checks that the statuses the client saw the task go through
// ([Task.Statuses]) are want, in order. Call it after [Task.Wait]: until
// then only the status the task was created in is known.
//
//	mcptest.Assert(t).TaskStatuses(task, client.TaskWorking, client.TaskCompleted)
func (a *Assertions) TaskStatuses(tk *Task, want ...client.TaskStatus) bool {
	a.h.Helper()
	if tk == nil {
		return a.fail("mcptest: expected a task with statuses %s, got no task", statusList(want))
	}
	got := tk.Statuses()
	if slices.Equal(got, want) {
		return true
	}
	msg := ""
	if last := tk.Last(); last != nil && !last.Status.Terminal() {
		msg = "\n(the task has not ended: call task.Wait first)"
	} else if last != nil && last.StatusMessage != "" {
		msg = "\nlast status message: " + last.StatusMessage
	}
	return a.fail("mcptest: the task's statuses differ\ntask:     %s\nexpected: %s\nactual:   %s\ndiff (-expected +actual):\n%s%s", tk.ID, statusList(want), statusList(got), cmp.Diff(want, got), msg)
}

func statusList(s []client.TaskStatus) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = string(v)
	}
	return "[" + strings.Join(parts, " → ") + "]"
}
