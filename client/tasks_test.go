package client

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// taskFake connects a client to a fake 2025-11-25 server that declares
// tasks for tools/call.
func taskFake(t *testing.T, opts *Options) (*Client, *fake) {
	t.Helper()
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = Version20251125
	c, f, err := fakeConnect(t, &o, func(f *fake) {
		m := f.expect("initialize")
		f.reply(m.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"fake","version":"9"}}`)
		f.expect("notifications/initialized")
	})
	require.NoError(t, err)
	return c, f
}

// modernTaskFake connects a client to a fake 2026-07-28 server that
// declares the tasks extension.
func modernTaskFake(t *testing.T, opts *Options) (*Client, *fake) {
	t.Helper()
	c, f, err := fakeConnect(t, opts, func(f *fake) {
		m := f.expect("server/discover")
		f.reply(m.ID, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"ttlMs":0,"cacheScope":"public"}`)
	})
	require.NoError(t, err)
	return c, f
}

const legacyTask = `"taskId":"t1","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":5`

// statuses records what WithTaskUpdates reports.
type statuses struct {
	mu   sync.Mutex
	seen []TaskStatus
}

func (s *statuses) option() CallOption {
	return WithTaskUpdates(func(t *Task) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.seen = append(s.seen, t.Status)
	})
}

func (s *statuses) get() []TaskStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]TaskStatus(nil), s.seen...)
}

type callResult struct {
	res *CallToolResult
	err error
}

func goCall(c *Client, name string, opts ...CallOption) <-chan callResult {
	done := make(chan callResult, 1)
	go func() {
		res, err := c.CallTool(context.Background(), name, map[string]any{"n": 1}, opts...)
		done <- callResult{res, err}
	}()
	return done
}

