package servercheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
)

// The checks of what a server does with task metadata a request does not
// back: at 2026-07-28 a request that does not declare the tasks extension,
// at 2025-11-25 a "task" param the server did not offer.

// taskNoExtension calls a tool that made a task, and the task methods, in
// requests that do not declare the tasks extension (2026-07-28): no
// CreateTaskResult; the call is served, or refused with -32021 naming the
// extension; tasks/get, tasks/update and tasks/cancel are -32021.
func (c *state) taskNoExtension(tk *tasks) {
	cn := tk.conn(c)
	if !cn.modern() {
		c.skipf("the tasks extension is a 2026-07-28 rule; at 2025-11-25 the client asks for a task with params.task")
	}
	if caps := c.s.opts.Client.Capabilities; caps != nil {
		if _, ok := caps.Extensions[client.ExtensionTasks]; ok {
			c.skipf("Options.Client declares the tasks extension on every request, so no request of the checks goes without it")
		}
	}
	t, task := c.anyTask(tk, cn)
	args := c.conformingArgs(t)
	// The task's outcome says what the call does when served: a call
	// refused without the extension with the error the task failed with is
	// no breach.
	ctx, cancel := c.ctx()
	_, outcome := cn.cl.WaitTask(ctx, task.ID)
	cancel()
	if brokeConnection(cn, outcome) {
		c.fatalf("called tool %q as a task (%s) and waited for it; the connection broke: %v", t.Name, task.ID, outcome)
	}
	ended := !timedOut(outcome)
	if !ended {
		cn.abandoned = true
	}
	ctx, cancel = c.ctx()
	raw, err := cn.cl.Call(ctx, "tools/call", map[string]any{"name": t.Name, "arguments": args})
	cancel()
	c.noLeak(fmt.Sprintf("tools/call %q", t.Name), raw, err)
	sent := fmt.Sprintf("called tool %q with arguments %s, which made task %s when the request declared the tasks extension, in a "+
		"request that does not declare it", t.Name, compactJSON(args), task.ID)
	var res struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
	}
	e, isRPC := errorCode(err)
	switch {
	case brokeConnection(cn, err):
		c.fatalf("%s; the connection broke: %v", sent, err)
	case isRPC && e.Code == client.CodeMissingRequiredClientCapability:
		if !namesTasksExtension(e.Data) {
			c.breakf("%s; got %s\nexpected: the -32021 error indicates the required extension: data.requiredCapabilities.extensions[%q] "+
				"(tasks extension, \"Capability Negotiation\")", sent, describe(nil, err), client.ExtensionTasks)
		}
	case isRPC:
		var te *client.Error
		if ended && errors.As(outcome, &te) && te.Code == e.Code {
			c.notef("%s; it answered %s, as the task ended", sent, describe(nil, err))
			break
		}
		if !ended || outcome != nil {
			c.notef("%s; it answered %s (the task ended %s, so it may be the call's own failure)", sent, describe(nil, err), describeOutcome(ended, outcome))
			break
		}
		c.breakf("%s; got %s, though the task it made with the extension completed\n"+
			"expected: the call served, or JSON-RPC error -32021 (Missing Required Client Capability) indicating the tasks extension: "+
			"a server unable to serve the request without a task MUST return -32021 (tasks extension, \"Capability Negotiation\")", sent, describe(nil, err))
	case err != nil:
		c.fatalf("%s; got %s", sent, describe(nil, err))
	case json.Unmarshal(raw, &res) == nil && res.ResultType == "task":
		if res.TaskID != "" {
			tk.created = append(tk.created, res.TaskID)
		}
		c.breakf("%s; it answered with a CreateTaskResult (task %q): %s\n"+
			"expected: the call's result, or JSON-RPC error -32021: a server MUST NOT return CreateTaskResult to a client that "+
			"did not include the extension capability on its request, regardless of prior declarations (tasks extension, "+
			"\"Capability Negotiation\")", sent, res.TaskID, cut(string(raw), 300))
	}
	for _, m := range []struct {
		method string
		params map[string]any
	}{
		{"tasks/get", map[string]any{"taskId": task.ID}},
		{"tasks/update", map[string]any{"taskId": task.ID, "inputResponses": map[string]any{}}},
		{"tasks/cancel", map[string]any{"taskId": task.ID}},
	} {
		ctx, cancel := c.ctx()
		raw, err := cn.cl.Call(ctx, m.method, m.params)
		cancel()
		c.noLeak(m.method+" "+task.ID, raw, err)
		if brokeConnection(cn, err) {
			c.fatalf("sent %s for task %s without declaring the tasks extension; the connection broke: %v", m.method, task.ID, err)
		}
		if e, ok := errorCode(err); !ok || e.Code != client.CodeMissingRequiredClientCapability {
			got := describe(nil, err)
			if err == nil {
				got = "a result: " + cut(string(raw), 300)
			}
			c.breakf("sent %s for task %s (made with the extension declared) in a request that does not declare the tasks "+
				"extension; got %s\nexpected: JSON-RPC error -32021 (Missing Required Client Capability): servers MUST return it "+
				"for non-declaring clients issuing tasks/get, tasks/update and tasks/cancel (tasks extension, \"Protocol Errors\")",
				m.method, task.ID, got)
		}
	}
	c.notef("without the tasks extension declared: tools/call %q %s; tasks/get, tasks/update and tasks/cancel of task %s refused", t.Name, describeNoExtCall(raw, err), task.ID)
}

