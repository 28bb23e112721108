package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// Tasks. A server may run a tools/call as a task: it answers at once with a
// task handle, and the client polls the task until it ends. The two eras
// differ on the wire, not in this API:
//
//   - 2025-11-25 (core, experimental): the client asks for a task with a
//     "task" member in the tools/call params, for a tool whose
//     execution.taskSupport is "optional" or "required"; the server answers
//     {"task": {...}}; tasks/get polls, tasks/result returns what the call
//     would have returned (blocking until the task ends), tasks/list pages
//     through the tasks, tasks/cancel cancels, and the server may send
//     notifications/tasks/status.
//   - 2026-07-28 (the io.modelcontextprotocol/tasks extension): the client
//     declares the extension in the request's capabilities and the server
//     decides; a task comes as a flat result with resultType "task";
//     tasks/get carries the outcome (result or error) once the task ends,
//     tasks/update answers its input requests, tasks/cancel only
//     acknowledges; there is no tasks/result and no tasks/list.

// Methods and names of tasks.
const (
	methodGetTask    = "tasks/get"
	methodTaskResult = "tasks/result"
	methodListTasks  = "tasks/list"
	methodCancelTask = "tasks/cancel"
	methodUpdateTask = "tasks/update"
	notifyTaskStatus = "notifications/tasks/status" // 2025-11-25
	notifyTasks      = "notifications/tasks"        // 2026-07-28, on a listen stream
	resultTask       = "task"
)

// ExtensionTasks is the identifier of the 2026-07-28 tasks extension. The
// client declares it on the requests that may create or concern a task
// ([WithTask], the task methods); declared in Options.Capabilities.Extensions
// it goes on every request, and [Client.CallTool] then follows any task the
// server makes of a call to its end.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// DefaultTaskPollInterval is how long a wait for a task ([Client.WaitTask],
// [WithTask]) sleeps between two tasks/get when the server suggests no
// interval. A status notification for the task ends the sleep at once.
const DefaultTaskPollInterval = 500 * time.Millisecond

// TaskStatus is the state of a task.
type TaskStatus string

// Task statuses. Completed, failed and cancelled are terminal: a task in
// one of them never changes again.
const (
	// TaskWorking: the request is being processed.
	TaskWorking TaskStatus = "working"
	// TaskInputRequired: the server needs input from the client (an
	// elicitation, a sampling); waiting for the task answers it through the
	// Options callbacks.
	TaskInputRequired TaskStatus = "input_required"
	// TaskCompleted: the request finished with a result; a tool that
	// failed (isError) completes too at 2026-07-28.
	TaskCompleted TaskStatus = "completed"
	// TaskFailed: the request failed (at 2026-07-28, with a JSON-RPC error
	// only; at 2025-11-25 also a tool result with isError).
	TaskFailed TaskStatus = "failed"
	// TaskCancelled: the request was cancelled before it finished.
	TaskCancelled TaskStatus = "cancelled"
)

// Terminal reports whether s is a final status: completed, failed or
// cancelled.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

func (s TaskStatus) known() bool { return s.Terminal() || s == TaskWorking || s == TaskInputRequired }

// Values of a tool's execution.taskSupport (2025-11-25), as
// [Tool.TaskSupport] returns them.
const (
	// TaskSupportForbidden: the tool cannot run as a task (the default).
	TaskSupportForbidden = "forbidden"
	// TaskSupportOptional: the tool runs as a plain call or as a task.
	TaskSupportOptional = "optional"
	// TaskSupportRequired: the tool runs only as a task; a plain call is
	// refused (-32601).
	TaskSupportRequired = "required"
)

// TaskSupport returns the tool's execution.taskSupport (2025-11-25):
// [TaskSupportForbidden] when the tool says nothing, else what it declares,
// as sent.
func (t *Tool) TaskSupport() string {
	var e struct {
		TaskSupport string `json:"taskSupport"`
	}
	if len(t.Execution) == 0 || json.Unmarshal(t.Execution, &e) != nil || e.TaskSupport == "" {
		return TaskSupportForbidden
	}
	return e.TaskSupport
}

