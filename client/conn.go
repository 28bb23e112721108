package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// Method and notification names.
const (
	methodInitialize       = "initialize"
	methodInitialized      = "notifications/initialized"
	methodDiscover         = "server/discover"
	methodPing             = "ping"
	methodListTools        = "tools/list"
	methodCallTool         = "tools/call"
	methodListResources    = "resources/list"
	methodListTemplates    = "resources/templates/list"
	methodReadResource     = "resources/read"
	methodSubscribe        = "resources/subscribe"
	methodUnsubscribe      = "resources/unsubscribe"
	methodListPrompts      = "prompts/list"
	methodGetPrompt        = "prompts/get"
	methodComplete         = "completion/complete"
	methodSetLevel         = "logging/setLevel"
	methodListen           = "subscriptions/listen"
	methodCreateMessage    = "sampling/createMessage"
	methodElicit           = "elicitation/create"
	methodListRoots        = "roots/list"
	notifyCancelled        = "notifications/cancelled"
	notifyProgress         = "notifications/progress"
	notifyMessage          = "notifications/message"
	notifyToolsChanged     = "notifications/tools/list_changed"
	notifyPromptsChanged   = "notifications/prompts/list_changed"
	notifyResourcesChanged = "notifications/resources/list_changed"
	notifyResourceUpdated  = "notifications/resources/updated"
	notifyRootsChanged     = "notifications/roots/list_changed"
	notifyAcknowledged     = "notifications/subscriptions/acknowledged"
	notifyElicitationDone  = "notifications/elicitation/complete"
	resultComplete         = "complete"
	resultInputRequired    = "input_required"
	cancelReason           = "the client stopped waiting: "
)

// pendingCall is a request waiting for its response. Exactly one of ch and
// sub is set.
type pendingCall struct {
	ch  chan reply
	sub *Subscription
}

type reply struct {
	msg *jsonrpc.Message
	err error
}

// inflightRequest is a server-to-client request being answered.
type inflightRequest struct {
	cancel    context.CancelFunc
	cancelled bool // the server cancelled it: send no response
}

// register adds a pending call, unless the connection has ended.
func (c *Client) register(id int64, p *pendingCall) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return &closedError{cause: c.cause}
	}
	c.pending[id] = p
	return nil
}

// unregister removes a pending call and reports whether it was still there
// (false: a response or the end of the connection got to it first).
func (c *Client) unregister(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id]; ok {
		delete(c.pending, id)
		return true
	}
	return false
}

// op names a request in errors: its method and, for the requests about one
// thing (tools/call, prompts/get, resources/read, ...), the tool, prompt or
// URI, so that `tools/call "slow": ...` says which call failed.
type op struct {
	method string
	name   string // "" when the request is not about one named thing
}

func (o op) String() string {
	if o.name == "" {
		return o.method
	}
	return o.method + " " + strconv.Quote(o.name)
}

// timeoutError is the cause of a context ended by a request's own timeout
// ([Options].Timeout or [WithTimeout]). It unwraps to
// context.DeadlineExceeded, so errors.Is treats it as any other deadline.
type timeoutError struct{ d time.Duration }

func (e *timeoutError) Error() string { return "no response within " + e.d.String() }

func (e *timeoutError) Unwrap() error { return context.DeadlineExceeded }

// withTimeout bounds ctx by the request's timeout: its own ([WithTimeout]),
// else the client's default. When the timeout ends the request, the context's
// cause is a [*timeoutError] that names it; when the caller's deadline comes
// first, the cause stays the caller's.
func (c *Client) withTimeout(ctx context.Context, co *callOptions) (context.Context, context.CancelFunc) {
	d := co.timeout
	if d < 0 {
		d = c.opts.Timeout
	}
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, &timeoutError{d})
}

