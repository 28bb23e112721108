package servercheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
)

// taskNotifications checks the status notifications the server sent on the
// task connection: each a task, a terminal status never followed by another,
// the last agreeing with tasks/get; those about tasks of other connections
// are noted.
func (c *state) taskNotifications(tk *tasks) {
	cn := tk.conn(c)
	ctx, cancel := c.ctx()
	_, _ = cn.cl.ListTools(ctx, "") // a round trip: what the server had in flight has come
	cancel()
	ours, notes := cn.tap.taskTraffic()
	if len(notes) == 0 {
		c.skipf("the server sent no task status notifications on the connection (they are optional)")
	}
	var bad, foreign []string
	last := map[string]client.TaskStatus{}
	statuses := []client.TaskStatus{client.TaskWorking, client.TaskInputRequired, client.TaskCompleted, client.TaskFailed, client.TaskCancelled}
	for _, n := range notes {
		var w struct {
			TaskID string            `json:"taskId"`
			Status client.TaskStatus `json:"status"`
		}
		if json.Unmarshal(n.params, &w) != nil || w.TaskID == "" || !slices.Contains(statuses, w.Status) {
			bad = append(bad, fmt.Sprintf("%s %s is not a task (taskId and a status of working, input_required, completed, failed, cancelled)",
				n.method, cut(string(n.params), 200)))
			continue
		}
		if !ours[w.TaskID] {
			foreign = append(foreign, w.TaskID)
			continue
		}
		if prev, ok := last[w.TaskID]; ok && prev.Terminal() && prev != w.Status {
			bad = append(bad, fmt.Sprintf("task %s: %s after %s, a terminal status", w.TaskID, w.Status, prev))
		}
		last[w.TaskID] = w.Status
	}
	for id, st := range last {
		if !st.Terminal() {
			continue
		}
		ctx, cancel := c.ctx()
		got, err := cn.cl.GetTask(ctx, id)
		cancel()
		if err == nil && got.Status != st {
			bad = append(bad, fmt.Sprintf("task %s: notified %s, and tasks/get reports %s", id, st, got.Status))
		}
	}
	if len(bad) > 0 {
		c.breakf("the task status notifications contradict the tasks:\n"+
			"%s\n"+
			"expected: each notification carries the task's state; a terminal status (completed, failed, "+
			"cancelled) never changes (specification, basic/utilities/tasks)", strings.Join(bad, "\n"))
	}
	if len(foreign) > 0 {
		ids := slices.Compact(slices.Sorted(slices.Values(foreign)))
		c.warnf("the server sent this connection status notifications for %d task(s) it did not create (%s)\n"+
			"expected: notifications about a task only to its requestor: tasks are bound to the context that "+
			"created them, and their ids must not reach other clients (specification, basic/utilities/tasks, "+
			"\"Security Considerations\")", len(ids), strings.Join(cutList(ids, 3), ", "))
	}
	c.notef("%d status notification(s) for %d task(s) of this connection", len(notes)-len(foreign), len(last))
}

func cutList(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(slices.Clone(s[:n]), fmt.Sprintf("and %d more", len(s)-n))
}

// taskNote is a task status notification the tap saw.
type taskNote struct {
	method string
	params json.RawMessage
}

// taskTraffic is what a connection's tap saw of tasks: the ids of the tasks
// the server created for its tools/call requests, and the status
// notifications, in order. It is kept apart from the frames, which a chatty
// connection rolls over.
type taskTraffic struct {
	ours  map[string]bool
	notes []taskNote
}

// maxTaskNotes bounds the notifications kept.
const maxTaskNotes = 1000

// see records a message from the server; the tap's lock is held.
func (tt *taskTraffic) see(method string, msg []byte) {
	if method == "notifications/tasks/status" || method == "notifications/tasks" {
		var m struct {
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(msg, &m) == nil && len(tt.notes) < maxTaskNotes {
			tt.notes = append(tt.notes, taskNote{method, m.Params})
		}
		return
	}
	if method != "" || !bytes.Contains(msg, []byte(`"taskId"`)) {
		return
	}
	var m struct {
		Result *struct {
			ResultType string `json:"resultType"`
			TaskID     string `json:"taskId"`
			Task       *struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Result == nil {
		return
	}
	id := m.Result.TaskID
	if m.Result.Task != nil {
		id = m.Result.Task.TaskID // 2025-11-25 CreateTaskResult
	} else if m.Result.ResultType != "task" {
		return // tasks/get and such name tasks, not create them
	}
	if id != "" {
		if tt.ours == nil {
			tt.ours = map[string]bool{}
		}
		tt.ours[id] = true
	}
}

// taskTraffic returns what the tap saw of tasks.
func (t *tap) taskTraffic() (ours map[string]bool, notes []taskNote) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ours = make(map[string]bool, len(t.tasks.ours))
	for id := range t.tasks.ours {
		ours[id] = true
	}
	return ours, slices.Clone(t.tasks.notes)
}

// since returns the messages from mark on, with their direction.
func (t *tap) since(mark int) []frame {
	t.mu.Lock()
	defer t.mu.Unlock()
	from := min(max(mark-t.dropped, 0), len(t.frames))
	return slices.Clone(t.frames[from:])
}