// Task is the state of a task, as the server last reported it.
type Task struct {
	// ID is the task's identifier ("taskId"), which the task methods take.
	// Empty only for the answer of [Client.CallToolAsTask] when the server
	// ran the call at once instead of making a task (Result holds it).
	ID string
	// Status is the task's state.
	Status TaskStatus
	// StatusMessage describes the state for people; may be empty.
	StatusMessage string
	// CreatedAt and LastUpdatedAt are ISO 8601 timestamps, as sent.
	CreatedAt     string
	LastUpdatedAt string
	// TTL is how long after its creation the server keeps the task ("ttl"
	// at 2025-11-25, "ttlMs" at 2026-07-28); 0 when the server sets no
	// limit (null) or says nothing.
	TTL time.Duration
	// PollInterval is the server's suggested interval between two polls
	// ("pollInterval", "pollIntervalMs"); 0 when it suggests none.
	PollInterval time.Duration
	// Result is the outcome of a completed task when the server sends it
	// with the task: at 2026-07-28 (tasks/get and notifications carry it),
	// and for a call the server answered at once. Nil otherwise: at
	// 2025-11-25, tasks/result returns it ([Client.WaitTask] does that).
	Result *CallToolResult
	// Error is the JSON-RPC error of a failed task when the server sends it
	// with the task (2026-07-28).
	Error *Error
	// Meta is the "_meta" of the message that carried the task.
	Meta Meta

	inputRequests map[string]inputRequest // 2026-07-28, input_required
}

// TaskCancelledError is the error of a wait for a task that was cancelled
// (by tasks/cancel, or by the server). It wraps [ErrTaskCancelled].
type TaskCancelledError struct {
	// Task is the task as last reported: status cancelled.
	Task *Task
}

// ErrTaskCancelled is wrapped by every [TaskCancelledError]: test for it
// with errors.Is.
var ErrTaskCancelled = errors.New("task cancelled")

// Error implements the error interface.
func (e *TaskCancelledError) Error() string {
	s := fmt.Sprintf("task %q was cancelled", e.Task.ID)
	if e.Task.StatusMessage != "" {
		s += ": " + e.Task.StatusMessage
	}
	return s
}

// Unwrap returns [ErrTaskCancelled].
func (e *TaskCancelledError) Unwrap() error { return ErrTaskCancelled }

// WithTask asks for a tools/call to run as a task, kept by the server for
// ttl after its creation (0 leaves it to the server). [Client.CallTool]
// then waits for the task to end, polling tasks/get as the server suggests
// (an interval of [DefaultTaskPollInterval] when it does not, cut short by
// a status notification), answering input requests through the Options
// callbacks, and returns what the call would have returned: the tool's
// result (isError for a failed tool) or the server's [*Error]. A cancelled
// task is an error wrapping [ErrTaskCancelled]. The call's timeout
// ([Options].Timeout, [WithTimeout]) and ctx bound the whole of it.
//
// At 2025-11-25 the request carries "task"; a server may run a tool that
// does not support tasks as a plain call instead. At 2026-07-28 the request
// declares the tasks extension ([ExtensionTasks]) and the server decides
// whether to make a task. Tasks do not exist before 2025-11-25: there the
// call fails without being sent.
//
// A progress handler ([WithProgress]) keeps receiving the task's progress
// until it ends.
func WithTask(ttl time.Duration) CallOption {
	return func(o *callOptions) { o.asTask, o.taskTTL = true, max(ttl, 0) }
}

// WithTaskUpdates calls f with the task as the client sees it change, on the
// caller's goroutine and in order: once created, then each time its status
// or status message changes, as polls and status notifications report it,
// until it ends (its terminal state included). A status the task went
// through between two polls, of which no notification told, is not seen.
// It applies to [Client.CallTool] with [WithTask] and to [Client.WaitTask].
func WithTaskUpdates(f func(*Task)) CallOption {
	return func(o *callOptions) { o.taskUpdates = f }
}

// SupportsTasks reports whether the server declares that tools/call may run
// as a task at the negotiated version: the 2025-11-25 tasks capability with
// requests.tools.call, or the 2026-07-28 tasks extension. Whether a given
// tool does is its [Tool.TaskSupport] (2025-11-25).
func (c *Client) SupportsTasks() bool {
	if c.IsModern() {
		_, ok := c.serverCaps.Extensions[ExtensionTasks]
		return ok
	}
	if c.version < Version20251125 || len(c.serverCaps.Tasks) == 0 {
		return false
	}
	var caps struct {
		Requests struct {
			Tools struct {
				Call json.RawMessage `json:"call"`
			} `json:"tools"`
		} `json:"requests"`
	}
	return json.Unmarshal(c.serverCaps.Tasks, &caps) == nil && len(caps.Requests.Tools.Call) > 0 && string(caps.Requests.Tools.Call) != "null"
}

