package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// trackProgress gives the call a progress token when it asked for progress,
// and returns the token (0 for none), its sink (nil for none) and the
// function that forgets it.
func (c *Client) trackProgress(co *callOptions) (int64, *progressSink, func()) {
	if co.sink != nil {
		return co.token, co.sink, func() {} // the caller's, which it forgets
	}
	if co.progress == nil {
		return 0, nil, func() {}
	}
	token := c.nextID.Add(1)
	s := &progressSink{f: co.progress}
	c.mu.Lock()
	if c.progress == nil {
		c.progress = make(map[int64]*progressSink)
	}
	c.progress[token] = s
	c.mu.Unlock()
	return token, s, func() {
		c.mu.Lock()
		delete(c.progress, token)
		c.mu.Unlock()
		s.stop() // waits for a handler the reader is running
	}
}

// call runs a request that is not a multi round-trip one, within the call's
// timeout and with its progress handler and _meta, and returns the raw result.
func (c *Client) call(ctx context.Context, o op, obj []byte, co *callOptions) (json.RawMessage, error) {
	ctx, cancel := c.withTimeout(ctx, co)
	defer cancel()
	token, sink, forget := c.trackProgress(co)
	defer forget()
	params, err := c.buildParams(obj, co, token)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o, err)
	}
	return c.roundTrip(ctx, o, params, sink)
}

// callInto runs [Client.call] and decodes the result into out, whose
// envelope env is then checked.
func (c *Client) callInto(ctx context.Context, o op, obj []byte, co *callOptions, out any, env *envelope) error {
	raw, err := c.call(ctx, o, obj, co)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: decoding result: %w", o, err)
	}
	return env.check(o)
}

// callEmpty runs a request, with the client's default options, whose result
// has no members of its own.
func (c *Client) callEmpty(ctx context.Context, o op, obj []byte) error {
	co := collect(nil)
	var env envelope
	return c.callInto(ctx, o, obj, &co, &env, &env)
}

// CallTool calls the tool name with args (anything that encodes as a JSON
// object: a map, a struct, json.RawMessage; nil for none).
//
// A tool that fails is not a Go error: the result has IsError set and says
// why. A Go error is a protocol error from the server (an [*Error], for
// example an unknown tool), a closed connection ([ErrClosed]), or the end of
// ctx. On 2026-07-28 connections, input requests are answered through the
// Options callbacks and the call retried, up to Options.MaxInputRounds; and a
// call the server refuses with [CodeHeaderMismatch] (over HTTP, the tool's
// x-mcp-header arguments were not sent as the server expects, typically
// because the tool was not listed first) is retried once after listing the
// tools again, as the protocol advises.
//
// With [WithTask] the call runs as a task and CallTool waits for it to end
// (see WithTask); [Client.CallToolAsTask] returns the task instead. On
// 2026-07-28 connections that declare the tasks extension for every request
// (Options.Capabilities.Extensions has [ExtensionTasks]), a call the server
// makes a task of is waited for in the same way.
func (c *Client) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*CallToolResult, error) {
	co := collect(opts)
	obj, err := toolCallParams(name, args)
	if err != nil {
		return nil, err
	}
	if co.asTask || c.IsModern() && c.declaresTasks() {
		return c.callToolTask(ctx, op{methodCallTool, name}, obj, &co)
	}
	var res *CallToolResult
	err = c.mrtr(ctx, op{methodCallTool, name}, obj, &co, func(raw json.RawMessage) (*envelope, error) {
		var w callToolEnvelope
		if err := w.decode(raw); err != nil {
			return nil, err
		}
		res = &CallToolResult{Content: w.Content, StructuredContent: w.StructuredContent, IsError: w.IsError, Meta: w.Meta}
		return &w.envelope, nil
	})
	if err != nil {
		return nil, err
	}
	if res.Content == nil {
		res.Content = []Content{}
	}
	return res, nil
}