// At 2025-11-25 WithTask asks for a task, waits for it (a status
// notification ends the sleep) and returns what tasks/result returns; the
// progress token lives until the task ends.
func TestCallToolAsTaskLegacy(t *testing.T) {
	var notified []TaskStatus
	var mu sync.Mutex
	c, f := taskFake(t, &Options{OnTaskStatus: func(t *Task) { mu.Lock(); notified = append(notified, t.Status); mu.Unlock() }})
	var st statuses
	var progress []float64
	done := goCall(c, "slow", WithTask(time.Minute), st.option(), WithProgress(func(p Progress) { progress = append(progress, p.Progress) }))

	m := f.expect("tools/call")
	p := params(t, m)
	assert.JSONEq(t, `{"ttl":60000}`, string(p["task"]))
	assert.JSONEq(t, `{"n":1}`, string(p["arguments"]))
	var meta struct {
		Token json.RawMessage `json:"progressToken"`
	}
	require.NoError(t, json.Unmarshal(p["_meta"], &meta))
	f.reply(m.ID, `{"task":{"status":"working",`+legacyTask+`},"_meta":{"io.modelcontextprotocol/model-immediate-response":"on it"}}`)

	m = f.expect("tasks/get")
	assert.JSONEq(t, `{"taskId":"t1"}`, string(m.Params))
	f.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + string(meta.Token) + `,"progress":1}}`)
	f.reply(m.ID, `{"status":"working",`+legacyTask+`}`)
	f.send(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"status":"completed",` + legacyTask + `}}`)

	m = f.expect("tasks/get")
	f.reply(m.ID, `{"status":"completed",`+legacyTask+`}`)
	m = f.expect("tasks/result")
	assert.JSONEq(t, `{"taskId":"t1"}`, string(m.Params))
	f.reply(m.ID, `{"content":[{"type":"text","text":"no luck"}],"isError":true,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}`)

	r := <-done
	require.NoError(t, r.err)
	assert.True(t, r.res.IsError, "a failed tool is a result, not an error")
	assert.Equal(t, "no luck", r.res.Text())
	assert.Equal(t, []TaskStatus{TaskWorking, TaskCompleted}, st.get())
	assert.Equal(t, []float64{1}, progress, "progress after the response, while the task runs")
	mu.Lock()
	assert.Equal(t, []TaskStatus{TaskCompleted}, notified)
	mu.Unlock()
}

// A failed task's tasks/result error is the server's *Error, naming the
// task; a cancelled task is a TaskCancelledError.
func TestTaskOutcomesLegacy(t *testing.T) {
	c, f := taskFake(t, nil)
	done := goCall(c, "boom", WithTask(0))
	m := f.expect("tools/call")
	assert.JSONEq(t, `{}`, string(params(t, m)["task"]), "no ttl: the server decides")
	f.reply(m.ID, `{"task":{"status":"failed",`+legacyTask+`}}`)
	m = f.expect("tasks/get")
	f.reply(m.ID, `{"status":"failed","statusMessage":"boom",`+legacyTask+`}`)
	m = f.expect("tasks/result")
	f.fail(m.ID, CodeInternalError, "boom", "")
	r := <-done
	var e *Error
	require.ErrorAs(t, r.err, &e)
	assert.Equal(t, CodeInternalError, e.Code)
	assert.Equal(t, "tasks/result", e.Method)
	assert.Equal(t, "t1", e.Name)
	assert.ErrorContains(t, r.err, `tools/call "boom": tasks/result "t1": error -32603: boom`)

	done = goCall(c, "stop", WithTask(0))
	m = f.expect("tools/call")
	f.reply(m.ID, `{"task":{"status":"working",`+legacyTask+`}}`)
	m = f.expect("tasks/get")
	f.reply(m.ID, `{"status":"cancelled","statusMessage":"by request",`+legacyTask+`}`)
	r = <-done
	require.ErrorIs(t, r.err, ErrTaskCancelled)
	var ce *TaskCancelledError
	require.ErrorAs(t, r.err, &ce)
	assert.Equal(t, "by request", ce.Task.StatusMessage)
	assert.Nil(t, r.res)
}

// The task methods one by one: create, get, cancel, list with paging.
func TestTaskMethodsLegacy(t *testing.T) {
	c, f := taskFake(t, nil)
	assert.True(t, c.SupportsTasks())

	type created struct {
		t   *Task
		err error
	}
	ch := make(chan created, 1)
	go func() {
		tk, err := c.CallToolAsTask(context.Background(), "slow", nil)
		ch <- created{tk, err}
	}()
	m := f.expect("tools/call")
	f.reply(m.ID, `{"task":{"status":"working",`+legacyTask+`}}`)
	cr := <-ch
	require.NoError(t, cr.err)
	assert.Equal(t, "t1", cr.t.ID)
	assert.Equal(t, TaskWorking, cr.t.Status)
	assert.Equal(t, time.Minute, cr.t.TTL)
	assert.Equal(t, 5*time.Millisecond, cr.t.PollInterval)
	assert.Equal(t, "2025-11-25T10:30:00Z", cr.t.CreatedAt)

	get := make(chan created, 1)
	go func() { tk, err := c.GetTask(context.Background(), "t1"); get <- created{tk, err} }()
	m = f.expect("tasks/get")
	f.reply(m.ID, `{"status":"input_required","statusMessage":"waiting",`+legacyTask+`}`)
	g := <-get
	require.NoError(t, g.err)
	assert.Equal(t, TaskInputRequired, g.t.Status)

	go func() { _, err := c.GetTask(context.Background(), "nope"); get <- created{nil, err} }()
	m = f.expect("tasks/get")
	f.fail(m.ID, CodeInvalidParams, "task not found", "")
	g = <-get
	var e *Error
	require.ErrorAs(t, g.err, &e)
	assert.Equal(t, CodeInvalidParams, e.Code)
	assert.Equal(t, "nope", e.Name)

	go func() { tk, err := c.CancelTask(context.Background(), "t1"); get <- created{tk, err} }()
	m = f.expect("tasks/cancel")
	assert.JSONEq(t, `{"taskId":"t1"}`, string(m.Params))
	f.reply(m.ID, `{"status":"cancelled",`+legacyTask+`}`)
	g = <-get
	require.NoError(t, g.err)
	assert.Equal(t, TaskCancelled, g.t.Status)

	ids := make(chan []string, 1)
	go func() {
		var got []string
		for tk, err := range c.Tasks(context.Background()) {
			if err != nil {
				got = append(got, "error: "+err.Error())
				break
			}
			got = append(got, tk.ID+"="+string(tk.Status))
		}
		ids <- got
	}()
	m = f.expect("tasks/list")
	assert.Empty(t, m.Params)
	f.reply(m.ID, `{"tasks":[{"status":"cancelled",`+legacyTask+`}],"nextCursor":""}`)
	m = f.expect("tasks/list")
	assert.JSONEq(t, `{"cursor":""}`, string(m.Params), "an empty cursor is a cursor")
	f.reply(m.ID, `{"tasks":[{"taskId":"t2","status":"working","createdAt":"x","lastUpdatedAt":"x","ttl":null}]}`)
	assert.Equal(t, []string{"t1=cancelled", "t2=working"}, <-ids)

	// A task without an id, or with an unknown status, is not a task.
	go func() { tk, err := c.GetTask(context.Background(), "t3"); get <- created{tk, err} }()
	m = f.expect("tasks/get")
	f.reply(m.ID, `{"taskId":"t3","status":"sleeping"}`)
	g = <-get
	assert.ErrorContains(t, g.err, `tasks/get "t3": the server sent task "t3" with status "sleeping"`)
}

// At 2025-11-25 a task that needs input is followed with tasks/result at
// once: the server asks through its own requests, which the callbacks
// answer, and answers once the task has ended.
func TestTaskInputRequiredLegacy(t *testing.T) {
	c, f := taskFake(t, &Options{Elicit: func(context.Context, *ElicitRequest) (*ElicitResult, error) {
		return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"ok": true}}, nil
	}})
	done := goCall(c, "ask", WithTask(0))
	m := f.expect("tools/call")
	f.reply(m.ID, `{"task":{"status":"working",`+legacyTask+`}}`)
	m = f.expect("tasks/get")
	f.reply(m.ID, `{"status":"input_required",`+legacyTask+`}`)
	res := f.expect("tasks/result")
	f.send(`{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"sure?","requestedSchema":{"type":"object"},"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}}`)
	m = f.recv()
	assert.Equal(t, `"e1"`, m.ID.String())
	assert.JSONEq(t, `{"action":"accept","content":{"ok":true}}`, string(m.Result))
	f.reply(res.ID, `{"content":[{"type":"text","text":"done"}]}`)
	r := <-done
	require.NoError(t, r.err)
	assert.Equal(t, "done", r.res.Text())
}