// declaresTasks reports whether Options.Capabilities declares the tasks
// extension, so that every 2026-07-28 request does.
func (c *Client) declaresTasks() bool {
	_, ok := c.clientCaps.Extensions[ExtensionTasks]
	return ok
}

// tasksMeta returns the 2026-07-28 per-request metadata with the tasks
// extension declared.
func (c *Client) tasksMeta(version string) []byte {
	caps := c.capabilitiesFor(version)
	ext := maps.Clone(caps.Extensions)
	if ext == nil {
		ext = map[string]json.RawMessage{}
	}
	if _, ok := ext[ExtensionTasks]; !ok {
		ext[ExtensionTasks] = json.RawMessage("{}")
	}
	caps.Extensions = ext
	b, err := marshalCapabilities(caps)
	if err != nil {
		return nil
	}
	info, err := marshalImplementation(&c.opts.ClientInfo)
	if err != nil {
		return nil
	}
	return staticMeta(version, b, info)
}

// taskVersionError says why a task method cannot be sent on this
// connection, or returns nil. legacyOnly: the method does not exist in the
// 2026-07-28 extension.
func (c *Client) taskVersionError(o op, legacyOnly bool) error {
	switch {
	case c.version < Version20251125:
		return fmt.Errorf("%s: tasks arrived in protocol version %s; this connection speaks %s", o, Version20251125, c.version)
	case legacyOnly && c.IsModern():
		return fmt.Errorf("%s: the 2026-07-28 tasks extension has no %s (it was removed with the core tasks of 2025-11-25); use WaitTask", o, o.method)
	}
	return nil
}

// taskWire is a task in either era's form: the flat Task of tasks/get,
// tasks/cancel and the notifications, the "task" member of a 2025-11-25
// CreateTaskResult, or a 2026-07-28 CreateTaskResult or DetailedTask.
type taskWire struct {
	TaskID         string                  `json:"taskId"`
	Status         TaskStatus              `json:"status"`
	StatusMessage  string                  `json:"statusMessage"`
	CreatedAt      string                  `json:"createdAt"`
	LastUpdatedAt  string                  `json:"lastUpdatedAt"`
	TTL            *float64                `json:"ttl"`            // 2025-11-25, milliseconds
	PollInterval   *float64                `json:"pollInterval"`   // 2025-11-25, milliseconds
	TTLMs          *float64                `json:"ttlMs"`          // 2026-07-28
	PollIntervalMs *float64                `json:"pollIntervalMs"` // 2026-07-28
	RequestState   *string                 `json:"requestState"`   // 2026-07-28
	InputRequests  map[string]inputRequest `json:"inputRequests"`  // 2026-07-28, input_required
	Result         json.RawMessage         `json:"result"`         // 2026-07-28, completed
	Error          *jsonrpc.Error          `json:"error"`          // 2026-07-28, failed
	Meta           Meta                    `json:"_meta"`
	ResultType     string                  `json:"resultType"`
}

// millis is the first positive count of milliseconds as a Duration. A count
// past the longest Duration (a server may send 1e300) is the longest
// Duration: converting it would overflow to a negative one.
func millis(ms ...*float64) time.Duration {
	const most = float64(math.MaxInt64 / int64(time.Millisecond))
	for _, v := range ms {
		if v != nil && *v > 0 {
			if *v >= most {
				return math.MaxInt64
			}
			return time.Duration(*v * float64(time.Millisecond))
		}
	}
	return 0
}

// task turns the wire form into a Task, checking what every task must
// carry. o names the request (or notification) it came with, for errors.
func (w *taskWire) task(o op) (*Task, error) {
	if w.TaskID == "" {
		return nil, fmt.Errorf("the server sent a task without a taskId")
	}
	if !w.Status.known() {
		return nil, fmt.Errorf("the server sent task %q with status %q, which is none of working, input_required, completed, failed, cancelled", w.TaskID, w.Status)
	}
	t := &Task{
		ID: w.TaskID, Status: w.Status, StatusMessage: w.StatusMessage,
		CreatedAt: w.CreatedAt, LastUpdatedAt: w.LastUpdatedAt,
		TTL: millis(w.TTLMs, w.TTL), PollInterval: millis(w.PollIntervalMs, w.PollInterval),
		Meta: w.Meta, inputRequests: w.InputRequests,
	}
	if len(w.Result) > 0 && string(w.Result) != "null" {
		var r callToolEnvelope
		if err := r.decode(w.Result); err != nil {
			return nil, fmt.Errorf("task %q: decoding its result: %w", w.TaskID, err)
		}
		if r.Content == nil {
			r.Content = []Content{}
		}
		t.Result = &CallToolResult{Content: r.Content, StructuredContent: r.StructuredContent, IsError: r.IsError, Meta: r.Meta}
	}
	if w.Error != nil {
		t.Error = fromWire(op{methodGetTask, w.TaskID}, w.Error)
	}
	return t, nil
}