// ReadResource reads the resource at uri. A missing resource is an error
// that [IsResourceNotFound] recognises, in both its legacy and current form.
func (c *Client) ReadResource(ctx context.Context, uri string, opts ...CallOption) (*ReadResourceResult, error) {
	co := collect(opts)
	obj := append(jsonrpc.AppendString([]byte(`{"uri":`), uri), '}')
	var res *ReadResourceResult
	err := c.mrtr(ctx, op{methodReadResource, uri}, obj, &co, func(raw json.RawMessage) (*envelope, error) {
		var w struct {
			ReadResourceResult
			envelope
		}
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, err
		}
		res = &w.ReadResourceResult
		return &w.envelope, nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// GetPrompt renders the prompt name with args.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string, opts ...CallOption) (*GetPromptResult, error) {
	co := collect(opts)
	obj, err := json.Marshal(struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments,omitempty"`
	}{name, args})
	if err != nil {
		return nil, fmt.Errorf("%s %q: encoding arguments: %w", methodGetPrompt, name, err)
	}
	var res *GetPromptResult
	err = c.mrtr(ctx, op{methodGetPrompt, name}, obj, &co, func(raw json.RawMessage) (*envelope, error) {
		var w struct {
			GetPromptResult
			envelope
		}
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, err
		}
		res = &w.GetPromptResult
		return &w.envelope, nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Complete asks the server to complete an argument value (completion/complete).
func (c *Client) Complete(ctx context.Context, req *CompleteRequest, opts ...CallOption) (*CompleteResult, error) {
	if req == nil {
		return nil, errors.New("completion/complete: nil request")
	}
	co := collect(opts)
	type argument struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	type completeContext struct {
		Arguments map[string]string `json:"arguments,omitempty"`
	}
	p := struct {
		Ref      CompleteReference `json:"ref"`
		Argument argument          `json:"argument"`
		Context  *completeContext  `json:"context,omitempty"`
	}{Ref: req.Ref, Argument: argument{req.Argument, req.Value}}
	if len(req.Context) > 0 {
		p.Context = &completeContext{req.Context}
	}
	obj, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("completion/complete: encoding params: %w", err)
	}
	var w struct {
		Completion CompleteResult `json:"completion"`
		Meta       Meta           `json:"_meta"`
		envelope
	}
	if err := c.callInto(ctx, op{method: methodComplete}, obj, &co, &w, &w.envelope); err != nil {
		return nil, err
	}
	w.Completion.Meta = w.Meta
	return &w.Completion, nil
}

// Ping checks that the server answers. Legacy connections send ping; 2026-07-28
// removed ping (any request proves liveness), so there it sends
// server/discover.
func (c *Client) Ping(ctx context.Context) error {
	method := methodPing
	if c.IsModern() {
		method = methodDiscover
	}
	return c.callEmpty(ctx, op{method: method}, nil)
}

// SetLogLevel asks the server for log messages at level and above. Legacy
// connections send logging/setLevel; on 2026-07-28 connections, which have no
// such request, the level rides in the _meta of every later request.
func (c *Client) SetLogLevel(ctx context.Context, level LogLevel) error {
	if !validLevel(level) {
		return fmt.Errorf("%s: unknown log level %q", methodSetLevel, level)
	}
	if !c.IsModern() {
		obj := append(jsonrpc.AppendString([]byte(`{"level":`), string(level)), '}')
		if err := c.callEmpty(ctx, op{method: methodSetLevel}, obj); err != nil {
			return err
		}
	}
	c.logLevel.Store(&level)
	return nil
}

// Subscribe asks for notifications/resources/updated for uri
// (resources/subscribe). It exists only on legacy connections; [Client.Listen]
// works in both eras.
func (c *Client) Subscribe(ctx context.Context, uri string) error {
	return c.subscription(ctx, methodSubscribe, uri)
}

// Unsubscribe undoes [Client.Subscribe] (resources/unsubscribe, legacy only).
func (c *Client) Unsubscribe(ctx context.Context, uri string) error {
	return c.subscription(ctx, methodUnsubscribe, uri)
}

func (c *Client) subscription(ctx context.Context, method, uri string) error {
	if c.IsModern() {
		return fmt.Errorf("%s: removed in protocol version %s; use Listen", method, c.version)
	}
	obj := append(jsonrpc.AppendString([]byte(`{"uri":`), uri), '}')
	return c.callEmpty(ctx, op{method, uri}, obj)
}

// NotifyRootsListChanged tells the server that the roots changed
// (notifications/roots/list_changed, legacy only).
func (c *Client) NotifyRootsListChanged(ctx context.Context) error {
	if c.IsModern() {
		return fmt.Errorf("%s: removed in protocol version %s", notifyRootsChanged, c.version)
	}
	return c.notify(ctx, notifyRootsChanged, nil)
}

// Call sends any request and returns its raw result: the escape hatch for
// methods this client does not model. params must encode as a JSON object
// (or be nil); on 2026-07-28 connections the protocol _meta is added. The
// result is not checked, not even its resultType.
func (c *Client) Call(ctx context.Context, method string, params any, opts ...CallOption) (json.RawMessage, error) {
	co := collect(opts)
	obj, err := objectJSON(method+" params", params)
	if err != nil {
		return nil, err
	}
	raw, err := c.call(ctx, op{method: method}, obj, &co)
	return bytes.Clone(raw), err // the caller's to keep: not the frame's bytes
}