// roundTrip sends one request and waits for its response, returning the raw
// result or the error. ctx bounds the wait; when it ends first, the server is
// told with notifications/cancelled and the error wraps ctx's cause.
func (c *Client) roundTrip(ctx context.Context, o op, params []byte) (json.RawMessage, error) {
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", o, context.Cause(ctx))
	}
	id := c.nextID.Add(1)
	p := &pendingCall{ch: make(chan reply, 1)}
	if err := c.register(id, p); err != nil {
		return nil, fmt.Errorf("%s: %w", o, err)
	}
	msg := jsonrpc.AppendRequest(make([]byte, 0, 48+len(o.method)+len(params)), jsonrpc.Int64ID(id), o.method, params)
	if err := c.t.Send(ctx, msg); err != nil {
		c.unregister(id)
		return nil, c.sendFailed(ctx, o, err)
	}
	select {
	case r := <-p.ch:
		return r.result(o)
	case <-ctx.Done():
		if !c.unregister(id) {
			// The response (or the end of the connection) won the race.
			return (<-p.ch).result(o)
		}
		cause := context.Cause(ctx)
		c.cancelRequest(id, cause)
		return nil, fmt.Errorf("%s: %w", o, cause)
	}
}

func (r reply) result(o op) (json.RawMessage, error) {
	if r.err != nil {
		return nil, fmt.Errorf("%s: %w", o, r.err)
	}
	if r.msg.Error != nil {
		return nil, fromWire(o, r.msg.Error)
	}
	return r.msg.Result, nil
}

// sendFailed explains a failed Send: the connection ended, the caller gave
// up, or the transport refused the message.
func (c *Client) sendFailed(ctx context.Context, o op, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", o, context.Cause(ctx))
	}
	c.mu.Lock()
	closed, cause := c.closed, c.cause
	c.mu.Unlock()
	if closed || c.ctx.Err() != nil {
		return fmt.Errorf("%s: %w", o, &closedError{cause: cause})
	}
	return fmt.Errorf("%s: sending: %w", o, err)
}

// cancelRequest tells the server the client no longer waits for request id.
func (c *Client) cancelRequest(id int64, why error) {
	b := make([]byte, 0, 96)
	b = append(b, `{"requestId":`...)
	b = strconv.AppendInt(b, id, 10)
	if why != nil {
		b = append(b, `,"reason":`...)
		b = jsonrpc.AppendString(b, cancelReason+why.Error())
	}
	b = append(b, '}')
	msg := jsonrpc.AppendRequest(make([]byte, 0, 64+len(b)), jsonrpc.ID{}, notifyCancelled, b)
	// Bounded by the connection's life, not the caller's (already done) ctx.
	if err := c.t.Send(c.ctx, msg); err != nil && c.ctx.Err() == nil {
		c.logger.Debug("mcp client: sending notifications/cancelled failed", "request", id, "error", err)
	}
}

// notify sends a notification with params (a JSON object or nil).
func (c *Client) notify(ctx context.Context, method string, params []byte) error {
	msg := jsonrpc.AppendRequest(make([]byte, 0, 48+len(method)+len(params)), jsonrpc.ID{}, method, params)
	if err := c.t.Send(ctx, msg); err != nil {
		return c.sendFailed(ctx, op{method: method}, err)
	}
	return nil
}

// readLoop is the client's one permanent goroutine: it receives every
// message, hands responses to their callers, runs notification handlers in
// order, and starts a goroutine per server request (callbacks may block).
func (c *Client) readLoop() {
	defer close(c.done)
	for {
		data, err := c.t.Receive(c.ctx)
		if err != nil {
			c.shutdown(err)
			return
		}
		msg, err := jsonrpc.Decode(data)
		if err != nil {
			c.logger.Warn("mcp client: ignoring a message that is not JSON-RPC", "error", err, "message", truncate(data))
			continue
		}
		switch {
		case msg.IsResponse():
			c.deliver(msg)
		case msg.IsNotification():
			c.handleNotification(msg)
		default:
			c.serveRequest(msg)
		}
	}
}