// decodeTask decodes a flat task from raw and records its requestState.
func (c *Client) decodeTask(o op, raw []byte) (*Task, error) {
	var w taskWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("%s: decoding the task: %w", o, err)
	}
	t, err := w.task(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o, err)
	}
	c.trackTask(t, w.RequestState)
	return t, nil
}

// trackTask records the requestState a 2026-07-28 task came with (the
// client echoes the latest on the next request about the task), and
// forgets the task once it has ended.
func (c *Client) trackTask(t *Task, state *string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.Status.Terminal() {
		delete(c.taskStates, t.ID)
		return
	}
	if state == nil {
		delete(c.taskStates, t.ID) // no state on the last message: send none
		return
	}
	if c.taskStates == nil {
		c.taskStates = map[string]string{}
	}
	c.taskStates[t.ID] = *state
}

// taskParams encodes the params of a request about task id, with its
// requestState (2026-07-28) when the server gave one, and extra members.
func (c *Client) taskParams(id string, extra ...member) []byte {
	b := jsonrpc.AppendString([]byte(`{"taskId":`), id)
	c.mu.Lock()
	state, ok := c.taskStates[id]
	c.mu.Unlock()
	if ok && c.IsModern() {
		b = jsonrpc.AppendString(append(b, `,"requestState":`...), state)
	}
	for _, m := range extra {
		b = append(jsonrpc.AppendString(append(b, ','), m.key), ':')
		b = append(b, m.value...)
	}
	return append(b, '}')
}

// taskCall runs a task method: with the tasks extension declared at
// 2026-07-28, and within the call's timeout.
func (c *Client) taskCall(ctx context.Context, o op, obj []byte, co *callOptions) (json.RawMessage, error) {
	tc := *co
	tc.tasksExt = true
	tc.progress, tc.token, tc.sink = nil, 0, nil
	return c.call(ctx, o, obj, &tc)
}

// checkEnvelope checks the resultType of a task method's result: complete,
// or (tolerated on tasks/get) task.
func checkEnvelope(o op, raw []byte) error {
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("%s: decoding result: %w", o, err)
	}
	if env.ResultType == resultTask && o.method == methodGetTask {
		return nil
	}
	return env.check(o)
}

// GetTask returns the task's current state (tasks/get). An unknown or
// expired task is an [*Error] (-32602).
func (c *Client) GetTask(ctx context.Context, id string, opts ...CallOption) (*Task, error) {
	co := collect(opts)
	return c.getTask(ctx, id, &co)
}

func (c *Client) getTask(ctx context.Context, id string, co *callOptions) (*Task, error) {
	o := op{methodGetTask, id}
	if err := c.taskVersionError(o, false); err != nil {
		return nil, err
	}
	raw, err := c.taskCall(ctx, o, c.taskParams(id), co)
	if err != nil {
		return nil, err
	}
	if err := checkEnvelope(o, raw); err != nil {
		return nil, err
	}
	t, err := c.decodeTask(o, raw)
	if err != nil {
		return nil, err
	}
	if t.ID != id {
		return nil, fmt.Errorf("%s: the server answered with another task, %q", o, t.ID)
	}
	return t, nil
}

// TaskResult returns what the task's tools/call would have returned
// (tasks/result, 2025-11-25 only): the tool's result, isError set for a
// failed tool, or the server's [*Error]. The server answers once the task
// has ended, so TaskResult waits for that, within the call's timeout; on
// the way the server may send its requests for input, which the Options
// callbacks answer. At 2026-07-28, which has no tasks/result, use
// [Client.WaitTask].
func (c *Client) TaskResult(ctx context.Context, id string, opts ...CallOption) (*CallToolResult, error) {
	co := collect(opts)
	return c.taskResult(ctx, id, &co)
}