// At 2026-07-28 the request declares the extension (and asks for nothing
// else); the task's requestState is echoed; input requests are answered
// with tasks/update; the outcome comes with tasks/get.
func TestCallToolAsTaskModern(t *testing.T) {
	c, f := modernTaskFake(t, &Options{Elicit: func(_ context.Context, r *ElicitRequest) (*ElicitResult, error) {
		return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
	}})
	assert.True(t, c.SupportsTasks())
	var st statuses
	done := goCall(c, "hello", WithTask(time.Minute), st.option())

	extension := func(m *jsonrpc.Message) {
		t.Helper()
		var p struct {
			Meta struct {
				Caps Capabilities `json:"io.modelcontextprotocol/clientCapabilities"`
			} `json:"_meta"`
		}
		require.NoError(t, json.Unmarshal(m.Params, &p))
		assert.Contains(t, p.Meta.Caps.Extensions, ExtensionTasks, "%s declares the tasks extension", m.Method)
	}
	const task = `"taskId":"t9","createdAt":"a","lastUpdatedAt":"b","ttlMs":30000,"pollIntervalMs":5`
	m := f.expect("tools/call")
	extension(m)
	assert.NotContains(t, params(t, m), "task", "2026-07-28 has no task param")
	f.reply(m.ID, `{"resultType":"task","status":"working",`+task+`,"requestState":"s1"}`)

	m = f.expect("tasks/get")
	extension(m)
	assert.JSONEq(t, `"s1"`, string(params(t, m)["requestState"]))
	f.reply(m.ID, `{"resultType":"complete","status":"input_required",`+task+`,"requestState":"s2",`+
		`"inputRequests":{"name":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object"}}}}}`)

	m = f.expect("tasks/update")
	extension(m)
	p := params(t, m)
	assert.JSONEq(t, `"t9"`, string(p["taskId"]))
	assert.JSONEq(t, `"s2"`, string(p["requestState"]))
	assert.JSONEq(t, `{"name":{"action":"accept","content":{"name":"Ada"}}}`, string(p["inputResponses"]))
	f.reply(m.ID, `{"resultType":"complete"}`)

	m = f.expect("tasks/get")
	assert.JSONEq(t, `"s2"`, string(params(t, m)["requestState"]))
	f.reply(m.ID, `{"resultType":"complete","status":"input_required",`+task+`,`+
		`"inputRequests":{"name":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object"}}}}}`)
	// The same request again: answered already, so only polled again; and
	// no requestState on the last message means none is sent.
	m = f.expect("tasks/get")
	assert.NotContains(t, params(t, m), "requestState")
	f.reply(m.ID, `{"resultType":"complete","status":"completed",`+task+`,"result":{"content":[{"type":"text","text":"Hello, Ada"}],"isError":false}}`)

	r := <-done
	require.NoError(t, r.err)
	assert.Equal(t, "Hello, Ada", r.res.Text())
	assert.Equal(t, []TaskStatus{TaskWorking, TaskInputRequired, TaskCompleted}, st.get())
}