// shutdown ends the connection after the reader stopped: it fails every
// pending call and subscription and cancels callbacks in progress.
func (c *Client) shutdown(err error) {
	c.mu.Lock()
	if !c.closing {
		c.cause = fmt.Errorf("transport: %w", err)
	}
	c.closed = true
	cause := c.cause
	pending := c.pending
	c.pending = map[int64]*pendingCall{}
	subs := c.subs
	c.subs = map[int64]*Subscription{}
	c.mu.Unlock()
	c.cancel()
	closedErr := &closedError{cause: cause}
	for _, p := range pending {
		if p.ch != nil {
			p.ch <- reply{err: closedErr}
		}
	}
	for _, s := range subs {
		s.finish(closedErr)
	}
	if cause != nil {
		c.logger.Debug("mcp client: connection ended", "error", cause)
	}
}

// deliver hands a response to the call waiting for it.
func (c *Client) deliver(msg *jsonrpc.Message) {
	id, err := strconv.ParseInt(msg.ID.String(), 10, 64)
	var p *pendingCall
	if err == nil {
		c.mu.Lock()
		p = c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
	}
	switch {
	case p == nil && err == nil && id > 0 && id <= c.nextID.Load():
		// Normal after a cancellation or timeout: the server answered anyway.
		c.logger.Debug("mcp client: response for a request no longer waiting", "id", msg.ID.String())
	case p == nil:
		c.logger.Warn("mcp client: ignoring a response to an unknown request", "id", msg.ID.String(), "message", describeResponse(msg))
	case p.sub != nil:
		p.sub.ended(msg)
	default:
		p.ch <- reply{msg: msg}
	}
}

func describeResponse(msg *jsonrpc.Message) string {
	if msg.Error != nil {
		return msg.Error.Error()
	}
	return string(truncate(msg.Result))
}

func truncate(b []byte) []byte {
	if len(b) > 200 {
		return b[:200]
	}
	return b
}

// notificationParams is the union of the notification params this client
// reads, so each is decoded once.
type notificationParams struct {
	RequestID     json.RawMessage `json:"requestId"`
	Reason        string          `json:"reason"`
	URI           string          `json:"uri"`
	ElicitationID string          `json:"elicitationId"`
	Notifications *ListenFilter   `json:"notifications"`
	Meta          struct {
		SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
	} `json:"_meta"`
}

// handleNotification runs on the reader goroutine.
func (c *Client) handleNotification(msg *jsonrpc.Message) {
	o := &c.opts
	if o.OnNotification != nil {
		o.OnNotification(msg.Method, msg.Params)
	}
	switch msg.Method {
	case notifyProgress:
		c.progressed(msg)
		return
	case notifyMessage:
		if o.OnLog == nil {
			return
		}
		var m LogMessage
		if err := json.Unmarshal(msg.Params, &m); err != nil {
			c.dropped(msg, err)
			return
		}
		o.OnLog(&m)
		return
	}
	var p notificationParams
	if len(msg.Params) > 0 {
		if err := json.Unmarshal(msg.Params, &p); err != nil {
			c.dropped(msg, err)
			return
		}
	}
	// Listen traffic is tagged with its subscription; drop what belongs to
	// none of ours (a subscription closed while the server was sending).
	var sub *Subscription
	if len(p.Meta.SubscriptionID) > 0 {
		id, err := strconv.ParseInt(string(p.Meta.SubscriptionID), 10, 64)
		if err == nil {
			c.mu.Lock()
			sub = c.subs[id]
			c.mu.Unlock()
		}
		if sub == nil {
			c.logger.Debug("mcp client: notification for no current subscription", "method", msg.Method, "subscription", string(p.Meta.SubscriptionID))
			return
		}
	}
	switch msg.Method {
	case notifyToolsChanged:
		if o.OnToolListChanged != nil {
			o.OnToolListChanged()
		}
	case notifyPromptsChanged:
		if o.OnPromptListChanged != nil {
			o.OnPromptListChanged()
		}
	case notifyResourcesChanged:
		if o.OnResourceListChanged != nil {
			o.OnResourceListChanged()
		}
	case notifyResourceUpdated:
		if o.OnResourceUpdated != nil {
			o.OnResourceUpdated(p.URI)
		}
	case notifyAcknowledged:
		if sub == nil || p.Notifications == nil {
			c.dropped(msg, errors.New("acknowledgement without a subscription id or filter"))
			return
		}
		sub.acknowledge(*p.Notifications)
	case notifyElicitationDone:
		if o.OnElicitationComplete != nil {
			o.OnElicitationComplete(p.ElicitationID)
		}
	case notifyCancelled:
		c.serverCancelled(p.RequestID, p.Reason)
	}
}

