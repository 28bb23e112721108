package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
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

// pendingCall is a request waiting for its response. Exactly one of done
// and sub is set. Whoever removes it from Client.pending (the reader with the
// response, the sender with a failure, the caller giving up, or the end of
// the connection) is the one that answers it (see [pendingCall.answer]), so
// every call ends exactly once.
type pendingCall struct {
	done     chan struct{} // closed once r is set
	r        reply
	sub      *Subscription
	method   string        // to recognise the request echoed back
	progress *progressSink // the request's progress token, if it has one
	state    atomic.Int32  // sending, sent or abandoned
}

// States of a request's send; see [Client.sendRequest].
const (
	sending   int32 = iota
	sent            // the transport took it
	abandoned       // the caller stopped waiting before the transport took it
)

type reply struct {
	msg *jsonrpc.Message
	err error
}

// answer ends a call (one waiting on done, not a subscription). A closed
// channel, rather than one carrying the reply, costs one allocation less
// per request.
func (p *pendingCall) answer(r reply) {
	p.r = r
	close(p.done)
}

// inflightRequest is a server-to-client request being answered.
type inflightRequest struct {
	cancel    context.CancelFunc
	cancelled bool // the server cancelled it: send no response
}

// register adds a pending call, unless the connection has ended, and counts
// the goroutine that sends it (Close waits for it).
func (c *Client) register(id int64, p *pendingCall) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return &closedError{cause: c.cause}
	}
	c.pending[id] = p
	c.wg.Add(1)
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
// result or the error. ctx bounds the call: when it ends first, the call
// returns at once with ctx's cause, and the server is told with
// notifications/cancelled, without the caller waiting for that (see
// [Client.sendRequest] and [Client.cancelRequest]). progress is the sink of
// the progress token params carry, nil when they carry none.
func (c *Client) roundTrip(ctx context.Context, o op, params []byte, progress *progressSink) (json.RawMessage, error) {
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", o, context.Cause(ctx))
	}
	id := c.nextID.Add(1)
	p := &pendingCall{done: make(chan struct{}), method: o.method, progress: progress}
	if progress != nil {
		progress.await() // before the request goes out, and so before its progress can come
	}
	if err := c.register(id, p); err != nil {
		return nil, fmt.Errorf("%s: %w", o, err)
	}
	msg := jsonrpc.AppendRequest(make([]byte, 0, 48+len(o.method)+len(params)), jsonrpc.Int64ID(id), o.method, params)
	go c.sendRequest(ctx, id, p, msg)
	select {
	case <-p.done:
		return p.r.result(o)
	case <-ctx.Done():
		if !c.unregister(id) {
			// The response (or the end of the connection) won the race.
			<-p.done
			return p.r.result(o)
		}
		cause := context.Cause(ctx)
		c.abandon(id, p, cause)
		return nil, fmt.Errorf("%s: %w", o, cause)
	}
}

// sendRequest sends a request on its own goroutine, so that a transport
// whose Send does not return when ctx ends cannot hold the caller past its
// deadline. A failure goes to the call, if it still waits; a request the
// transport took after its caller had given up is cancelled from here, so
// that the server never sees the cancellation before the request.
func (c *Client) sendRequest(ctx context.Context, id int64, p *pendingCall, msg []byte) {
	defer c.wg.Done()
	err := c.t.Send(ctx, msg)
	if err == nil {
		if !p.state.CompareAndSwap(sending, sent) {
			c.sendCancel(id, cancelNotice(id, context.Cause(ctx)))
		}
		return
	}
	if !c.unregister(id) {
		return
	}
	err = c.sendError(ctx, err)
	if p.sub != nil {
		c.forget(id)
		p.sub.finish(err)
		return
	}
	p.answer(reply{err: err})
}

// abandon tells the server that the caller stopped waiting for request id,
// which the caller has just unregistered: now, when the request is out, or
// else once the transport takes it (see [Client.sendRequest]).
func (c *Client) abandon(id int64, p *pendingCall, why error) {
	if p.state.CompareAndSwap(sending, abandoned) {
		return
	}
	c.cancelRequest(id, why)
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

// sendError explains a failed Send: the connection ended, the caller gave
// up, or the transport refused the message.
func (c *Client) sendError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	c.mu.Lock()
	closed, cause := c.closed, c.cause
	c.mu.Unlock()
	if closed || c.ctx.Err() != nil {
		return &closedError{cause: cause}
	}
	return fmt.Errorf("sending: %w", err)
}

// Bounds of the notifications/cancelled a call sends when it gives up. The
// caller waits at most cancelWait for it (long enough, on any machine, for a
// transport with room to take it, so that what the caller sends next comes
// after it); the send itself goes on in the background for at most
// cancelGrace, after which it is dropped and logged.
const (
	cancelWait  = 100 * time.Millisecond
	cancelGrace = 5 * time.Second
)

// cancelNotice is the notifications/cancelled for request id.
func cancelNotice(id int64, why error) []byte {
	b := make([]byte, 0, 96)
	b = append(b, `{"requestId":`...)
	b = strconv.AppendInt(b, id, 10)
	if why != nil {
		b = append(b, `,"reason":`...)
		b = jsonrpc.AppendString(b, cancelReason+why.Error())
	}
	b = append(b, '}')
	return jsonrpc.AppendRequest(make([]byte, 0, 64+len(b)), jsonrpc.ID{}, notifyCancelled, b)
}

