package servercheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
)

// taskListen follows a task's status on subscriptions/listen (2026-07-28
// tasks extension): no progress or log notification on that stream; and
// the same request without the extension declared is refused with -32021
// naming it.
func (c *state) taskListen(tk *tasks) {
	cn := tk.conn(c)
	if !cn.modern() {
		c.skipf("subscriptions/listen is a 2026-07-28 method; at 2025-11-25 task status notifications need no subscription")
	}
	mark := cn.tap.mark()
	t, task := c.anyTask(tk, cn, client.WithProgress(func(client.Progress) {}))
	ctx, cancel := c.ctx()
	sub, err := cn.cl.Listen(ctx, client.ListenFilter{TaskIDs: []string{task.ID}})
	cancel()
	if brokeConnection(cn, err) {
		c.fatalf("subscriptions/listen for task %s; the connection broke: %v", task.ID, err)
	}
	if err != nil {
		c.skipf("subscriptions/listen for the status of task %s, with the tasks extension declared, got %s: the server "+
			"sends no task status notifications (they are optional), so the rules of their stream do not apply", task.ID, describe(nil, err))
	}
	ctx, cancel = c.ctx()
	_, werr := cn.cl.WaitTask(ctx, task.ID)
	cancel()
	if brokeConnection(cn, werr) {
		c.fatalf("waiting for task %s; the connection broke: %v", task.ID, werr)
	}
	ended := !timedOut(werr)
	if !ended {
		cn.abandoned = true
	}
	ctx, cancel = c.ctx()
	_, _ = cn.cl.ListTools(ctx, "") // a round trip: what the server had in flight has come
	cancel()
	_ = sub.Close()
	onStream, elsewhere := listenStray(cn.tap.since(mark))
	sent := fmt.Sprintf("called tool %q as a task (%s) with a progress token, listened to its status (subscriptions/listen, "+
		"notifications.taskIds) and waited for it", t.Name, task.ID)
	if len(onStream) > 0 {
		c.breakf("%s; the listen stream carried %d progress or log notification(s): %s\n"+
			"expected: none: notifications/progress and notifications/message MUST NOT be sent on the subscriptions/listen "+
			"stream for a task (tasks extension, \"Task Status Notifications\")", sent, len(onStream), strings.Join(cutList(onStream, 3), "; "))
	} else if elsewhere == 0 {
		c.notef("%s; the server sent no progress or log notification at all, so none could stray onto the stream", sent)
	}
	c.listenUndeclared(cn, task.ID)
}

// listenStray returns the progress and log notifications sent on a
// subscriptions/listen stream for tasks (by the listen request's id, the
// subscription id), and counts those sent elsewhere.
func listenStray(frames []frame) (onStream []string, elsewhere int) {
	subs := map[string]bool{}
	for _, f := range frames {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Notifications struct {
					TaskIDs []string `json:"taskIds"`
				} `json:"notifications"`
				Meta struct {
					SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(f.data, &m) != nil {
			continue
		}
		switch {
		case f.out && m.Method == "subscriptions/listen" && len(m.Params.Notifications.TaskIDs) > 0:
			subs[string(compactRaw(m.ID))] = true
		case !f.out && (m.Method == "notifications/progress" || m.Method == "notifications/message"):
			if len(m.Params.Meta.SubscriptionID) > 0 && subs[string(compactRaw(m.Params.Meta.SubscriptionID))] {
				onStream = append(onStream, cut(string(f.data), 200))
			} else {
				elsewhere++
			}
		}
	}
	return onStream, elsewhere
}

func compactRaw(b json.RawMessage) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

// listenUndeclared asks for the task's status notifications without
// declaring the tasks extension: the server MUST refuse with -32021,
// specifying the missing capability.
func (c *state) listenUndeclared(cn *conn, taskID string) {
	if caps := c.s.opts.Client.Capabilities; caps != nil {
		if _, ok := caps.Extensions[client.ExtensionTasks]; ok {
			c.notef("subscriptions/listen without the tasks extension not sent: Options.Client declares it on every request")
			return
		}
	}
	params := modernMeta()
	params["notifications"] = map[string]any{"taskIds": []string{taskID}}
	id := rawPrefix + "listen-tasks"
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": params})
	ctx, cancel := c.ctx()
	data, err := cn.tap.raw(ctx, msg, id)
	cancel()
	sent := fmt.Sprintf("sent subscriptions/listen for the status of task %s (notifications.taskIds) without declaring the tasks extension", taskID)
	if brokeConnection(cn, err) {
		c.fatalf("%s; the connection broke: %v", sent, err)
	}
	if err != nil {
		c.skipf("%s; no answer within %v", sent, c.s.timeout)
	}
	var ans struct {
		Method string `json:"method"`
		Error  *struct {
			Code int64           `json:"code"`
			Data json.RawMessage `json:"data"`
		} `json:"error"`
	}
	_ = json.Unmarshal(data, &ans)
	const want = "expected: JSON-RPC error -32021 (Missing Required Client Capability) specifying the tasks extension in " +
		"data.requiredCapabilities: if a client requests task status notifications but does not declare the extension, the " +
		"server MUST return it (tasks extension, \"Task Status Notifications\", \"Protocol Errors\")"
	switch {
	case ans.Method != "":
		ctx, cancel := c.ctx()
		_ = cn.tap.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"`+id+`","reason":"a check"}}`))
		cancel()
		c.breakf("%s; the server acknowledged it: %s\n%s", sent, cut(string(data), 300), want)
	case ans.Error == nil:
		c.breakf("%s; it answered %s\n%s", sent, cut(string(data), 300), want)
	case ans.Error.Code != client.CodeMissingRequiredClientCapability || !namesTasksExtension(ans.Error.Data):
		c.breakf("%s; it answered %s\n%s", sent, cut(string(data), 300), want)
	}
}
