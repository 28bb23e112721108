package servercheck

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
)

// tasks is the connection the task checks share, and what they made.
type tasks struct {
	cn      *conn
	own     bool   // cn is the checks' own connection, closed at the end
	skip    string // why there is no connection for tasks, once known
	note    string // why the checks run at another version than the main connection
	created []string
}

func (tk *tasks) close() {
	if tk.own && tk.cn != nil {
		tk.cn.close()
	}
}

// conn returns the connection with tasks, or skips the check saying why
// there is none.
func (tk *tasks) conn(c *state) *conn {
	if tk.cn != nil && tk.cn.alive() {
		if tk.note != "" {
			c.notef("%s", tk.note)
		}
		return c.use(tk.cn)
	}
	if tk.own && tk.cn != nil { // it broke: open another
		tk.cn.close()
		tk.cn, tk.own, tk.note = nil, false, ""
	}
	if tk.skip != "" {
		c.skipf("%s", tk.skip)
	}
	main := c.main()
	if main.cl.SupportsTasks() {
		tk.cn = main
		return main
	}
	version := main.cl.ProtocolVersion()
	legacyCaps := len(main.cl.ServerCapabilities().Tasks) > 0
	switch {
	case version < client.Version20251125:
		tk.skip = fmt.Sprintf("tasks arrived in protocol version 2025-11-25; the checks run at %s", version)
	case !main.modern():
		tk.skip = "the server does not declare tasks for tools/call (capabilities.tasks.requests.tools.call, 2025-11-25)"
	case c.s.opts.Version == "" && slices.Contains(main.cl.ServerVersions(), client.Version20251125):
		var cn *conn
		var err error
		declared, known := c.s.tasksAt[client.Version20251125] // the handshake check's connection saw
		if !known || declared {
			cn, err = c.s.open(client.Version20251125)
		}
		switch {
		case known && !declared:
			tk.skip = fmt.Sprintf("the server declares neither the 2026-07-28 tasks extension (%s) nor, at 2025-11-25, the tasks "+
				"capability for tools/call (capabilities.tasks.requests.tools.call)", client.ExtensionTasks)
		case err != nil:
			tk.skip = fmt.Sprintf("the server does not declare the 2026-07-28 tasks extension (%s), and the handshake at 2025-11-25, which it offers, failed: %v", client.ExtensionTasks, err)
		case !cn.cl.SupportsTasks():
			cn.close()
			tk.skip = fmt.Sprintf("the server declares neither the 2026-07-28 tasks extension (%s) nor, at 2025-11-25, the tasks "+
				"capability for tools/call (capabilities.tasks.requests.tools.call)", client.ExtensionTasks)
		default:
			tk.cn, tk.own = cn, true
			tk.note = fmt.Sprintf("checked at 2025-11-25: at 2026-07-28 the server does not declare the tasks extension (%s)", client.ExtensionTasks)
			if legacyCaps {
				tk.note += ", and declares there the 2025-11-25 tasks capability, which 2026-07-28 removed: a 2026-07-28 client gets no task from it"
			}
			c.notef("%s", tk.note)
			return c.use(cn)
		}
	case legacyCaps:
		tk.skip = fmt.Sprintf("at 2026-07-28 tasks are the %s extension, which the server does not declare; it declares the "+
			"2025-11-25 tasks capability, which 2026-07-28 removed (check it at 2025-11-25)", client.ExtensionTasks)
	default:
		tk.skip = fmt.Sprintf("the server does not declare the 2026-07-28 tasks extension (%s)", client.ExtensionTasks)
	}
	c.skipf("%s", tk.skip)
	return nil
}

// legacyOnly skips a check of the 2025-11-25 tasks on a 2026-07-28
// connection.
func (c *state) legacyOnly(cn *conn, what string) {
	if cn.modern() {
		c.skipf("%s is a 2025-11-25 rule: at 2026-07-28 execution.taskSupport is gone, and the server decides which calls become tasks", what)
	}
}

// conformingArgs generates arguments that validate against t's inputSchema
// ({} when it cannot).
func (c *state) conformingArgs(t *client.Tool) map[string]any {
	if s, err := c.s.compile(t.InputSchema, t.Name+"/inputSchema"); err == nil {
		if a, why := s.conforming(newSeeded(c.s.opts.Seed, t.Name)); why == "" {
			return a
		}
	}
	return map[string]any{}
}

