package servercheck

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
)

// The checks of a task's life as the 2025-11-25 core tasks describe it
// (basic/utilities/tasks): how it begins, what tasks/result waits for,
// which id names it, where it is listed.

const metaRelatedTask = "io.modelcontextprotocol/related-task"

// taskCreated makes a task (and a second one when the checks made no
// other) and checks the tasks as created: at 2025-11-25 each begins
// working; no two tasks the checks were given on the connection share an
// id.
func (c *state) taskCreated(tk *tasks) {
	cn := tk.conn(c)
	t, first := c.anyTask(tk, cn)
	made := []*client.Task{first}
	args := c.conformingArgs(t)
	if len(tk.created) < 2 { // ids to compare
		ctx, cancel := c.ctx()
		second, err := cn.cl.CallToolAsTask(ctx, t.Name, args)
		cancel()
		if brokeConnection(cn, err) {
			c.fatalf("called tool %q as a task a second time; the connection broke: %v", t.Name, err)
		}
		if err == nil && second.ID != "" {
			tk.created = append(tk.created, second.ID)
			made = append(made, second)
		}
	}
	if !cn.modern() {
		for _, task := range made {
			if task.Status != client.TaskWorking {
				c.breakf("called tool %q as a task with arguments %s; the CreateTaskResult gives task %s the status %q\n"+
					"expected: working: tasks MUST begin in the working status when created (specification 2025-11-25, "+
					"basic/utilities/tasks, \"Task Status Lifecycle\")", t.Name, compactJSON(args), task.ID, task.Status)
			}
		}
	}
	seen := map[string]int{}
	for _, id := range tk.created {
		seen[id]++
	}
	var dup []string
	for _, id := range slices.Sorted(mapKeys(seen)) {
		if seen[id] > 1 {
			dup = append(dup, fmt.Sprintf("%q (%d tasks)", id, seen[id]))
		}
	}
	if len(dup) > 0 {
		c.breakf("of the %d tasks the checks made on this connection, some share an id: %s\n"+
			"expected: task IDs MUST be unique among all tasks controlled by the receiver (specification 2025-11-25, "+
			"basic/utilities/tasks, \"Task ID Requirements\"; the 2026-07-28 extension calls each task uniquely identifiable)",
			len(tk.created), strings.Join(dup, ", "))
	}
	c.notef("%d task(s) made on this connection, each with its own id", len(tk.created))
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// taskResultBlocks asks tasks/result for a task as soon as it is created
// and checks that the answer came only once the task had ended: tasks/get
// afterwards reports a terminal status (2025-11-25).
func (c *state) taskResultBlocks(tk *tasks) {
	cn := tk.conn(c)
	if cn.modern() {
		c.skipf("tasks/result is a 2025-11-25 method: the 2026-07-28 tasks extension has none")
	}
	t, task := c.anyTask(tk, cn)
	ctx, cancel := c.ctx()
	res, err := cn.cl.TaskResult(ctx, task.ID)
	cancel()
	c.noLeak("tasks/result "+task.ID, res, err)
	sent := fmt.Sprintf("called tool %q as a task (%s, created %s) and at once sent tasks/result", t.Name, task.ID, task.Status)
	switch {
	case brokeConnection(cn, err):
		c.fatalf("%s; the connection broke: %v", sent, err)
	case timedOut(err):
		cn.abandoned = true
		c.skipf("%s; no answer within %v: the task had not ended, and a tasks/result that waits for it is what the rule asks", sent, c.s.timeout)
	}
	ctx, cancel = c.ctx()
	now, gerr := cn.cl.GetTask(ctx, task.ID)
	cancel()
	if brokeConnection(cn, gerr) {
		c.fatalf("%s; tasks/get afterwards: the connection broke: %v", sent, gerr)
	}
	if gerr != nil {
		c.skipf("%s, which answered %s; tasks/get afterwards got %s, so the task's status when tasks/result answered cannot be seen",
			sent, describe(res, err), describe(nil, gerr))
	}
	if !now.Status.Terminal() {
		c.breakf("%s; it answered %s, and tasks/get then reports the task %q\n"+
			"expected: tasks/result of a task that is working or input_required MUST block until the task reaches a "+
			"terminal status (specification 2025-11-25, basic/utilities/tasks, \"Result Retrieval\")", sent, describe(res, err), now.Status)
		return
	}
	c.notef("task %s: tasks/result answered once it was %s", task.ID, now.Status)
}

// taskRelatedMeta sends tasks/get (and at 2025-11-25 tasks/result) for a
// task with related-task metadata naming another one: the taskId param
// names the target, the metadata is ignored. The results of tasks/get
// carry no related-task metadata (SHOULD NOT).
func (c *state) taskRelatedMeta(tk *tasks) {
	cn := tk.conn(c)
	for len(tk.created) < 2 { // a task that exists for the metadata to name: a server that reads it answers for that one
		c.anyTask(tk, cn)
	}
	target, other := tk.created[len(tk.created)-1], tk.created[0]
	meta := client.WithMeta(client.Meta{metaRelatedTask: map[string]any{"taskId": other}})
	sent := fmt.Sprintf("sent tasks/get for task %s with _meta[%q] = {\"taskId\": %q}, another task the checks made", target, metaRelatedTask, other)
	ctx, cancel := c.ctx()
	got, err := cn.cl.GetTask(ctx, target, meta)
	cancel()
	c.noLeak("tasks/get "+target, got, err)
	if timedOut(err) {
		ctx, cancel := c.ctx()
		_, plain := cn.cl.GetTask(ctx, target)
		cancel()
		if plain != nil {
			c.skipf("%s; no answer within %v, nor to the same tasks/get without the metadata (%s): the server is too busy to judge", sent, c.s.timeout, describe(nil, plain))
		}
		cn.abandoned = true
		c.breakf("%s; no answer within %v, while the same tasks/get without the metadata was answered at once\n"+
			"expected: the task the taskId parameter names: receivers MUST ignore related-task metadata on tasks/get, tasks/result "+
			"and tasks/cancel in favour of the taskId parameter (specification 2025-11-25, basic/utilities/tasks, "+
			"\"Associating Task-Related Messages\")", sent, c.s.timeout)
		return
	}
	task := &client.Task{ID: target}
	const want = "expected: the task the taskId parameter names: for tasks/get, tasks/result and tasks/cancel the taskId parameter " +
		"MUST be the source of truth, and receivers MUST ignore related-task metadata in favour of it (specification 2025-11-25, " +
		"basic/utilities/tasks, \"Associating Task-Related Messages\")"
	if brokeConnection(cn, err) {
		c.fatalf("%s; the connection broke: %v", sent, err)
	}
	if err != nil {
		c.breakf("%s; got %s\n%s", sent, describe(nil, err), want)
		return
	}
	if got.Meta != nil && got.Meta[metaRelatedTask] != nil {
		c.warnf("%s; the tasks/get result carries _meta[%q]: %s\n"+
			"expected: none: receivers SHOULD NOT include related-task metadata in the results of tasks/get, tasks/list and "+
			"tasks/cancel, which name the task already (specification 2025-11-25, basic/utilities/tasks)", sent, metaRelatedTask, compactJSON(got.Meta[metaRelatedTask]))
	}
	c.notef("tasks/get answered for %s, the task its taskId names, not %s, the task of the metadata", task.ID, other)
	if cn.modern() {
		return
	}
	ctx, cancel = c.ctx()
	res, err := cn.cl.TaskResult(ctx, task.ID, meta)
	cancel()
	c.noLeak("tasks/result "+task.ID, res, err)
	sent = strings.Replace(sent, "tasks/get", "tasks/result", 1)
	switch {
	case brokeConnection(cn, err):
		c.fatalf("%s; the connection broke: %v", sent, err)
	case timedOut(err):
		cn.abandoned = true
		c.notef("%s; no answer within %v (the task had not ended)", sent, c.s.timeout)
	case err == nil && relatedTask(res.Meta) == other:
		c.breakf("%s; the result's related-task metadata names %q, the task of the metadata\n%s", sent, other, want)
	}
}

// taskList checks tasks/list (2025-11-25, capabilities.tasks.list): every
// task tasks/get can see is listed, following nextCursor; a cursor the
// server never gave is -32602.
func (c *state) taskList(tk *tasks) {
	cn := tk.conn(c)
	if cn.modern() {
		c.skipf("tasks/list is a 2025-11-25 method: the 2026-07-28 tasks extension has none")
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(cn.cl.ServerCapabilities().Tasks, &caps) != nil || len(caps["list"]) == 0 || string(caps["list"]) == "null" {
		c.skipf("the server does not declare tasks.list")
	}
	for len(tk.created) < 2 { // one task in one page shows nothing of paging
		c.anyTask(tk, cn)
	}
	listed := map[string]bool{}
	pages, related := 0, 0
	var cursor string
	for {
		ctx, cancel := c.ctx()
		page, err := cn.cl.ListTasks(ctx, cursor)
		cancel()
		if brokeConnection(cn, err) {
			c.fatalf("tasks/list; the connection broke: %v", err)
		}
		if err != nil {
			c.breakf("tasks/list (page %d) got %s\nexpected: a page of tasks (the server declares tasks.list)", pages+1, describe(nil, err))
			return
		}
		pages++
		if page.Meta != nil && page.Meta[metaRelatedTask] != nil {
			related++
		}
		for _, t := range page.Tasks {
			listed[t.ID] = true
		}
		if !page.HasNextPage() || pages == maxTaskPages {
			break
		}
		cursor = page.NextCursor
	}
	var missing []string
	for _, id := range tk.created {
		if listed[id] {
			continue
		}
		ctx, cancel := c.ctx()
		got, err := cn.cl.GetTask(ctx, id)
		cancel()
		if err == nil && got.ID == id {
			missing = append(missing, fmt.Sprintf("%s (%s)", id, got.Status))
		}
	}
	if len(missing) > 0 {
		c.breakf("listed the tasks with tasks/list (%d page(s), following nextCursor; %d task(s)); tasks/get still reports %d "+
			"of the tasks the checks made on this connection, which the list left out: %s\n"+
			"expected: a task retrievable via tasks/get MUST be retrievable via tasks/list, with a nextCursor in each "+
			"page while more tasks are available (specification 2025-11-25, basic/utilities/tasks, \"Listing Tasks\")",
			pages, len(listed), len(missing), strings.Join(cutList(missing, 5), ", "))
	}
	if related > 0 {
		c.warnf("%d page(s) of tasks/list carry _meta[%q]\nexpected: none: receivers SHOULD NOT include related-task metadata in "+
			"the results of tasks/get, tasks/list and tasks/cancel (specification 2025-11-25, basic/utilities/tasks)", related, metaRelatedTask)
	}
	const bogus = "mcptestkit-no-such-cursor"
	ctx, cancel := c.ctx()
	page, err := cn.cl.ListTasks(ctx, bogus)
	cancel()
	if brokeConnection(cn, err) {
		c.fatalf("tasks/list with cursor %q; the connection broke: %v", bogus, err)
	}
	if e, ok := errorCode(err); !ok || e.Code != client.CodeInvalidParams {
		c.breakf("sent tasks/list with the cursor %q, which the server never gave out; got %s\n"+
			"expected: JSON-RPC error -32602: an invalid or nonexistent cursor in tasks/list MUST be -32602 (specification "+
			"2025-11-25, basic/utilities/tasks, \"Protocol Errors\")", bogus, describe(page, err))
	}
	c.notef("tasks/list: %d task(s) in %d page(s); all %d made on this connection that tasks/get reports are listed", len(listed), pages, len(tk.created))
}

// maxTaskPages bounds the pages of tasks/list read.
const maxTaskPages = 100

// taskForbidden calls a tool that does not support tasks (no
// execution.taskSupport, or "forbidden") as a task: a server SHOULD refuse
// with -32601 (2025-11-25).
func (c *state) taskForbidden(tk *tasks) {
	cn := tk.conn(c)
	c.legacyOnly(cn, `taskSupport "forbidden"`)
	var t *client.Tool
	for _, x := range c.s.inv.tools {
		if x.TaskSupport() == client.TaskSupportForbidden { // absent reads as forbidden
			t = x
			break
		}
	}
	if t == nil {
		c.skipf("every tool the server lists supports tasks")
	}
	args := c.conformingArgs(t)
	ctx, cancel := c.ctx()
	task, err := cn.cl.CallToolAsTask(ctx, t.Name, args)
	cancel()
	sent := fmt.Sprintf("called tool %q, whose execution.taskSupport is \"forbidden\" (or absent), as a task (params.task), with arguments %s",
		t.Name, compactJSON(args))
	const want = "expected: JSON-RPC error -32601 (Method not found): a server SHOULD refuse a task-augmented call of a tool " +
		"that does not support tasks (specification 2025-11-25, basic/utilities/tasks, \"Tool-Level Negotiation\")"
	switch e, ok := errorCode(err); {
	case brokeConnection(cn, err):
		c.fatalf("%s; the connection broke: %v", sent, err)
	case ok && e.Code == client.CodeMethodNotFound:
	case err != nil:
		c.breakf("%s; got %s\n%s", sent, describe(nil, err), want)
	case task.ID != "":
		tk.created = append(tk.created, task.ID)
		c.breakf("%s; the server made a task of it (%s)\n%s", sent, task.ID, want)
	default:
		c.breakf("%s; the server ran it as a plain call: %s\n%s", sent, describe(task.Result, nil), want)
	}
}
