package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
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

// notified runs the handlers of a notification on the reader goroutine; a
// handler's panic is recovered and reported (see [PanicError]) and the
// reader goes on.
func (c *Client) notified(msg *jsonrpc.Message) {
	callback := ""
	defer func() {
		if r := recover(); r != nil {
			if callback == "" {
				callback = "handling " + msg.Method
			}
			c.panicked(callback, r)
		}
	}()
	c.handleNotification(msg, &callback)
}

// handleNotification runs on the reader goroutine. Before it calls a user's
// handler it sets *callback to the handler's name, for a panic's report.
func (c *Client) handleNotification(msg *jsonrpc.Message, callback *string) {
	o := &c.opts
	if o.OnNotification != nil {
		*callback = "OnNotification"
		o.OnNotification(msg.Method, bytes.Clone(msg.Params)) // the handler's to keep: not the frame's bytes
		*callback = ""
	}
	switch msg.Method {
	case notifyProgress:
		c.progressed(msg, callback)
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
		*callback = "OnLog"
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
			*callback = "OnToolListChanged"
			o.OnToolListChanged()
		}
	case notifyPromptsChanged:
		if o.OnPromptListChanged != nil {
			*callback = "OnPromptListChanged"
			o.OnPromptListChanged()
		}
	case notifyResourcesChanged:
		if o.OnResourceListChanged != nil {
			*callback = "OnResourceListChanged"
			o.OnResourceListChanged()
		}
	case notifyResourceUpdated:
		if o.OnResourceUpdated != nil {
			*callback = "OnResourceUpdated"
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
			*callback = "OnElicitationComplete"
			o.OnElicitationComplete(p.ElicitationID)
		}
	case notifyCancelled:
		c.serverCancelled(p.RequestID, p.Reason)
	case notifyTaskStatus, notifyTasks:
		c.taskNotified(msg, callback)
	}
}

// progressSink is the progress handler of one call. The handler runs only
// while a request carrying the token waits for its response (live): once
// the reader has taken the response, or the call is over (done), it never
// runs for that request again. The reader runs it under mu, and the call
// sets done under mu before it returns. The rounds of a multi round-trip
// call share the token: each new request makes it live again.
type progressSink struct {
	mu   sync.Mutex
	f    func(Progress)
	live bool
	done bool
	task bool // the request may become a task, whose progress outlives the response
}

func (s *progressSink) run(p Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live && !s.done {
		s.f(p)
	}
}

// await marks the token live: a request carrying it is about to go out.
func (s *progressSink) await() {
	s.mu.Lock()
	s.live = true
	s.mu.Unlock()
}

// answered ends the token's life for the request just answered.
func (s *progressSink) answered() {
	s.mu.Lock()
	s.live = false
	s.mu.Unlock()
}

// responded is answered, unless the request may have become a task, whose
// progress goes on after the response (the caller ends it then); the reader
// calls it before it hands the response over.
func (s *progressSink) responded() {
	s.mu.Lock()
	if !s.task {
		s.live = false
	}
	s.mu.Unlock()
}

// outlivesResponse marks the token as one of a request that may become a
// task.
func (s *progressSink) outlivesResponse() {
	s.mu.Lock()
	s.task = true
	s.mu.Unlock()
}

func (s *progressSink) stop() {
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
}

// progressed hands a notifications/progress to the call that asked for it.
func (c *Client) progressed(msg *jsonrpc.Message, callback *string) {
	var p Progress
	if err := json.Unmarshal(msg.Params, &p); err != nil {
		c.dropped(msg, err)
		return
	}
	token, err := strconv.ParseInt(string(p.Token), 10, 64)
	var s *progressSink
	if err == nil {
		c.mu.Lock()
		s = c.progress[token]
		c.mu.Unlock()
	}
	if s == nil {
		c.logger.Debug("mcp client: progress for no current request", "token", string(p.Token))
		return
	}
	*callback = "WithProgress"
	s.run(p)
}

func (c *Client) dropped(msg *jsonrpc.Message, err error) {
	c.logger.Warn("mcp client: dropping a malformed notification", "method", msg.Method, "error", err, "params", string(truncate(msg.Params)))
}

// serverCancelled handles notifications/cancelled from the server: it
// cancels a server request being answered, or ends a subscription (the
// server's way of ending a listen stream on stdio). A server cannot cancel
// the client's other requests (only the sender of a request may), so those
// go on: dropping one here would leave its caller waiting for nothing.
func (c *Client) serverCancelled(requestID json.RawMessage, reason string) {
	var id jsonrpc.ID
	if err := id.UnmarshalJSON(requestID); err != nil || !id.IsValid() {
		c.logger.Warn("mcp client: ignoring a notifications/cancelled without a usable requestId", "requestId", string(truncate(requestID)))
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
		if p := c.pending[n]; p != nil && p.sub != nil {
			sub = p.sub
			delete(c.subs, n)
			delete(c.pending, n)
		}
	}
	c.mu.Unlock()
	if sub != nil {
		sub.finish(&SubscriptionEndedError{Reason: reason})
		return
	}
	c.logger.Warn("mcp client: ignoring a notifications/cancelled for a request the server did not send or no longer runs", "requestId", id.String(), "reason", reason)
}

// codeBusy answers a server request refused because too many are being
// answered already (a JSON-RPC implementation-defined server error).
const codeBusy int64 = -32000