// At 2026-07-28 a failed task's error comes with the task, as an *Error; a
// server may also answer at once; tasks/cancel only acknowledges.
func TestTaskOutcomesModern(t *testing.T) {
	c, f := modernTaskFake(t, nil)
	const task = `"taskId":"t9","createdAt":"a","lastUpdatedAt":"b","ttlMs":null`
	done := goCall(c, "boom", WithTask(0))
	m := f.expect("tools/call")
	f.reply(m.ID, `{"resultType":"task","status":"working",`+task+`}`)
	m = f.expect("tasks/get")
	f.reply(m.ID, `{"resultType":"complete","status":"failed",`+task+`,"error":{"code":-32603,"message":"rate limited"}}`)
	r := <-done
	var e *Error
	require.ErrorAs(t, r.err, &e)
	assert.Equal(t, CodeInternalError, e.Code)
	assert.Equal(t, "rate limited", e.Message)

	ch := make(chan *Task, 1)
	go func() {
		tk, err := c.CallToolAsTask(context.Background(), "quick", nil)
		assert.NoError(t, err)
		ch <- tk
	}()
	m = f.expect("tools/call")
	f.reply(m.ID, `{"resultType":"complete","content":[{"type":"text","text":"at once"}]}`)
	tk := <-ch
	assert.Empty(t, tk.ID, "no task was made")
	assert.Equal(t, TaskCompleted, tk.Status)
	assert.Equal(t, "at once", tk.Result.Text())

	go func() {
		tk, err := c.CancelTask(context.Background(), "t9")
		assert.NoError(t, err)
		ch <- tk
	}()
	m = f.expect("tasks/cancel")
	f.reply(m.ID, `{"resultType":"complete"}`)
	assert.Nil(t, <-ch, "an acknowledgement only")

	// A CreateTaskResult may not carry the outcome.
	done = goCall(c, "odd", WithTask(0))
	m = f.expect("tools/call")
	f.reply(m.ID, `{"resultType":"task","status":"completed",`+task+`,"result":{"content":[]}}`)
	r = <-done
	assert.ErrorContains(t, r.err, "carries result, error or inputRequests")
}