// taskRequired checks that a tool whose taskSupport is "required" refuses a
// plain call (2025-11-25, server/tools: -32601).
func (c *state) taskRequired(tk *tasks, t *client.Tool) {
	cn := tk.conn(c)
	c.legacyOnly(cn, `taskSupport "required"`)
	args := c.conformingArgs(t)
	ctx, cancel := c.ctx()
	defer cancel()
	res, err := cn.cl.CallTool(ctx, t.Name, args)
	c.noLeak(fmt.Sprintf("tools/call %q", t.Name), res, err)
	e, ok := errorCode(err)
	sent := fmt.Sprintf("called tool %q, whose execution.taskSupport is \"required\", without a task, with arguments %s", t.Name, compactJSON(args))
	switch {
	case brokeConnection(cn, err):
		c.fatalf("%s; the connection broke: %v", sent, err)
	case ok && e.Code == client.CodeMethodNotFound:
	case ok && e.Code == client.CodeInvalidRequest:
		c.notef("refuses the plain call with -32600 (Invalid request), as the tasks page allows; the tools page names -32601")
	case err == nil:
		c.breakf("%s; it answered: %s\n"+
			"expected: JSON-RPC error -32601: a server MUST refuse a plain call of a tool that requires a "+
			"task (specification 2025-11-25, server/tools, \"execution.taskSupport\")", sent, describe(res, nil))
	default:
		c.breakf("%s; got %s\n"+
			"expected: JSON-RPC error -32601 (specification 2025-11-25, server/tools, "+
			"\"execution.taskSupport\": the server MUST return -32601 when a tool that requires a task is called without one)", sent, describe(nil, err))
	}
}

// taskOptional checks that a tool whose taskSupport is "optional" answers a
// plain call and makes a task of a task-augmented one, which ends.
func (c *state) taskOptional(tk *tasks, t *client.Tool) {
	cn := tk.conn(c)
	c.legacyOnly(cn, `taskSupport "optional"`)
	args := c.conformingArgs(t)
	ctx, cancel := c.ctx()
	res, err := cn.cl.CallTool(ctx, t.Name, args)
	cancel()
	c.noLeak(fmt.Sprintf("tools/call %q", t.Name), res, err)
	if brokeConnection(cn, err) {
		c.fatalf("called tool %q with arguments %s; the connection broke: %v", t.Name, compactJSON(args), err)
	}
	if e, ok := errorCode(err); ok && (e.Code == client.CodeMethodNotFound || e.Code == client.CodeInvalidRequest) {
		c.breakf("called tool %q, whose execution.taskSupport is \"optional\", without a task, with arguments %s; got %s\n"+
			"expected: an answer: an optional tool runs as a plain call or as a task, as the client chooses "+
			"(specification 2025-11-25, server/tools, \"execution.taskSupport\")", t.Name, compactJSON(args), describe(nil, err))
	}
	task, ok := c.startTask(cn, t, args)
	if !ok {
		return
	}
	tk.created = append(tk.created, task.ID)
	c.awaitTask(cn, t, task, args)
}

// startTask calls t as a task and reports whether a task came of it,
// failing the check otherwise.
func (c *state) startTask(cn *conn, t *client.Tool, args map[string]any) (*client.Task, bool) {
	ctx, cancel := c.ctx()
	defer cancel()
	task, err := cn.cl.CallToolAsTask(ctx, t.Name, args)
	sent := fmt.Sprintf("called tool %q, whose execution.taskSupport is %q, as a task (params.task), with arguments %s", t.Name, t.TaskSupport(), compactJSON(args))
	switch {
	case brokeConnection(cn, err):
		c.fatalf("%s; the connection broke: %v", sent, err)
	case err != nil:
		c.breakf("%s; got %s\nexpected: a CreateTaskResult: the tool supports tasks (specification 2025-11-25, basic/utilities/tasks)", sent, describe(nil, err))
		return nil, false
	case task.ID == "":
		c.breakf("%s; the server ran it at once: %s\n"+
			"expected: a CreateTaskResult ({\"task\": {...}}): the tool declares that it supports tasks, and "+
			"the client asked for one (specification 2025-11-25, basic/utilities/tasks)", sent, describe(task.Result, nil))
		return nil, false
	}
	return task, true
}

