package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
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