// A task arrives at 2026-07-28 only for a request that declared the
// extension; the 2025-11-25-only methods and versions before tasks fail
// without a request.
func TestTaskEraRules(t *testing.T) {
	c, f := modernTaskFake(t, nil)
	done := goCall(c, "plain")
	m := f.expect("tools/call")
	var p struct {
		Meta struct {
			Caps Capabilities `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal(m.Params, &p))
	assert.NotContains(t, p.Meta.Caps.Extensions, ExtensionTasks, "a plain call declares nothing")
	f.reply(m.ID, `{"resultType":"task","taskId":"x","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}`)
	assert.ErrorContains(t, (<-done).err, "did not declare the io.modelcontextprotocol/tasks extension")

	_, err := c.TaskResult(context.Background(), "x")
	assert.ErrorContains(t, err, "tasks/result \"x\": the 2026-07-28 tasks extension has no tasks/result")
	_, err = c.ListTasks(context.Background(), "")
	assert.ErrorContains(t, err, "has no tasks/list")

	old, _ := legacyFake(t, Version20250618, nil)
	_, err = old.CallTool(context.Background(), "t", nil, WithTask(0))
	assert.ErrorContains(t, err, `tools/call "t": tasks arrived in protocol version 2025-11-25; this connection speaks 2025-06-18`)
	_, err = old.GetTask(context.Background(), "x")
	assert.ErrorContains(t, err, "tasks arrived in protocol version 2025-11-25")
	assert.False(t, old.SupportsTasks())
}

// Declared for every request, the extension makes CallTool follow any task
// the server makes of a call.
func TestDeclaredExtensionFollowsTasks(t *testing.T) {
	c, f := modernTaskFake(t, &Options{Capabilities: &Capabilities{Extensions: map[string]json.RawMessage{ExtensionTasks: json.RawMessage(`{}`)}}})
	done := goCall(c, "maybe")
	m := f.expect("tools/call")
	f.reply(m.ID, `{"resultType":"task","taskId":"x","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":null,"pollIntervalMs":1}`)
	m = f.expect("tasks/get")
	f.reply(m.ID, `{"resultType":"complete","taskId":"x","status":"completed","createdAt":"a","lastUpdatedAt":"b","ttlMs":null,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	r := <-done
	require.NoError(t, r.err)
	assert.Equal(t, "ok", r.res.Text())
}

// A wait never outlives the call's timeout, even while the server keeps
// answering "working".
func TestWaitTaskTimeout(t *testing.T) {
	c, f := taskFake(t, nil)
	stop := make(chan struct{})
	go func() {
		for {
			data, err := f.conn.Receive(context.Background())
			if err != nil {
				return
			}
			m, err := jsonrpc.Decode(data)
			if err != nil || m.Method != "tasks/get" {
				continue
			}
			select {
			case <-stop:
				return
			default:
			}
			f.reply(m.ID, `{"status":"working",`+legacyTask+`}`)
		}
	}()
	defer close(stop)
	start := time.Now()
	_, err := c.WaitTask(context.Background(), "t1", WithTimeout(200*time.Millisecond))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Contains(t, err.Error(), "t1")
}

func TestToolTaskSupport(t *testing.T) {
	for exec, want := range map[string]string{
		``:                             TaskSupportForbidden,
		`{}`:                           TaskSupportForbidden,
		`{"taskSupport":"optional"}`:   TaskSupportOptional,
		`{"taskSupport":"required"}`:   TaskSupportRequired,
		`{"taskSupport":"forbidden"}`:  TaskSupportForbidden,
		`{"taskSupport":"sometimes"}`:  "sometimes",
		`{"taskSupport":["required"]}`: TaskSupportForbidden,
	} {
		assert.Equal(t, want, (&Tool{Execution: json.RawMessage(exec)}).TaskSupport(), exec)
	}
	assert.True(t, TaskCancelled.Terminal())
	assert.False(t, TaskInputRequired.Terminal())
	assert.True(t, errors.Is(&TaskCancelledError{Task: &Task{ID: "x"}}, ErrTaskCancelled))
}

// A ttl or pollInterval past what a Duration holds is the longest Duration,
// never a negative one that would end a wait at once or expire a task.
func TestTaskDurationsNeverOverflow(t *testing.T) {
	for _, wire := range []string{
		`{"taskId":"t","status":"working","ttl":1e300,"pollInterval":1e300}`,
		`{"taskId":"t","status":"working","ttlMs":9.3e15,"pollIntervalMs":1.7976931348623157e308}`,
	} {
		var w taskWire
		require.NoError(t, json.Unmarshal([]byte(wire), &w))
		task, err := w.task(op{})
		require.NoError(t, err)
		assert.Equal(t, time.Duration(math.MaxInt64), task.TTL, wire)
		assert.Equal(t, time.Duration(math.MaxInt64), task.PollInterval, wire)
	}
	var w taskWire
	require.NoError(t, json.Unmarshal([]byte(`{"taskId":"t","status":"working","ttl":60000,"pollInterval":0.5}`), &w))
	task, err := w.task(op{})
	require.NoError(t, err)
	assert.Equal(t, time.Minute, task.TTL)
	assert.Equal(t, 500*time.Microsecond, task.PollInterval)
}