// awaitTask waits for a task the check started and judges how it ended:
// in time, not cancelled unasked, with no crash text.
func (c *state) awaitTask(cn *conn, t *client.Tool, task *client.Task, args map[string]any) {
	ctx, cancel := c.ctx()
	defer cancel()
	var seen []string
	var last client.TaskStatus
	res, err := cn.cl.WaitTask(ctx, task.ID, client.WithTaskUpdates(func(t *client.Task) { seen, last = append(seen, string(t.Status)), t.Status }))
	c.noLeak(fmt.Sprintf("the outcome of task %q (tool %q)", task.ID, t.Name), res, err)
	sent := fmt.Sprintf("called tool %q as a task (%s) with arguments %s and waited for it (statuses seen: %s)", t.Name, task.ID, compactJSON(args), strings.Join(seen, " → "))
	var ce *client.TaskCancelledError
	switch {
	case brokeConnection(cn, err):
		c.fatalf("%s; the connection broke: %v", sent, err)
	case timedOut(err):
		cn.abandoned = true
		c.breakf("%s; it had not ended within %v\nexpected: the task to end (a tool call that does not answer in time fails tools/calls too)", sent, c.s.timeout)
	case errors.As(err, &ce):
		c.breakf("%s; the task was cancelled (%q), though the client never asked\n"+
			"expected: the task to complete or fail: a task ends as cancelled only when its requestor "+
			"cancels it (specification, basic/utilities/tasks). (mcp-go v1.2.1 runs a task under the context "+
			"of the tools/call that made it, which ends once the call is answered: a handler that watches "+
			"its context is cancelled at once)", sent, ce.Task.StatusMessage)
	case err != nil:
		e, ok := errorCode(err)
		switch {
		case !ok:
			c.breakf("%s; got %v\nexpected: what the tools/call would have returned: a result, or a JSON-RPC error", sent, err)
		case !cn.modern() && last == client.TaskCompleted:
			c.completedWithError(sent, e)
		}
	}
}

// completedWithError fails a check whose task was reported completed while
// tasks/result answered with a JSON-RPC error: a contradiction, as a
// completed task has a result.
func (c *state) completedWithError(sent string, e *client.Error) {
	c.breakf("%s; the task is completed, yet tasks/result answers with JSON-RPC error %d %q\n"+
		"expected: tasks/result returns exactly what the tools/call would have returned: a completed "+
		"task has a result (specification 2025-11-25, basic/utilities/tasks)", sent, e.Code, e.Message)
}

// taskTools returns the tools to make tasks of: those that support tasks
// at 2025-11-25 (required first), every tool at 2026-07-28 (the server
// decides).
func taskTools(cn *conn, tools []*client.Tool) []*client.Tool {
	if cn.modern() {
		return tools
	}
	var req, opt []*client.Tool
	for _, t := range tools {
		switch t.TaskSupport() {
		case client.TaskSupportRequired:
			req = append(req, t)
		case client.TaskSupportOptional:
			opt = append(opt, t)
		}
	}
	return append(req, opt...)
}

// maxTaskTries bounds the tools a check tries to make a task of.
const maxTaskTries = 5

// anyTask starts a task of one of the server's tools with conforming
// arguments, or skips the check.
func (c *state) anyTask(tk *tasks, cn *conn, opts ...client.CallOption) (*client.Tool, *client.Task) {
	var tried []string
	for _, t := range taskTools(cn, c.s.inv.tools) {
		if len(tried) == maxTaskTries {
			break
		}
		args := c.conformingArgs(t)
		ctx, cancel := c.ctx()
		task, err := cn.cl.CallToolAsTask(ctx, t.Name, args, opts...)
		cancel()
		if brokeConnection(cn, err) {
			c.fatalf("called tool %q as a task; the connection broke: %v", t.Name, err)
		}
		switch {
		case err != nil:
			tried = append(tried, fmt.Sprintf("%s: %s", t.Name, describe(nil, err)))
		case task.ID == "":
			tried = append(tried, t.Name+": answered at once")
		default:
			tk.created = append(tk.created, task.ID)
			return t, task
		}
	}
	if len(tried) == 0 {
		c.skipf("the server lists no tool that supports tasks")
	}
	c.skipf("no call became a task (%s)", strings.Join(tried, "; "))
	return nil, nil
}

