package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// CallToolAsTask calls the tool as a task ([WithTask], with the TTL that
// option gives, if any) and returns the task as the server created it, once
// it has: follow it with [Client.WaitTask], [Client.GetTask],
// [Client.CancelTask]. A server may run the call at once instead (at
// 2026-07-28 the server decides; at 2025-11-25 a server runs a tool that
// does not support tasks as a plain call): then the Task has no ID, status
// completed, and its Result is the answer. Errors are those of
// [Client.CallTool]. A progress handler ([WithProgress]) receives progress
// only until CallToolAsTask returns; [Client.CallTool] with [WithTask]
// follows the task to its end.
func (c *Client) CallToolAsTask(ctx context.Context, name string, args any, opts ...CallOption) (*Task, error) {
	co := collect(opts)
	co.asTask = true
	obj, err := toolCallParams(name, args)
	if err != nil {
		return nil, err
	}
	o := op{methodCallTool, name}
	if err := c.taskVersionError(o, false); err != nil {
		return nil, err
	}
	res, task, err := c.startToolCall(ctx, o, obj, &co)
	if err != nil {
		return nil, err
	}
	if task == nil {
		return &Task{Status: TaskCompleted, Result: res}, nil
	}
	return task, nil
}

// callToolTask is [Client.CallTool] for a call that may become a task:
// one bound (the call's timeout) covers the call and the wait, and the
// progress token lives until the task ends.
func (c *Client) callToolTask(ctx context.Context, o op, obj []byte, co *callOptions) (*CallToolResult, error) {
	if co.asTask {
		if err := c.taskVersionError(o, false); err != nil {
			return nil, err
		}
	}
	ctx, cancel := c.withTimeout(ctx, co)
	defer cancel()
	inner := *co
	inner.timeout = 0 // ctx bounds it all
	token, sink, forget := c.trackProgress(co)
	defer forget()
	if sink != nil {
		sink.outlivesResponse() // a task's progress goes on after the response
	}
	inner.progress, inner.token, inner.sink = nil, token, sink
	res, task, err := c.startToolCall(ctx, o, obj, &inner)
	if err != nil || task == nil {
		if sink != nil {
			sink.answered()
		}
		return res, err
	}
	inner.meta = nil // the call's, not the polls'
	res, err = c.waitTask(ctx, task.ID, &inner, task)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o, err)
	}
	return res, nil
}