// cancelRequest tells the server the client no longer waits for request id.
// It is best-effort and never holds the caller for more than cancelWait.
func (c *Client) cancelRequest(id int64, why error) {
	msg := cancelNotice(id, why)
	done := make(chan struct{})
	if !c.spawn(func() {
		defer close(done)
		c.sendCancel(id, msg)
	}) {
		return
	}
	t := time.NewTimer(cancelWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// sendCancel sends a notifications/cancelled within cancelGrace. During
// Connect, Connect's ctx decides: a cancellation gets no longer than its
// deadline (the streamable HTTP transport POSTs it in the background until
// then), so that a Connect that fails comes back by its deadline, not after
// a cancellation the server does not take; and once that ctx has ended,
// none is sent, since Connect fails and closes the transport (this is also
// how initialize, which a client must not cancel, never is).
func (c *Client) sendCancel(id int64, msg []byte) {
	ctx, cancel := context.WithTimeout(c.ctx, cancelGrace)
	defer cancel()
	if start := c.starting.Load(); start != nil {
		if (*start).Err() != nil {
			return
		}
		if d, ok := (*start).Deadline(); ok {
			var cancelStart context.CancelFunc
			ctx, cancelStart = context.WithDeadline(ctx, d)
			defer cancelStart()
		}
	}
	if err := c.t.Send(ctx, msg); err != nil && c.ctx.Err() == nil {
		c.logger.Warn("mcp client: could not tell the server that the client stopped waiting (notifications/cancelled not sent)", "request", id, "error", err)
	}
}

// spawn runs f on a goroutine that Close waits for, unless the connection
// has ended (then it reports false and f does not run).
func (c *Client) spawn(f func()) bool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		f()
	}()
	return true
}

// sendWithin sends msg and waits for the transport until ctx ends, but no
// longer: a Send that does not honour ctx carries on in the background
// until the transport gives up or closes.
func (c *Client) sendWithin(ctx context.Context, msg []byte) error {
	errc := make(chan error, 1)
	if !c.spawn(func() { errc <- c.t.Send(ctx, msg) }) {
		return c.sendError(ctx, ErrClosed)
	}
	select {
	case err := <-errc:
		if err != nil {
			return c.sendError(ctx, err)
		}
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// notify sends a notification with params (a JSON object or nil).
func (c *Client) notify(ctx context.Context, method string, params []byte) error {
	msg := jsonrpc.AppendRequest(make([]byte, 0, 48+len(method)+len(params)), jsonrpc.ID{}, method, params)
	if err := c.sendWithin(ctx, msg); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// readLoop is the client's one permanent goroutine: it receives every
// message, hands responses to their callers, runs notification handlers in
// order, and starts a goroutine per server request (callbacks may block), up
// to Options.MaxServerRequests at once.
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
			c.noteUnusable(data, err)
			c.logger.Warn("mcp client: ignoring a message that is not JSON-RPC", "error", err, "message", truncate(data))
			continue
		}
		switch {
		case msg.IsResponse():
			c.deliver(msg)
		case msg.IsNotification():
			c.notified(msg)
		case c.echoed(msg):
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
	c.pending = nil // nothing is added once closed
	subs := c.subs
	c.subs = nil
	c.mu.Unlock()
	c.cancel()
	closedErr := &closedError{cause: cause}
	for _, p := range pending {
		if p.done != nil {
			p.answer(reply{err: closedErr})
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
		c.noteStray(msg)
		c.logger.Warn("mcp client: ignoring a response to an unknown request", "id", msg.ID.String(), "message", describeResponse(msg))
	case p.sub != nil:
		p.sub.ended(msg)
	default:
		if p.progress != nil {
			// Progress stops at completion: what the reader takes next for
			// this token must not reach the handler, however late the
			// caller gets to run.
			p.progress.responded()
		}
		p.answer(reply{msg: msg})
	}
}

// errEchoed is the error of a request that came back as it was sent.
var errEchoed = errors.New("the server echoed the request back instead of answering it " +
	"(is it an MCP server? a program that copies its input to its output, such as cat, repeats every request)")

// echoed recognises a request that is one of the client's own requests
// coming back (same id, same method): a peer that echoes its input. Taken
// for a server request, it would be answered "method not found", and that
// answer, echoed in turn, would look like the server's. It fails the call.
// A ping is never taken for an echo: servers send pings too, and since ids
// are per direction, one may carry the id of the client's own ping. The
// handshake's requests, which go first, are what catch an echoing peer.
func (c *Client) echoed(msg *jsonrpc.Message) bool {
	if msg.Method == methodPing {
		return false
	}
	id, err := strconv.ParseInt(msg.ID.String(), 10, 64)
	if err != nil {
		return false
	}
	c.mu.Lock()
	p := c.pending[id]
	if p == nil || p.method != msg.Method {
		c.mu.Unlock()
		return false
	}
	delete(c.pending, id)
	c.mu.Unlock()
	if p.sub != nil {
		c.forget(id)
		p.sub.finish(errEchoed)
	} else {
		p.answer(reply{err: errEchoed})
	}
	return true
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