// cancelTask cancels a task and checks that it reaches a terminal state
// and stays there.
func (c *state) cancelTask(tk *tasks) {
	cn := tk.conn(c)
	t, task := c.anyTask(tk, cn)
	ctx, cancel := c.ctx()
	after, err := cn.cl.CancelTask(ctx, task.ID)
	cancel()
	c.noLeak("tasks/cancel "+task.ID, after, err)
	sent := fmt.Sprintf("called tool %q as a task (%s) and cancelled it with tasks/cancel", t.Name, task.ID)
	if brokeConnection(cn, err) {
		c.fatalf("%s; the connection broke: %v", sent, err)
	}
	ended := false // the task had ended before the cancellation
	if e, ok := errorCode(err); ok && e.Code == client.CodeInvalidParams && !cn.modern() {
		ended = true // a terminal task cannot be cancelled: -32602
	} else if err != nil {
		want := "the task, cancelled, or -32602 if it had ended (specification 2025-11-25, basic/utilities/tasks, \"Cancelling Tasks\")"
		if cn.modern() {
			want = "an empty acknowledgement: the server MUST acknowledge tasks/cancel, whatever the task (tasks extension, \"Task Cancellation\")"
		}
		c.fatalf("%s; got %s\nexpected: %s", sent, describe(nil, err), want)
	}
	if after != nil && after.Status != client.TaskCancelled {
		c.breakf("%s; tasks/cancel answered with the task in status %q\n"+
			"expected: status cancelled: a task the receiver accepts to cancel MUST be cancelled when it "+
			"answers (specification 2025-11-25, basic/utilities/tasks, \"Cancelling Tasks\")", sent, after.Status)
	}
	ctx, cancel = c.ctx()
	_, err = cn.cl.WaitTask(ctx, task.ID)
	cancel()
	if brokeConnection(cn, err) {
		c.fatalf("%s; waiting for it, the connection broke: %v", sent, err)
	}
	if timedOut(err) {
		cn.abandoned = true
		if cn.modern() {
			c.warnf("%s; it had not reached a terminal status %v later\n"+
				"expected: a terminal status (cancellation is cooperative in the tasks extension, which does not "+
				"promise it: \"Task Cancellation\")", sent, c.s.timeout)
			return
		}
		c.breakf("%s; it had not reached a terminal status %v later\nexpected: cancelled", sent, c.s.timeout)
		return
	}
	ctx, cancel = c.ctx()
	final, gerr := cn.cl.GetTask(ctx, task.ID)
	cancel()
	switch {
	case gerr != nil:
		if e, ok := errorCode(gerr); !ok || e.Code != client.CodeInvalidParams {
			c.breakf("%s; tasks/get afterwards got %s\nexpected: the task, in its terminal status", sent, describe(nil, gerr))
		}
	case !final.Status.Terminal():
		c.breakf("%s; the wait ended, and then tasks/get reports status %q\nexpected: a terminal status, which never changes (specification, basic/utilities/tasks)", sent, final.Status)
	case after != nil && after.Status == client.TaskCancelled && final.Status != client.TaskCancelled:
		c.breakf("%s; tasks/cancel reported it cancelled, and then tasks/get reports %q\nexpected: cancelled: a terminal status never changes (specification, basic/utilities/tasks)", sent, final.Status)
	case ended:
		if !final.Status.Terminal() {
			c.breakf("%s; the server refused with -32602 as for a task that has ended, but the task is %q", sent, final.Status)
		}
		c.notef("task %s of tool %q had %s before the cancellation reached it (tasks/cancel answered -32602)", task.ID, t.Name, final.Status)
	default:
		c.notef("task %s of tool %q ended %s", task.ID, t.Name, final.Status)
	}
	if gerr == nil && final.Status.Terminal() && !cn.modern() {
		c.cancelEnded(cn, task.ID, sent, final.Status)
	}
}