// progressed hands a notifications/progress to the call that asked for it.
func (c *Client) progressed(msg *jsonrpc.Message) {
	var p Progress
	if err := json.Unmarshal(msg.Params, &p); err != nil {
		c.dropped(msg, err)
		return
	}
	token, err := strconv.ParseInt(string(p.Token), 10, 64)
	var f func(Progress)
	if err == nil {
		c.mu.Lock()
		f = c.progress[token]
		c.mu.Unlock()
	}
	if f == nil {
		c.logger.Debug("mcp client: progress for no current request", "token", string(p.Token))
		return
	}
	f(p)
}

func (c *Client) dropped(msg *jsonrpc.Message, err error) {
	c.logger.Warn("mcp client: dropping a malformed notification", "method", msg.Method, "error", err, "params", string(truncate(msg.Params)))
}

// serverCancelled handles notifications/cancelled from the server: it
// cancels a server request being answered, or ends a subscription (the
// server's way of ending a listen stream on stdio).
func (c *Client) serverCancelled(requestID json.RawMessage, reason string) {
	var id jsonrpc.ID
	if err := id.UnmarshalJSON(requestID); err != nil || !id.IsValid() {
		return
	}
	c.mu.Lock()
	if r := c.inflight[id.String()]; r != nil {
		r.cancelled = true
		r.cancel()
		c.mu.Unlock()
		return
	}
	var sub *Subscription
	if n, err := strconv.ParseInt(id.String(), 10, 64); err == nil {
		sub = c.subs[n]
		delete(c.subs, n)
		delete(c.pending, n)
	}
	c.mu.Unlock()
	if sub != nil {
		sub.finish(&SubscriptionEndedError{Reason: reason})
	}
}

// serveRequest answers a server-to-client request. ping is answered at once;
// everything else runs in its own goroutine because callbacks may block.
func (c *Client) serveRequest(msg *jsonrpc.Message) {
	if msg.Method == methodPing {
		c.respond(msg.ID, []byte("{}"), nil)
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	r := &inflightRequest{cancel: cancel}
	key := msg.ID.String()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		cancel()
		return
	}
	c.inflight[key] = r
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		result, err := c.serveInput(ctx, msg.Method, msg.Params)
		c.mu.Lock()
		delete(c.inflight, key)
		skip := r.cancelled || c.closed
		c.mu.Unlock()
		cancel()
		if skip {
			return
		}
		c.respond(msg.ID, result, err)
	}()
}

// respond sends the response to a server request.
func (c *Client) respond(id jsonrpc.ID, result []byte, err error) {
	var msg []byte
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		msg = jsonrpc.AppendError(nil, id, &jsonrpc.Error{Code: e.Code, Message: e.Message, Data: e.Data})
	} else {
		msg = jsonrpc.AppendResult(make([]byte, 0, 40+len(result)), id, result)
	}
	if err := c.t.Send(c.ctx, msg); err != nil && c.ctx.Err() == nil {
		c.logger.Warn("mcp client: sending a response to the server failed", "id", id.String(), "error", err)
	}
}