// startToolCall sends a tools/call that may become a task and returns its
// result, or the task the server made of it. At 2025-11-25 the params ask
// for a task ("task") when co.asTask; at 2026-07-28 the request declares the
// tasks extension.
func (c *Client) startToolCall(ctx context.Context, o op, obj []byte, co *callOptions) (*CallToolResult, *Task, error) {
	modern := c.IsModern()
	if co.asTask && !modern {
		ttl := []byte("{}")
		if co.taskTTL > 0 {
			ttl = strconv.AppendInt([]byte(`{"ttl":`), co.taskTTL.Milliseconds(), 10)
			ttl = append(ttl, '}')
		}
		obj = append(append(append(obj[:len(obj)-1:len(obj)-1], `,"task":`...), ttl...), '}')
	}
	tc := *co
	tc.tasksExt, tc.acceptTask = modern, modern
	var res *CallToolResult
	var task *Task
	err := c.mrtr(ctx, o, obj, &tc, func(raw json.RawMessage) (*envelope, error) {
		var probe struct {
			ResultType string          `json:"resultType"`
			Task       json.RawMessage `json:"task"`
			Meta       Meta            `json:"_meta"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return nil, err
		}
		switch {
		case modern && probe.ResultType == resultTask:
			var w taskWire
			if err := json.Unmarshal(raw, &w); err != nil {
				return nil, err
			}
			if w.Result != nil || w.Error != nil || w.InputRequests != nil {
				return nil, errors.New("a CreateTaskResult (resultType task) carries result, error or inputRequests, which only tasks/get may")
			}
			t, err := w.task(o)
			if err != nil {
				return nil, err
			}
			c.trackTask(t, w.RequestState)
			task = t
			return &envelope{ResultType: resultTask}, nil
		case !modern && co.asTask && len(probe.Task) > 0 && string(probe.Task) != "null":
			var w taskWire
			if err := json.Unmarshal(probe.Task, &w); err != nil {
				return nil, err
			}
			t, err := w.task(o)
			if err != nil {
				return nil, err
			}
			if t.Meta == nil {
				t.Meta = probe.Meta // the CreateTaskResult's own _meta
			}
			task = t
			return &envelope{}, nil
		}
		var w callToolEnvelope
		if err := w.decode(raw); err != nil {
			return nil, err
		}
		if w.Content == nil {
			w.Content = []Content{}
		}
		res = &CallToolResult{Content: w.Content, StructuredContent: w.StructuredContent, IsError: w.IsError, Meta: w.Meta}
		return &w.envelope, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return res, task, nil
}

// WaitTask waits for the task to end and returns what its tools/call would
// have returned: the tool's result (isError for a failed tool) or the
// server's [*Error]. It polls tasks/get at the interval the server
// suggests ([DefaultTaskPollInterval] when it suggests none), and a status
// notification for the task cuts the sleep short. Once the task has ended,
// at 2025-11-25 it asks tasks/result for the outcome (and at once when the
// task needs input, so that the server can send its requests, which the
// Options callbacks answer); at 2026-07-28 the outcome comes with the task,
// and input requests are answered through the callbacks and sent back with
// tasks/update. A cancelled task is a [*TaskCancelledError]. ctx and the
// call's timeout ([Options].Timeout, [WithTimeout]) bound the whole wait;
// [WithTaskUpdates] follows it.
func (c *Client) WaitTask(ctx context.Context, id string, opts ...CallOption) (*CallToolResult, error) {
	co := collect(opts)
	if err := c.taskVersionError(op{methodGetTask, id}, false); err != nil {
		return nil, err
	}
	ctx, cancel := c.withTimeout(ctx, &co)
	defer cancel()
	inner := co
	inner.timeout = 0
	return c.waitTask(ctx, id, &inner, nil)
}

// waitTask follows task id until it ends; created is its state as created,
// if known.
func (c *Client) waitTask(ctx context.Context, id string, co *callOptions, created *Task) (*CallToolResult, error) {
	w := c.watchTask(id)
	defer c.unwatchTask(id, w)
	var last *Task
	report := func(t *Task) {
		if co.taskUpdates != nil && (last == nil || t.Status != last.Status || t.StatusMessage != last.StatusMessage) {
			last = t
			co.taskUpdates(t)
		}
	}
	if created != nil {
		report(created)
	}
	// Ask at once, now that a notification would wake this wait: the task
	// may have changed before (a CreateTaskResult never carries the outcome).
	cur, err := c.getTask(ctx, id, co)
	if err != nil {
		return nil, err
	}
	report(cur)
	answered := map[string]bool{} // 2026-07-28: input requests already answered
	modern := c.IsModern()
	for {
		switch cur.Status {
		case TaskCancelled:
			return nil, &TaskCancelledError{Task: cur}
		case TaskCompleted, TaskFailed:
			switch {
			case !modern:
				return c.taskResult(ctx, id, co)
			case cur.Status == TaskCompleted && cur.Result != nil:
				return cur.Result, nil
			case cur.Status == TaskFailed && cur.Error != nil:
				return nil, cur.Error
			}
			what := "result"
			if cur.Status == TaskFailed {
				what = "error"
			}
			return nil, fmt.Errorf("%s: the task is %s, and the server sent no %s with it", op{methodGetTask, id}, cur.Status, what)
		case TaskInputRequired:
			if !modern {
				// The server sends its requests for input while it answers
				// tasks/result, which returns once the task has ended.
				return c.taskResult(ctx, id, co)
			}
			if err := c.answerTaskInput(ctx, id, cur, answered, co); err != nil {
				return nil, err
			}
		}
		interval := cur.PollInterval
		if interval <= 0 {
			interval = DefaultTaskPollInterval
		}
		timer := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("waiting for task %q: %w", id, context.Cause(ctx))
		case <-w.wake:
			timer.Stop()
			for _, t := range w.take() {
				report(t)
			}
		case <-timer.C:
		}
		if cur, err = c.getTask(ctx, id, co); err != nil {
			return nil, err
		}
		report(cur)
	}
}

// answerTaskInput answers the input requests of a 2026-07-28 task that the
// client has not answered yet, through the Options callbacks, and sends the
// answers with tasks/update.
func (c *Client) answerTaskInput(ctx context.Context, id string, t *Task, answered map[string]bool, co *callOptions) error {
	fresh := map[string]inputRequest{}
	for k, r := range t.inputRequests {
		if !answered[k] {
			fresh[k] = r
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	responses, err := c.fulfil(ctx, fresh)
	if err != nil {
		return &InputRequiredError{Method: methodUpdateTask, Name: id, Rounds: 1, Reason: "answering the task's input requests failed", Err: err}
	}
	o := op{methodUpdateTask, id}
	raw, err := c.taskCall(ctx, o, c.taskParams(id, member{"inputResponses", responses}), co)
	if err != nil {
		return err
	}
	if err := checkEnvelope(o, raw); err != nil {
		return err
	}
	for k := range fresh {
		answered[k] = true
	}
	return nil
}

// taskWatch receives the status notifications of a task someone waits for.
type taskWatch struct {
	mu    sync.Mutex
	tasks []*Task
	wake  chan struct{} // a token when tasks is not empty
}

func (w *taskWatch) push(t *Task) {
	w.mu.Lock()
	if len(w.tasks) < 64 { // a server flooding notifications loses the middle
		w.tasks = append(w.tasks, t)
	} else {
		w.tasks[len(w.tasks)-1] = t
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *taskWatch) take() []*Task {
	w.mu.Lock()
	defer w.mu.Unlock()
	ts := w.tasks
	w.tasks = nil
	return ts
}

func (c *Client) watchTask(id string) *taskWatch {
	w := &taskWatch{wake: make(chan struct{}, 1)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.taskWatches == nil {
		c.taskWatches = map[string][]*taskWatch{}
	}
	c.taskWatches[id] = append(c.taskWatches[id], w)
	return w
}

func (c *Client) unwatchTask(id string, w *taskWatch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ws := c.taskWatches[id]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(c.taskWatches, id)
	} else {
		c.taskWatches[id] = ws
	}
}

// taskNotified handles a task status notification (reader goroutine):
// it records the task's requestState, runs Options.OnTaskStatus and wakes
// those waiting for the task.
func (c *Client) taskNotified(msg *jsonrpc.Message, callback *string) {
	o := op{method: msg.Method}
	t, err := c.decodeTask(o, msg.Params)
	if err != nil {
		c.dropped(msg, err)
		return
	}
	c.mu.Lock()
	ws := c.taskWatches[t.ID]
	c.mu.Unlock()
	for _, w := range ws {
		w.push(t)
	}
	if f := c.opts.OnTaskStatus; f != nil {
		*callback = "OnTaskStatus"
		f(t)
	}
}

// toolCallParams encodes the params of tools/call: name and arguments.
func toolCallParams(name string, args any) ([]byte, error) {
	a, err := objectJSON("tool arguments", args)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", methodCallTool, name, err)
	}
	obj := make([]byte, 0, 24+len(name)+len(a))
	obj = jsonrpc.AppendString(append(obj, `{"name":`...), name)
	if a != nil {
		obj = append(append(obj, `,"arguments":`...), a...)
	}
	return append(obj, '}'), nil
}