// serveRequest answers a server-to-client request. ping is answered at once;
// everything else runs in its own goroutine because callbacks may block. A
// request reusing the id of one still being answered, or beyond
// Options.MaxServerRequests in flight, is refused with an error. What the
// reader answers itself it queues (see [Client.queueResponse]): it never
// waits for a peer to read.
func (c *Client) serveRequest(msg *jsonrpc.Message) {
	if msg.Method == methodPing {
		c.queueResponse(msg.ID, []byte("{}"), nil)
		return
	}
	key := msg.ID.String()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	if c.inflight[key] != nil {
		c.mu.Unlock()
		c.logger.Warn("mcp client: refusing a server request whose id is still in use", "id", key, "method", msg.Method)
		c.queueResponse(msg.ID, nil, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf(
			"duplicate request id %s: the client is still answering an earlier request with this id", key)})
		return
	}
	if n := c.serving; n >= c.opts.MaxServerRequests {
		c.refused++
		first := c.refused == 1
		c.mu.Unlock()
		lvl := slog.LevelDebug
		if first {
			lvl = slog.LevelWarn
		}
		c.logger.Log(context.Background(), lvl, "mcp client: refusing a server request: too many in flight", "id", key, "method", msg.Method, "limit", n)
		c.queueResponse(msg.ID, nil, &Error{Code: codeBusy, Message: fmt.Sprintf(
			"too many requests: the client is already answering %d requests from the server (its limit, Options.MaxServerRequests); %s refused", n, msg.Method)})
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	r := &inflightRequest{cancel: cancel}
	if c.inflight == nil {
		c.inflight = make(map[string]*inflightRequest)
	}
	c.inflight[key] = r
	c.serving++
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		defer func() {
			c.mu.Lock()
			c.serving-- // only now: a response the peer does not read holds its place
			c.mu.Unlock()
		}()
		result, err := c.answerInput(ctx, msg.Method, msg.Params)
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

// respond sends the response to a server request and waits for the
// transport to take it. Only a callback's goroutine may wait so; the reader
// queues its responses instead.
func (c *Client) respond(id jsonrpc.ID, result []byte, err error) {
	c.sendResponse(id, responseMessage(id, result, err))
}

func (c *Client) sendResponse(id jsonrpc.ID, msg []byte) {
	if err := c.t.Send(c.ctx, msg); err != nil && c.ctx.Err() == nil {
		c.logger.Warn("mcp client: sending a response to the server failed", "id", id.String(), "error", err)
	}
}

// responseMessage encodes the response to a server request.
func responseMessage(id jsonrpc.ID, result []byte, err error) []byte {
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		return jsonrpc.AppendError(nil, id, &jsonrpc.Error{Code: e.Code, Message: e.Message, Data: e.Data})
	}
	return jsonrpc.AppendResult(make([]byte, 0, 40+len(result)), id, result)
}

// maxQueuedResponses bounds the bytes of the responses the reader has left
// to be sent. Only a peer that sends requests without reading the answers
// (pings, refusals) fills it; beyond it they are dropped, so that such a
// peer costs the client a bounded amount of memory and never its reader.
const maxQueuedResponses = 1 << 20

// queuedResponse is a response the reader left to be sent.
type queuedResponse struct {
	id  jsonrpc.ID
	msg []byte
}

// outbox holds the responses the reader answers itself, in the order it
// answered them. One goroutine at a time sends them (started when the
// first arrives, gone once they are sent), so the reader never waits for
// the peer to read: a reader blocked on a write would stop reading, and
// a peer blocked on its writes to it would stop too.
type outbox struct {
	mu      sync.Mutex
	queue   []queuedResponse
	size    int  // bytes in queue
	sending bool // the sending goroutine runs
	dropped int
}

// queueResponse queues the response to a server request for the sending
// goroutine, or drops it when the peer has left too many unread.
func (c *Client) queueResponse(id jsonrpc.ID, result []byte, err error) {
	msg := responseMessage(id, result, err)
	o := &c.out
	o.mu.Lock()
	if o.size > 0 && o.size+len(msg) > maxQueuedResponses {
		o.dropped++
		n, waiting := o.dropped, o.size
		o.mu.Unlock()
		lvl := slog.LevelDebug
		if n == 1 {
			lvl = slog.LevelWarn
		}
		c.logger.Log(context.Background(), lvl, "mcp client: dropping a response to a server request: the server is not reading what the client sends (the responses waiting for it reached their limit)",
			"id", id.String(), "waiting", waiting, "dropped", n)
		return
	}
	o.queue = append(o.queue, queuedResponse{id, msg})
	o.size += len(msg)
	start := !o.sending
	o.sending = true
	o.mu.Unlock()
	if start && !c.spawn(c.sendQueued) {
		o.mu.Lock()
		o.queue, o.size, o.sending = nil, 0, false // closed: nothing more is sent
		o.mu.Unlock()
	}
}

// sendQueued sends the queued responses in order until none is left or
// the connection ends.
func (c *Client) sendQueued() {
	o := &c.out
	for {
		o.mu.Lock()
		if len(o.queue) == 0 || c.ctx.Err() != nil {
			o.queue, o.size, o.sending = nil, 0, false
			o.mu.Unlock()
			return
		}
		r := o.queue[0]
		o.queue[0] = queuedResponse{}
		o.queue = o.queue[1:]
		o.size -= len(r.msg)
		o.mu.Unlock()
		c.sendResponse(r.id, r.msg)
	}
}