func (c *Client) taskResult(ctx context.Context, id string, co *callOptions) (*CallToolResult, error) {
	o := op{methodTaskResult, id}
	if err := c.taskVersionError(o, true); err != nil {
		return nil, err
	}
	raw, err := c.taskCall(ctx, o, c.taskParams(id), co)
	if err != nil {
		return nil, err
	}
	var w callToolEnvelope
	if err := w.decode(raw); err != nil {
		return nil, fmt.Errorf("%s: decoding result: %w", o, err)
	}
	if err := w.check(o); err != nil {
		return nil, err
	}
	if w.Content == nil {
		w.Content = []Content{}
	}
	return &CallToolResult{Content: w.Content, StructuredContent: w.StructuredContent, IsError: w.IsError, Meta: w.Meta}, nil
}

// CancelTask asks the server to cancel the task (tasks/cancel). At
// 2025-11-25 it returns the task as the server reports it after the
// cancellation; a task that has already ended cannot be cancelled (the
// server answers -32602). At 2026-07-28 the server only acknowledges the
// request, cancellation is cooperative, and CancelTask returns a nil Task:
// [Client.WaitTask] or [Client.GetTask] tell what became of it.
func (c *Client) CancelTask(ctx context.Context, id string, opts ...CallOption) (*Task, error) {
	co := collect(opts)
	o := op{methodCancelTask, id}
	if err := c.taskVersionError(o, false); err != nil {
		return nil, err
	}
	raw, err := c.taskCall(ctx, o, c.taskParams(id), &co)
	if err != nil {
		return nil, err
	}
	if err := checkEnvelope(o, raw); err != nil {
		return nil, err
	}
	if c.IsModern() {
		return nil, nil
	}
	return c.decodeTask(o, raw)
}

// ListTasksResult is one page of tasks/list (2025-11-25).
type ListTasksResult struct {
	// Tasks are this page's tasks.
	Tasks []*Task
	// NextCursor names the next page when [ListTasksResult.HasNextPage]
	// reports one. It may be empty.
	NextCursor string
	// Meta is the page's "_meta".
	Meta Meta

	nextSent bool
}

// HasNextPage reports whether the list goes on after this page: the server
// sent nextCursor, even an empty one.
func (r *ListTasksResult) HasNextPage() bool { return r.nextSent || r.NextCursor != "" }

func (r *ListTasksResult) items() []*Task       { return r.Tasks }
func (r *ListTasksResult) next() (string, bool) { return r.NextCursor, r.HasNextPage() }

// ListTasks returns one page of the server's tasks (tasks/list, 2025-11-25
// only; the 2026-07-28 extension has none), as [Client.ListTools] does for
// tools. [Client.Tasks] follows the pages.
func (c *Client) ListTasks(ctx context.Context, cursor string, opts ...CallOption) (*ListTasksResult, error) {
	co := collect(opts)
	return c.listTasks(ctx, pageAt(cursor), &co)
}

// Tasks iterates over all the server's tasks (tasks/list, 2025-11-25),
// following the cursors from page to page. An error ends the iteration; it
// is yielded with a nil task.
func (c *Client) Tasks(ctx context.Context, opts ...CallOption) iter.Seq2[*Task, error] {
	co := collect(opts)
	return paginate(methodListTasks, "ListTasks", func(cursor *string) (*ListTasksResult, error) { return c.listTasks(ctx, cursor, &co) })
}

func (c *Client) listTasks(ctx context.Context, cursor *string, co *callOptions) (*ListTasksResult, error) {
	o := op{method: methodListTasks}
	if err := c.taskVersionError(o, true); err != nil {
		return nil, err
	}
	raw, err := c.taskCall(ctx, o, cursorParams(cursor), co)
	if err != nil {
		return nil, err
	}
	var w struct {
		Tasks      []json.RawMessage `json:"tasks"`
		NextCursor *string           `json:"nextCursor"`
		Meta       Meta              `json:"_meta"`
		envelope
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("%s: decoding result: %w", o, err)
	}
	if err := w.check(o); err != nil {
		return nil, err
	}
	res := &ListTasksResult{Tasks: make([]*Task, 0, len(w.Tasks)), Meta: w.Meta}
	res.NextCursor, res.nextSent = nextCursor(w.NextCursor)
	for _, raw := range w.Tasks {
		t, err := c.decodeTask(o, raw)
		if err != nil {
			return nil, err
		}
		res.Tasks = append(res.Tasks, t)
	}
	return res, nil
}

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