// cancelEnded cancels a task that has ended: at 2025-11-25 the server must
// refuse with -32602 and leave its terminal status as it was.
func (c *state) cancelEnded(cn *conn, id, sent string, was client.TaskStatus) {
	ctx, cancel := c.ctx()
	again, err := cn.cl.CancelTask(ctx, id)
	cancel()
	c.noLeak("tasks/cancel "+id, again, err)
	sent = fmt.Sprintf("%s; once it was %s, cancelled it again", sent, was)
	if brokeConnection(cn, err) {
		c.fatalf("%s; the connection broke: %v", sent, err)
	}
	if e, ok := errorCode(err); !ok || e.Code != client.CodeInvalidParams {
		c.breakf("%s; got %s\nexpected: JSON-RPC error -32602: receivers MUST reject cancellation of a task already in a "+
			"terminal status (specification 2025-11-25, basic/utilities/tasks, \"Cancelling Tasks\")", sent, describe(nil, err))
	}
	ctx, cancel = c.ctx()
	now, gerr := cn.cl.GetTask(ctx, id)
	cancel()
	if gerr == nil && now.Status != was {
		c.breakf("%s; tasks/get then reports %q\nexpected: %s: a terminal status never changes (specification, basic/utilities/tasks)", sent, now.Status, was)
	}
}

// failedTaskResult makes a task fail with arguments that break its tool's
// inputSchema and checks that its outcome keeps the contract.
func (c *state) failedTaskResult(tk *tasks) {
	cn := tk.conn(c)
	var tried []string
	for _, t := range taskTools(cn, c.s.inv.tools) {
		if len(tried) >= maxTaskTries {
			break
		}
		in, err := c.s.compile(t.InputSchema, t.Name+"/inputSchema")
		if err != nil {
			continue
		}
		vs, _ := in.violations(newSeeded(c.s.opts.Seed, "task-invalid/"+t.Name))
		for _, v := range vs {
			ctx, cancel := c.ctx()
			task, err := cn.cl.CallToolAsTask(ctx, t.Name, v.args)
			cancel()
			if brokeConnection(cn, err) {
				c.fatalf("called tool %q as a task with %s; the connection broke: %v", t.Name, v.what, err)
			}
			if err != nil || task.ID == "" {
				tried = append(tried, fmt.Sprintf("%s (%s): refused before a task was made", t.Name, v.what))
				continue
			}
			tk.created = append(tk.created, task.ID)
			if c.judgeFailedTask(cn, t, task, v) {
				return
			}
			tried = append(tried, fmt.Sprintf("%s (%s): succeeded", t.Name, v.what))
		}
	}
	if len(tried) == 0 {
		c.skipf("no tool that supports tasks has an inputSchema with something to break (a required property, a typed property)")
	}
	c.skipf("could not make a task fail with arguments that break the inputSchema (%s)", strings.Join(tried, "; "))
}

