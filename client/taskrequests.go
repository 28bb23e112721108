package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
)

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
