package servercheck

import (
	"encoding/json"
	"maps"

	"github.com/mcptestkit/mcptestkit/client"
)

// The protocol errors of the task methods: a task the server never gave
// out.

// unknownTask checks that tasks/get of an id the server never gave out is
// -32602, and so are (2025-11-25, MUST) tasks/result and tasks/cancel, and
// (2026-07-28, SHOULD) tasks/cancel and tasks/update.
func (c *state) unknownTask(tk *tasks) {
	cn := tk.conn(c)
	const id = "mcptestkit-no-such-task"
	ctx, cancel := c.ctx()
	got, err := cn.cl.GetTask(ctx, id)
	cancel()
	c.noLeak("tasks/get "+id, got, err)
	if e, ok := errorCode(err); !ok || e.Code != client.CodeInvalidParams {
		c.breakf("sent tasks/get for task %q, which the server never gave out; got %s\n"+
			"expected: JSON-RPC error -32602 (Invalid params): an unknown taskId MUST be -32602 "+
			"(specification, basic/utilities/tasks, \"Error Handling\"; the 2026-07-28 tasks extension keeps the rule)", id, describe(got, err))
	}
	if !cn.modern() {
		ctx, cancel := c.ctx()
		res, err := cn.cl.TaskResult(ctx, id)
		cancel()
		c.unknownTaskAnswer(cn, "tasks/result", res, err, true)
		ctx, cancel = c.ctx()
		task, err := cn.cl.CancelTask(ctx, id)
		cancel()
		c.unknownTaskAnswer(cn, "tasks/cancel", task, err, true)
		return
	}
	ctx, cancel = c.ctx()
	task, err := cn.cl.CancelTask(ctx, id)
	cancel()
	c.unknownTaskAnswer(cn, "tasks/cancel", task, err, false)
	// tasks/update has no method of the client's own: it is sent raw, on a
	// connection that declares the extension on every request.
	ext, err := c.s.openWith(client.Version20260728, declareTasks)
	if err != nil {
		if ext != nil {
			ext.close()
		}
		c.notef("tasks/update not sent: a connection declaring the tasks extension failed: %v", err)
		return
	}
	defer ext.close()
	ctx, cancel = c.ctx()
	defer cancel()
	raw, err := c.use(ext).cl.Call(ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{}})
	c.unknownTaskAnswer(ext, "tasks/update", raw, err, false)
}

// unknownTaskAnswer judges the answer to a task method for a task the
// server never gave out: -32602, a MUST (must) or a SHOULD.
func (c *state) unknownTaskAnswer(cn *conn, method string, res any, err error, must bool) {
	const id = "mcptestkit-no-such-task"
	c.noLeak(method+" "+id, res, err)
	if brokeConnection(cn, err) {
		c.fatalf("sent %s for task %q, which the server never gave out; the connection broke: %v", method, id, err)
	}
	if e, ok := errorCode(err); ok && e.Code == client.CodeInvalidParams {
		return
	}
	if err == nil {
		if raw, ok := res.(json.RawMessage); ok {
			res = cut(string(raw), 300)
		}
	}
	if must {
		c.breakf("sent %s for task %q, which the server never gave out; got %s\n"+
			"expected: JSON-RPC error -32602 (Invalid params): an invalid or nonexistent taskId in tasks/get, tasks/result or "+
			"tasks/cancel MUST be -32602 (specification 2025-11-25, basic/utilities/tasks, \"Protocol Errors\")", method, id, describe(res, err))
		return
	}
	c.warnf("sent %s for task %q, which the server never gave out; got %s\n"+
		"expected: JSON-RPC error -32602 (Invalid params): servers SHOULD return it for tasks/update and tasks/cancel of a "+
		"task they do not know (tasks extension, \"Protocol Errors\")", method, id, describe(res, err))
}

// declareTasks makes a connection's client declare the tasks extension on
// every request.
func declareTasks(o *client.Options) {
	caps := client.Capabilities{}
	if o.Capabilities != nil {
		caps = *o.Capabilities
	}
	ext := maps.Clone(caps.Extensions)
	if ext == nil {
		ext = map[string]json.RawMessage{}
	}
	ext[client.ExtensionTasks] = json.RawMessage("{}")
	caps.Extensions = ext
	o.Capabilities = &caps
}