// judgeFailedTask waits for a task started with arguments that break the
// schema and judges its outcome; it reports whether the task failed (a
// success leaves the check to try another way).
func (c *state) judgeFailedTask(cn *conn, t *client.Tool, task *client.Task, v violation) bool {
	sent := fmt.Sprintf("called tool %q as a task (%s) with arguments that break its inputSchema (%s): %s", t.Name, task.ID, v.what, compactJSON(v.args))
	ctx, cancel := c.ctx()
	var last *client.Task
	res, err := cn.cl.WaitTask(ctx, task.ID, client.WithTaskUpdates(func(t *client.Task) { last = t }))
	cancel()
	c.noLeak(fmt.Sprintf("the outcome of task %q (tool %q)", task.ID, t.Name), res, err)
	var ce *client.TaskCancelledError
	switch {
	case brokeConnection(cn, err):
		c.fatalf("%s; waiting for it, the connection broke: %v", sent, err)
	case timedOut(err):
		cn.abandoned = true
		c.fatalf("%s; it had not ended within %v\nexpected: the task to end, with what the call would have returned", sent, c.s.timeout)
	case errors.As(err, &ce):
		c.breakf("%s; the task was cancelled (%q), though the client never asked\n"+
			"expected: completed with an isError result, or failed with the JSON-RPC error (specification, basic/utilities/tasks)", sent, ce.Task.StatusMessage)
		return true
	}
	status := client.TaskStatus("")
	if last != nil {
		status = last.Status
	}
	e, isRPC := errorCode(err)
	switch {
	case err != nil && !isRPC:
		c.breakf("%s; the outcome is not what a tools/call returns: %v\n"+
			"expected: a result (isError) or a JSON-RPC error, as tasks/result (2025-11-25) or the failed "+
			"task's error (2026-07-28) carries it", sent, err)
	case err == nil && !res.IsError:
		return false // no failure to check
	case cn.modern() && err == nil && status == client.TaskFailed:
		c.breakf("%s; the task failed with an isError result\nexpected: completed: the failed status MUST NOT be used for a tool result with isError (tasks extension, \"Task Execution Errors\")", sent)
	case !cn.modern() && isRPC && status == client.TaskCompleted:
		c.completedWithError(sent, e)
	case isRPC:
		c.warnf("%s; the task failed with JSON-RPC error %d %q\n"+
			"expected: an isError result the model can read: input validation errors SHOULD be tool "+
			"execution errors (specification 2025-11-25, server/tools); a task tool reports them in its "+
			"result (mcp-go: CreateTaskResult.IsError)", sent, e.Code, e.Message)
	default:
		c.notef("task %s of tool %q ended %s with an isError result: %s", task.ID, t.Name, status, cut(res.Text(), 200))
	}
	if status == client.TaskFailed {
		c.failedStatusMessage(cn, task.ID, sent)
	}
	if err == nil && !cn.modern() && relatedTask(res.Meta) != task.ID {
		c.warnf("%s; tasks/result answered without _meta[\"io.modelcontextprotocol/related-task\"] = {\"taskId\": %q}\n"+
			"expected: the related-task metadata on the result of tasks/result (specification 2025-11-25, "+
			"basic/utilities/tasks, \"Related Task Metadata\")", sent, task.ID)
	}
	return true
}

// failedStatusMessage warns when tasks/get of a failed task gives no
// statusMessage.
func (c *state) failedStatusMessage(cn *conn, id, sent string) {
	ctx, cancel := c.ctx()
	got, err := cn.cl.GetTask(ctx, id)
	cancel()
	if err == nil && got.Status == client.TaskFailed && got.StatusMessage == "" {
		c.warnf("%s; tasks/get reports the task failed, with no statusMessage\n"+
			"expected: a statusMessage with diagnostic information about the failure: the tasks/get response SHOULD include "+
			"one (specification 2025-11-25, basic/utilities/tasks, \"Task Execution Errors\"; the tasks extension keeps it)", sent)
	}
}

// relatedTask returns the taskId of a result's related-task metadata.
func relatedTask(m client.Meta) string {
	r, _ := m["io.modelcontextprotocol/related-task"].(map[string]any)
	id, _ := r["taskId"].(string)
	return id
}

// taskCallOptions are the options of a generated call of t: a tool that
// requires a task is called as one, where the connection has tasks.
func taskCallOptions(cn *conn, t *client.Tool, progress func(client.Progress)) []client.CallOption {
	opts := []client.CallOption{client.WithProgress(progress)}
	if t.TaskSupport() == client.TaskSupportRequired && cn.cl.SupportsTasks() {
		opts = append(opts, client.WithTask(0))
	}
	return opts
}

// skipTaskOnly skips a check that calls t when t runs only as a task and
// the connection cannot make one.
func (c *state) skipTaskOnly(cn *conn, t *client.Tool) {
	if t.TaskSupport() != client.TaskSupportRequired || cn.cl.SupportsTasks() {
		return
	}
	if cn.modern() {
		c.skipf("tool %q runs only as a task (execution.taskSupport \"required\", a 2025-11-25 field), and at %s "+
			"the server does not declare the tasks extension (%s), so no call can reach it; the tasks checks "+
			"call it at 2025-11-25 if the server offers it", t.Name, cn.cl.ProtocolVersion(), client.ExtensionTasks)
	}
	c.skipf("tool %q runs only as a task (execution.taskSupport \"required\"), and the server does not declare tasks for tools/call", t.Name)
}