func describeNoExtCall(raw json.RawMessage, err error) string {
	if err != nil {
		return "answered " + describe(nil, err)
	}
	return "answered with a result"
}

func describeOutcome(ended bool, outcome error) string {
	switch {
	case !ended:
		return fmt.Sprintf("not, in time (%v)", outcome)
	case outcome == nil:
		return "with a result"
	}
	return "with " + describe(nil, outcome)
}

// namesTasksExtension reports whether a -32021 error's data names the
// tasks extension among the required capabilities.
func namesTasksExtension(data json.RawMessage) bool {
	var d struct {
		Required struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"requiredCapabilities"`
	}
	if json.Unmarshal(data, &d) != nil {
		return false
	}
	_, ok := d.Required.Extensions[client.ExtensionTasks]
	return ok
}

// taskParamIgnored calls a tool as a task (params.task) on a 2025-11-25
// connection whose server does not declare tasks for tools/call: it MUST
// process the call normally, ignoring the task metadata.
func (c *state) taskParamIgnored() {
	cn, done := c.legacyTasksConn()
	defer done()
	var tried []string
	for _, t := range c.s.inv.tools {
		if len(tried) == maxTaskTries {
			break
		}
		args := c.conformingArgs(t)
		ctx, cancel := c.ctx()
		plain, err := cn.cl.CallTool(ctx, t.Name, args)
		cancel()
		if brokeConnection(cn, err) {
			// The tool's crash, which tools/calls reports: nothing about
			// the task param, and no connection left to try another tool.
			c.skipf("called tool %q with arguments %s, as a plain call to compare with; the connection broke: %v", t.Name, compactJSON(args), err)
		}
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %s", t.Name, describe(nil, err)))
			continue
		}
		ctx, cancel = c.ctx()
		task, err := cn.cl.CallToolAsTask(ctx, t.Name, args)
		cancel()
		c.noLeak(fmt.Sprintf("tools/call %q", t.Name), task, err)
		sent := fmt.Sprintf("called tool %q with arguments %s, which answered a plain call with %s, again with params.task; the server "+
			"does not declare tasks for tools/call (capabilities.tasks.requests.tools.call)", t.Name, compactJSON(args), describe(plain, nil))
		const want = "expected: the call processed normally: receivers that do not declare the task capability for a request type " +
			"MUST process requests of that type normally, ignoring any task-augmentation metadata (specification 2025-11-25, " +
			"basic/utilities/tasks, \"Task Support and Handling\")"
		switch {
		case brokeConnection(cn, err):
			c.fatalf("%s; the connection broke: %v", sent, err)
		case err != nil:
			c.breakf("%s; got %s\n%s", sent, describe(nil, err), want)
		case task.ID != "":
			c.breakf("%s; it made a task of it (%s)\n%s", sent, task.ID, want)
		default:
			c.notef("tool %q: the task-augmented call was answered as a plain one", t.Name)
		}
		return
	}
	if len(tried) == 0 {
		c.skipf("the server lists no tool")
	}
	c.skipf("no tool answered a plain call with conforming arguments, to compare with (%s)", strings.Join(cutList(tried, 3), "; "))
}

// legacyTasksConn returns a 2025-11-25 connection whose server does not
// declare tasks for tools/call, and what closes it, or skips the check
// saying why there is none.
func (c *state) legacyTasksConn() (*conn, func()) {
	main := c.main()
	v := main.cl.ProtocolVersion()
	switch {
	case !main.modern() && v < client.Version20251125:
		c.skipf("tasks arrived in protocol version 2025-11-25; the checks run at %s", v)
	case !main.modern():
		if main.cl.SupportsTasks() {
			c.skipf("the server declares tasks for tools/call; tasks/forbidden checks a task-augmented call of a tool that does not support them")
		}
		return main, func() {}
	case c.s.opts.Version != "":
		c.skipf("the task param of tools/call is a 2025-11-25 field; the checks are pinned to %s", v)
	case !slices.Contains(main.cl.ServerVersions(), client.Version20251125):
		c.skipf("the task param of tools/call is a 2025-11-25 field; the server speaks %s and does not offer 2025-11-25", v)
	}
	if declared, known := c.s.tasksAt[client.Version20251125]; known && declared {
		c.skipf("at 2025-11-25 the server declares tasks for tools/call; tasks/forbidden checks a task-augmented call of a tool that does not support them")
	}
	cn, err := c.s.open(client.Version20251125)
	if err != nil {
		if cn != nil {
			cn.close()
		}
		c.skipf("the handshake at 2025-11-25, which the server offers, failed: %v", err)
	}
	if cn.cl.SupportsTasks() {
		cn.close()
		c.skipf("at 2025-11-25 the server declares tasks for tools/call; tasks/forbidden checks a task-augmented call of a tool that does not support them")
	}
	c.notef("checked at 2025-11-25, which the server offers: the task param of tools/call is a 2025-11-25 field")
	return c.use(cn), cn.close
}
