package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// Codes of the JSON-RPC error responses [StreamableHTTP] makes up when a
// request gets no usable answer from the server. Both lie outside the range
// JSON-RPC and MCP reserve (-32768 to -32000): they are this transport's
// local errors, not the server's, and they are deliberately none of the
// codes (-32020, -32021, -32022, -32602, -32601) by which a 2026-07-28 server
// identifies itself, so a dual-era client that sees one while probing falls
// back to a legacy initialize.
const (
	// CodeHTTPError: the request failed at the HTTP level. The server could
	// not be reached, answered with an HTTP error status and no JSON-RPC
	// error body, sent a reply that is not JSON-RPC, or ended the response
	// stream before the response and it could not be resumed. The message
	// names the HTTP status; data is {"status": <int, when there was one>,
	// "body": <the start of the body, when there was one>}.
	CodeHTTPError int64 = -31000
	// CodeSessionExpired: the server answered HTTP 404 to a request that
	// carried a session id, which means the session is gone. The transport
	// forgets the session; the client should initialize again.
	CodeSessionExpired int64 = -31001
)

// Defaults and limits for [StreamableHTTP].
const (
	// DefaultMaxBodySize caps a JSON reply body and the data of one SSE event
	// (16 MiB).
	DefaultMaxBodySize = 16 << 20
	// maxErrorBody caps how much of an HTTP error body is read.
	maxErrorBody = 64 << 10
	// defaultRetry is the reconnection delay when the server gave no retry
	// hint; it doubles on each consecutive attempt that gets nothing.
	defaultRetry = time.Second
	// maxReconnects bounds consecutive reconnections that get nothing.
	maxReconnects = 5
	// listenWait bounds how long sending notifications/initialized waits for
	// the server to answer the standalone GET.
	listenWait = 5 * time.Second
	// deleteTimeout bounds the DELETE that ends a session on Close.
	deleteTimeout = 5 * time.Second
	// cancelTimeout bounds the POST of a legacy notifications/cancelled,
	// which runs in the background.
	cancelTimeout = 5 * time.Second

	modernVersion     = "2026-07-28" // the first version of the stateless era
	versionHeaderFrom = "2025-06-18" // the first version with the version header
	metaVersionKey    = "io.modelcontextprotocol/protocolVersion"
	methodInitialize  = "initialize"
	methodInitialized = "notifications/initialized"
	methodCancelled   = "notifications/cancelled"
	methodToolsList   = "tools/list"
	methodToolsCall   = "tools/call"
)

// ErrSessionExpired is wrapped by the [*StatusError] Send returns when the
// server answers HTTP 404 to a notification or response that carried a
// session id. (A request gets a [CodeSessionExpired] error response instead.)
var ErrSessionExpired = errors.New("session expired")

// StatusError is what Send returns when the server refuses a notification or
// a response with an HTTP error status. (A request's failure arrives as a
// JSON-RPC error response through Receive, because that is where its caller
// waits.)
type StatusError struct {
	// Method is the notification's method, or "response" for a response.
	Method string
	// Status is the HTTP status code.
	Status int
	// Body is the start of the response body.
	Body string
	// Err is ErrSessionExpired for a 404 on a session, else nil.
	Err error
}

// Error implements the error interface.
func (e *StatusError) Error() string {
	msg := fmt.Sprintf("transport: POST %s: HTTP %d %s", e.Method, e.Status, http.StatusText(e.Status))
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Unwrap returns Err.
func (e *StatusError) Unwrap() error { return e.Err }

// HTTPOption configures [HTTP] and [Handler].
type HTTPOption func(*httpConfig)

type httpConfig struct {
	client  *http.Client
	header  http.Header
	maxBody int
	logger  *slog.Logger
}

// WithHTTPClient sends every request through c instead of
// http.DefaultClient: for proxies, TLS settings or an authenticating
// RoundTripper. A Timeout on c bounds every HTTP request whole, long-lived
// SSE streams included, so prefer deadlines on the client's calls. With
// [Handler], c's settings are kept but its Transport is replaced by the
// in-process one.
func WithHTTPClient(c *http.Client) HTTPOption {
	return func(cfg *httpConfig) {
		if c != nil {
			cfg.client = c
		}
	}
}

// WithHeader adds a header to every HTTP request (e.g. Authorization). The
// transport's own headers (Accept, Content-Type and the Mcp-* ones) win over
// custom ones of the same name.
func WithHeader(key, value string) HTTPOption {
	return func(cfg *httpConfig) { cfg.header.Add(key, value) }
}

// WithHeaders adds every header in h to every HTTP request, like
// [WithHeader].
func WithHeaders(h http.Header) HTTPOption {
	return func(cfg *httpConfig) {
		for k, vs := range h {
			for _, v := range vs {
				cfg.header.Add(k, v)
			}
		}
	}
}

// WithMaxBodySize caps a JSON reply body and the data of one SSE event; a
// larger one fails the request with [CodeHTTPError]. The default is
// [DefaultMaxBodySize]; n <= 0 keeps it.
func WithMaxBodySize(n int) HTTPOption {
	return func(cfg *httpConfig) {
		if n > 0 {
			cfg.maxBody = n
		}
	}
}

// WithLogger sets where the transport reports what it recovers from by
// itself: tools dropped for invalid x-mcp-header annotations (a warning, as
// the spec asks), and a standalone GET stream that failed. The default is
// slog.Default().
func WithLogger(l *slog.Logger) HTTPOption {
	return func(cfg *httpConfig) {
		if l != nil {
			cfg.logger = l
		}
	}
}

// StreamableHTTP is the MCP streamable HTTP transport, client side, for both
// eras of the protocol. It satisfies the client package's Transport
// interface. Every message is one POST; responses come back in the POST's
// reply, as one JSON object or as an SSE stream.
//
// The transport reads what it needs from the messages that pass through it:
//
//   - Legacy sessions (2025-03-26 to 2025-11-25): the Mcp-Session-Id of the
//     initialize reply goes on every later request, and the negotiated
//     version in MCP-Protocol-Version from 2025-06-18 on. Once the client
//     sends notifications/initialized, a GET stream carries the server's own
//     requests and notifications (a 405 means the server offers none). An
//     SSE stream that ends before the response it carries is resumed with GET
//     and Last-Event-ID after the server's retry hint. A 404 to a request
//     with a session id means the session expired. Close sends DELETE.
//   - 2026-07-28 (a request whose params._meta carries that protocol
//     version): MCP-Protocol-Version, Mcp-Method, Mcp-Name and the
//     Mcp-Param-* headers of the tool's x-mcp-header annotations, learnt
//     from tools/list results (tools with invalid annotations are dropped
//     from the result, with a warning). There is no session and no GET
//     stream. A notifications/cancelled for such a request is not sent:
//     closing the request's response stream is the cancellation.
//
// HTTP errors whose body is a JSON-RPC error are delivered as that error,
// addressed to the request, so a client probing the era sees the server's
// code. A request that gets no usable answer receives a made-up error
// response with [CodeHTTPError] or [CodeSessionExpired].
//
// Send returns as soon as a request is on its way; notifications and
// responses are sent synchronously and their HTTP errors returned as a
// [*StatusError], except notifications/cancelled, which is best effort: it
// is POSTed in the background (for at most 5 seconds) so that a server that
// does not answer it cannot hold up the caller who gave up, and its failure
// is logged. Each request runs in a goroutine of its own until its
// response arrives; Close ends them all.
type StreamableHTTP struct {
	url    string
	urlErr error
	cfg    httpConfig
	inproc *handlerTransport // set by Handler

	ctx    context.Context // ends every request; cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	incoming chan []byte

	mu        sync.Mutex
	closed    bool
	session   string                    // legacy session id, "" when none
	expired   string                    // the session that expired, until the next initialize
	version   string                    // legacy negotiated version
	calls     map[string]*call          // requests in flight, by id
	tools     map[string][]paramBinding // x-mcp-header bindings by tool name
	listening bool                      // the standalone GET stream runs
	modern    bool                      // the last request sent was 2026-07-28

	closeOnce sync.Once
	closeErr  error
}

// call is one request in flight.
type call struct {
	id      jsonrpc.ID
	method  string
	modern  bool
	init    bool
	session string // the session id the POST carried
	ctx     context.Context
	cancel  context.CancelFunc

	answered atomic.Bool // its response was delivered
	givenUp  atomic.Bool // the client cancelled it: report nothing more
}

// HTTP returns a transport that talks to the MCP endpoint at rawURL. No
// connection is made until the first Send; a malformed URL is reported then.
func HTTP(rawURL string, opts ...HTTPOption) *StreamableHTTP {
	cfg := httpConfig{client: http.DefaultClient, header: http.Header{}, maxBody: DefaultMaxBodySize, logger: slog.Default()}
	for _, o := range opts {
		o(&cfg)
	}
	cfg.client = refuseMethodChange(cfg.client)
	t := &StreamableHTTP{
		url:      rawURL,
		cfg:      cfg,
		incoming: make(chan []byte, queueSize),
		calls:    map[string]*call{},
		tools:    map[string][]paramBinding{},
	}
	if u, err := url.Parse(rawURL); err != nil {
		t.urlErr = fmt.Errorf("transport: HTTP: invalid URL %q: %w", rawURL, err)
	} else if u.Scheme != "http" && u.Scheme != "https" {
		t.urlErr = fmt.Errorf("transport: HTTP: URL %q must start with http:// or https://", rawURL)
	}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	return t
}

// refuseMethodChange returns a copy of c that refuses the redirects after
// which net/http would change the method: a 301, 302 or 303 turns the
// POST of a message (and the DELETE of a session) into a GET, which can
// only fail confusingly. 307 and 308 keep the method and the body, and are
// followed, subject to c's own CheckRedirect.
func refuseMethodChange(c *http.Client) *http.Client {
	cc := *c
	next := c.CheckRedirect
	cc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if orig := via[0].Method; req.Method != orig {
			status := "a redirect"
			if req.Response != nil {
				status = fmt.Sprintf("HTTP %d %s", req.Response.StatusCode, http.StatusText(req.Response.StatusCode))
			}
			return fmt.Errorf("the server answered %s %s with %s to %s; following it would turn the %s into a %s, so the transport refuses it (307 and 308 keep the method and are followed): use the URL it points to",
				orig, via[len(via)-1].URL.Redacted(), status, req.URL.Redacted(), orig, req.Method)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &cc
}

// SessionID returns the current legacy session id, or "" when there is none
// (no initialize yet, a stateless server, a 2026-07-28 connection, or an
// expired session).
func (t *StreamableHTTP) SessionID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.session
}

// Send sends one message. See [StreamableHTTP] for what happens to each kind.
func (t *StreamableHTTP) Send(ctx context.Context, msg []byte) error {
	if t.urlErr != nil {
		return t.urlErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m, err := jsonrpc.Decode(msg)
	if err != nil {
		return fmt.Errorf("transport: Send: %w", err)
	}
	if m.IsRequest() {
		return t.startCall(m, msg)
	}
	if m.Method == methodCancelled {
		if handled, legacy := t.cancelCall(m); !handled {
			return t.postCancel(m, msg, legacy)
		}
		return nil
	}
	return t.postOther(ctx, m, msg)
}

// postCancel POSTs a legacy notifications/cancelled in the background and
// returns at once. Cancellation is best effort, and whoever sends it has
// given up waiting already: a server that does not answer this POST must
// not hold the caller past its deadline. The POST is bounded by
// cancelTimeout, not by Close, which waits for it: a server that runs the
// request until told otherwise must still hear of it when the client
// closes right after giving up. Its failure goes to the logger.
func (t *StreamableHTTP) postCancel(m *jsonrpc.Message, msg []byte, legacy *call) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrClosed
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
		defer cancel()
		err := t.post(ctx, m, msg)
		if legacy != nil && err == nil {
			legacy.cancel() // the server was told; stop waiting on its stream
		}
		if err != nil {
			t.cfg.logger.Warn("transport: notifications/cancelled was not delivered", "url", t.url, "error", err)
		}
	}()
	return nil
}

// Receive returns the next message from the server.
func (t *StreamableHTTP) Receive(ctx context.Context) ([]byte, error) {
	select {
	case <-t.ctx.Done():
		return nil, ErrClosed
	default:
	}
	select {
	case m := <-t.incoming:
		return m, nil
	case <-t.ctx.Done():
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close ends every request in flight and the GET stream, waits for their
// goroutines, and, when a legacy session is open, DELETEs it (a 405 answer is
// fine: the server lets sessions expire). It returns the DELETE's error, if
// any. Close is safe to call more than once.
func (t *StreamableHTTP) Close() error {
	t.closeOnce.Do(func() {
		t.mu.Lock()
		t.closed = true
		session, version := t.session, t.version
		t.mu.Unlock()
		t.cancel()
		t.wg.Wait()
		if session != "" {
			t.closeErr = t.deleteSession(session, version)
		}
		if t.inproc != nil {
			if err := t.inproc.wait(); err != nil && t.closeErr == nil {
				t.closeErr = err
			}
		}
	})
	return t.closeErr
}

func (t *StreamableHTTP) deleteSession(session, version string) error {
	ctx, cancel := context.WithTimeout(context.Background(), deleteTimeout)
	defer cancel()
	h := t.header("")
	h.Set(headerSessionID, session)
	if version >= versionHeaderFrom {
		h.Set(headerProtocolVersion, version)
	}
	resp, err := t.do(ctx, http.MethodDelete, nil, h)
	if err != nil {
		return fmt.Errorf("transport: ending session %s with DELETE: %w", session, err)
	}
	defer resp.Body.Close()
	body := readExcerpt(resp.Body)
	switch {
	case resp.StatusCode/100 == 2, resp.StatusCode == http.StatusMethodNotAllowed, resp.StatusCode == http.StatusNotFound:
		return nil // ended, not supported, or already gone
	default:
		return fmt.Errorf("transport: ending session %s with DELETE: HTTP %d %s: %s", session, resp.StatusCode, http.StatusText(resp.StatusCode), body)
	}
}

// header returns the custom headers plus Accept (when given).
func (t *StreamableHTTP) header(accept string) http.Header {
	h := t.cfg.header.Clone()
	if accept != "" {
		h.Set("Accept", accept)
	}
	return h
}

// legacyHeaders adds the session id and negotiated version; t.mu is held.
func (t *StreamableHTTP) legacyHeaders(h http.Header) {
	if t.session != "" {
		h.Set(headerSessionID, t.session)
	}
	if t.version >= versionHeaderFrom {
		h.Set(headerProtocolVersion, t.version)
	}
}

func (t *StreamableHTTP) do(ctx context.Context, method string, body []byte, h http.Header) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.url, r)
	if err != nil {
		return nil, err
	}
	req.Header = h
	return t.cfg.client.Do(req)
}

// requestParams holds what the transport reads from a request's params.
type requestParams struct {
	Meta struct {
		ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
	} `json:"_meta"`
	Name      json.RawMessage `json:"name"`
	URI       json.RawMessage `json:"uri"`
	Arguments json.RawMessage `json:"arguments"`
}

func stringOf(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func (t *StreamableHTTP) startCall(m *jsonrpc.Message, body []byte) error {
	var p requestParams
	if len(m.Params) > 0 {
		_ = json.Unmarshal(m.Params, &p) // a bad params object is the server's to refuse
	}
	c := &call{id: m.ID, method: m.Method, modern: p.Meta.ProtocolVersion >= modernVersion, init: m.Method == methodInitialize}
	h := t.header("application/json, text/event-stream")
	h.Set("Content-Type", "application/json")

	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrClosed
	}
	if old, dup := t.calls[m.ID.String()]; dup && !old.answered.Load() {
		return fmt.Errorf("transport: Send: request id %s is already in flight", m.ID)
	}
	t.modern = c.modern
	switch {
	case c.modern:
		h.Set(headerProtocolVersion, p.Meta.ProtocolVersion)
		h.Set(headerMethod, m.Method)
		var name string
		var ok bool
		switch m.Method {
		case methodToolsCall, "prompts/get":
			name, ok = stringOf(p.Name)
		case "resources/read":
			name, ok = stringOf(p.URI)
		}
		if ok {
			h.Set(headerName, encodeHeaderValue(name))
		}
		if m.Method == methodToolsCall && ok {
			for k, v := range paramHeaders(t.tools[name], p.Arguments) {
				h.Set(k, v)
			}
		}
	case !c.init:
		t.legacyHeaders(h)
	}
	c.session = h.Get(headerSessionID)
	c.ctx, c.cancel = context.WithCancel(t.ctx)
	t.calls[m.ID.String()] = c
	t.wg.Add(1)
	if expired := t.expired; expired != "" && !c.modern && !c.init {
		// Sent without the session id, the request would reach the server as
		// a stranger and fail confusingly; say what happened instead.
		go t.expiredCall(c, expired)
		return nil
	}
	go t.runCall(c, body, h)
	return nil
}

// cancelCall handles an outgoing notifications/cancelled. For a 2026-07-28
// request it aborts the request's POST, which is how that era cancels over
// HTTP, and reports handled: the notification is not sent. For a legacy
// request it notes that the client gave up and returns the call: the
// notification is POSTed (a legacy disconnect is no cancellation), and
// then the call's stream is dropped.
func (t *StreamableHTTP) cancelCall(m *jsonrpc.Message) (handled bool, legacy *call) {
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil || !p.RequestID.IsValid() {
		return false, nil // malformed: let the server say so
	}
	t.mu.Lock()
	c, ok := t.calls[p.RequestID.String()]
	modern := t.modern
	t.mu.Unlock()
	if !ok {
		return modern, nil // finished or unknown: only a legacy server hears of it
	}
	c.givenUp.Store(true)
	if c.modern {
		c.cancel()
		return true, nil
	}
	return false, c
}

func (t *StreamableHTTP) expiredCall(c *call, session string) {
	defer t.wg.Done()
	defer t.endCall(c)
	t.failCall(c, CodeSessionExpired, fmt.Sprintf("session %s expired (the server answered HTTP 404 Not Found); initialize again", session), 0, "")
}

// endCall forgets a finished call.
func (t *StreamableHTTP) endCall(c *call) {
	c.cancel()
	t.mu.Lock()
	if t.calls[c.id.String()] == c {
		delete(t.calls, c.id.String())
	}
	t.mu.Unlock()
}

func (t *StreamableHTTP) runCall(c *call, body []byte, h http.Header) {
	defer t.wg.Done()
	defer t.endCall(c)
	resp, err := t.do(c.ctx, http.MethodPost, body, h)
	if err != nil {
		t.failCall(c, CodeHTTPError, fmt.Sprintf("POST %s failed: %v", c.method, unwrapURLError(err)), 0, "")
		return
	}
	defer resp.Body.Close()
	t.callResponse(c, resp)
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func (t *StreamableHTTP) callResponse(c *call, resp *http.Response) {
	status := resp.StatusCode
	if status == http.StatusNotFound && c.session != "" && !c.modern {
		body := readExcerpt(resp.Body)
		t.expireSession(c.session)
		t.failCall(c, CodeSessionExpired, fmt.Sprintf("session %s expired: the server answered HTTP 404 Not Found to %s; initialize again", c.session, c.method), status, body)
		return
	}
	if status/100 != 2 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if msg := errorResponseFor(c, raw); msg != nil {
			c.answered.Store(true)
			t.deliver(c, msg)
			return
		}
		t.failCall(c, CodeHTTPError, fmt.Sprintf("HTTP %d %s from POST %s", status, http.StatusText(status), c.method), status, excerptString(raw))
		return
	}
	if c.init {
		sid := resp.Header.Get(headerSessionID)
		if !visibleASCII(sid) {
			t.failCall(c, CodeHTTPError, fmt.Sprintf("the server's Mcp-Session-Id %q is not visible ASCII", sid), status, "")
			return
		}
		t.mu.Lock()
		t.session, t.expired = sid, "" // "" for a server without sessions
		t.mu.Unlock()
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "text/event-stream":
		t.readCallStream(c, resp.Body)
	case "application/json", "":
		raw, err := readLimited(resp.Body, t.cfg.maxBody)
		switch {
		case err != nil:
			t.failCall(c, CodeHTTPError, fmt.Sprintf("reading the reply to %s: %v", c.method, err), status, "")
		case len(bytes.TrimSpace(raw)) == 0:
			t.failCall(c, CodeHTTPError, fmt.Sprintf("HTTP %d %s to %s carries no response", status, http.StatusText(status), c.method), status, "")
		default:
			if err := t.deliverData(c, raw); err != nil {
				t.failCall(c, CodeHTTPError, fmt.Sprintf("the reply to %s: %v", c.method, err), status, excerptString(raw))
			} else if !c.answered.Load() {
				t.failCall(c, CodeHTTPError, fmt.Sprintf("the JSON reply to %s does not answer request %s", c.method, c.id), status, excerptString(raw))
			}
		}
	default:
		body := readExcerpt(resp.Body)
		t.failCall(c, CodeHTTPError, fmt.Sprintf("the reply to %s has Content-Type %q, neither application/json nor text/event-stream", c.method, ct), status, body)
	}
}

// readCallStream reads a request's SSE reply until its response arrives.
// A legacy stream that ends early is resumed with GET and Last-Event-ID,
// after the server's retry hint.
func (t *StreamableHTTP) readCallStream(c *call, body io.Reader) {
	sr := newSSEReader(body, t.cfg.maxBody)
	if _, err := t.pump(c, sr); err != nil {
		t.failCall(c, CodeHTTPError, fmt.Sprintf("the SSE stream of %s: %v", c.method, err), 0, "")
		return
	}
	for attempt := 1; !c.answered.Load(); attempt++ {
		if c.givenUp.Load() || c.ctx.Err() != nil {
			return
		}
		switch {
		case c.modern:
			t.failCall(c, CodeHTTPError, fmt.Sprintf("the SSE stream of %s ended before its response%s; 2026-07-28 has no resumption, so send the request again with a new id", c.method, sr.how()), 0, "")
			return
		case !sr.hasID || sr.lastID == "":
			t.failCall(c, CodeHTTPError, fmt.Sprintf("the server ended the SSE stream of %s before its response%s, with no event id to resume from", c.method, sr.how()), 0, "")
			return
		case attempt > maxReconnects:
			t.failCall(c, CodeHTTPError, fmt.Sprintf("the SSE stream of %s ended before its response %d times in a row%s; giving up", c.method, maxReconnects, sr.how()), 0, "")
			return
		}
		if !sleepCtx(c.ctx, reconnectDelay(sr, attempt)) {
			return
		}
		h := t.header("text/event-stream")
		t.mu.Lock()
		t.legacyHeaders(h)
		t.mu.Unlock()
		if c.session != "" {
			h.Set(headerSessionID, c.session)
		}
		h.Set(headerLastEventID, sr.lastID)
		resp, err := t.do(c.ctx, http.MethodGet, nil, h)
		if err != nil {
			if c.ctx.Err() != nil {
				return
			}
			continue // the server may be restarting; try again
		}
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if resp.StatusCode/100 != 2 || ct != "text/event-stream" {
			body := readExcerpt(resp.Body)
			resp.Body.Close()
			if resp.StatusCode/100 == 5 {
				continue
			}
			t.failCall(c, CodeHTTPError, fmt.Sprintf("resuming the SSE stream of %s (GET with Last-Event-ID %q) failed: HTTP %d %s", c.method, sr.lastID, resp.StatusCode, http.StatusText(resp.StatusCode)), resp.StatusCode, body)
			return
		}
		sr.reset(resp.Body)
		n, err := t.pump(c, sr)
		resp.Body.Close()
		if err != nil {
			t.failCall(c, CodeHTTPError, fmt.Sprintf("the resumed SSE stream of %s: %v", c.method, err), 0, "")
			return
		}
		if n > 0 {
			attempt = 0 // progress: the next gap gets a fresh budget
		}
	}
}

// reconnectDelay is the server's retry hint, or the default doubled per
// consecutive attempt.
func reconnectDelay(sr *sseReader, attempt int) time.Duration {
	if sr.retrySet {
		return sr.retry
	}
	return defaultRetry << min(attempt-1, 5)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// pump delivers the messages of an SSE stream until it ends, the call's
// response arrives (c may be nil for the standalone stream), or a message
// is not JSON-RPC. It returns how many events it delivered. A stream that
// breaks off counts as ended, since it may be resumed.
func (t *StreamableHTTP) pump(c *call, sr *sseReader) (int, error) {
	n := 0
	for {
		data, err := sr.next()
		if err != nil {
			var tooLarge errEventTooLarge
			if errors.As(err, &tooLarge) {
				return n, err
			}
			sr.broken = nil
			if !errors.Is(err, io.EOF) {
				sr.broken = err // said when the stream cannot be resumed
			}
			return n, nil
		}
		if err := t.deliverData(c, data); err != nil {
			if c != nil {
				return n, err
			}
			t.cfg.logger.Warn("transport: skipping an event on the GET stream", "url", t.url, "error", err)
			continue
		}
		n++
		if c != nil && c.answered.Load() {
			return n, nil
		}
	}
}

// deliverData delivers one JSON reply or SSE event's data: one message, or
// a batch (a JSON array, which 2025-03-26 servers may send).
func (t *StreamableHTTP) deliverData(c *call, data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(data, &batch); err != nil {
			return fmt.Errorf("not a JSON-RPC message: %v: %s", err, excerpt(data, 200))
		}
		for _, raw := range batch {
			if err := t.deliverOne(c, raw); err != nil {
				return err
			}
		}
		return nil
	}
	return t.deliverOne(c, data)
}

func (t *StreamableHTTP) deliverOne(c *call, raw []byte) error {
	m, err := jsonrpc.Decode(raw)
	if err != nil {
		return fmt.Errorf("%v: %s", err, excerpt(raw, 200))
	}
	if m.IsResponse() {
		owner := c
		if owner == nil || owner.id.String() != m.ID.String() {
			t.mu.Lock()
			owner = t.calls[m.ID.String()]
			t.mu.Unlock()
		}
		if owner != nil {
			raw = t.processResponse(owner, m, raw)
			owner.answered.Store(true)
		}
	}
	t.deliver(c, raw)
	return nil
}

// deliver queues a message for Receive, unless the transport is closing.
func (t *StreamableHTTP) deliver(_ *call, raw []byte) {
	select {
	case t.incoming <- raw:
	case <-t.ctx.Done():
	}
}

// processResponse learns from a response before it is delivered: the
// negotiated version from an initialize result, and the x-mcp-header
// bindings from a 2026-07-28 tools/list result (which it may rewrite).
func (t *StreamableHTTP) processResponse(c *call, m *jsonrpc.Message, raw []byte) []byte {
	if m.Error != nil {
		return raw
	}
	switch {
	case c.init:
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(m.Result, &r) == nil {
			t.mu.Lock()
			t.version = r.ProtocolVersion
			t.mu.Unlock()
		}
	case c.modern && c.method == methodToolsList:
		if res, changed := t.learnTools(m.Result); changed {
			m.Result = res
			if b, err := jsonrpc.Encode(m); err == nil {
				return b
			}
		}
	}
	return raw
}

// learnTools records the x-mcp-header bindings of each tool in a tools/list
// result and drops the tools whose annotations are invalid, as the spec
// requires of a client. It reports whether it dropped any.
func (t *StreamableHTTP) learnTools(result json.RawMessage) (json.RawMessage, bool) {
	var r map[string]json.RawMessage
	var tools []json.RawMessage
	if json.Unmarshal(result, &r) != nil || json.Unmarshal(r["tools"], &tools) != nil {
		return result, false // not a list result: the client will say so
	}
	kept := make([]json.RawMessage, 0, len(tools))
	t.mu.Lock()
	for _, raw := range tools {
		var tool struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &tool) != nil {
			kept = append(kept, raw)
			continue
		}
		b, err := toolParamBindings(tool.InputSchema)
		if err != nil {
			delete(t.tools, tool.Name)
			t.cfg.logger.Warn("transport: dropping a tool from tools/list: invalid x-mcp-header annotation",
				"tool", tool.Name, "url", t.url, "error", err)
			continue
		}
		if len(b) > 0 {
			t.tools[tool.Name] = b
		} else {
			delete(t.tools, tool.Name)
		}
		kept = append(kept, raw)
	}
	t.mu.Unlock()
	if len(kept) == len(tools) {
		return result, false
	}
	list, err := json.Marshal(kept)
	if err != nil {
		return result, false
	}
	r["tools"] = list
	out, err := json.Marshal(r)
	if err != nil {
		return result, false
	}
	return out, true
}

// failCall delivers a made-up error response for c, unless the client gave
// up on c, c was answered, or the transport is closing.
func (t *StreamableHTTP) failCall(c *call, code int64, message string, status int, body string) {
	if c.givenUp.Load() || c.answered.Load() || t.ctx.Err() != nil {
		return
	}
	data := map[string]any{}
	if status != 0 {
		data["status"] = status
	}
	if body != "" {
		data["body"] = body
	}
	e := &jsonrpc.Error{Code: code, Message: "transport: " + message}
	if len(data) > 0 {
		e.Data, _ = json.Marshal(data)
	}
	raw, err := jsonrpc.Encode(&jsonrpc.Message{ID: c.id, Error: e})
	if err != nil {
		return
	}
	c.answered.Store(true)
	t.deliver(c, raw)
}

// errorResponseFor returns an HTTP error body as the error response to c
// when it is a JSON-RPC error object: with c's id when the body has none
// (servers reject before they read the id), as is when it has c's id. Any
// other body is not usable.
func errorResponseFor(c *call, body []byte) []byte {
	var w struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}
	if json.Unmarshal(body, &w) != nil || w.JSONRPC != jsonrpc.Version || w.Error == nil {
		return nil
	}
	var id jsonrpc.ID
	if err := id.UnmarshalJSON(w.ID); err != nil {
		return nil
	}
	switch {
	case !id.IsValid():
		id = c.id
	case id.String() != c.id.String():
		return nil
	}
	raw, err := jsonrpc.Encode(&jsonrpc.Message{ID: id, Error: w.Error})
	if err != nil {
		return nil
	}
	return raw
}

func (t *StreamableHTTP) expireSession(sid string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.session == sid {
		t.session, t.version, t.expired = "", "", sid
	}
}

// postOther POSTs a notification or a response and waits for the server to
// accept it.
func (t *StreamableHTTP) postOther(ctx context.Context, m *jsonrpc.Message, body []byte) error {
	what := m.Method
	if what == "" {
		what = "response"
	}
	h := t.header("application/json, text/event-stream")
	h.Set("Content-Type", "application/json")
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return ErrClosed
	}
	t.legacyHeaders(h)
	expired := t.expired
	t.mu.Unlock()
	session := h.Get(headerSessionID)
	if expired != "" {
		return fmt.Errorf("transport: %s not sent: session %s: %w (the server answered HTTP 404 Not Found); initialize again", what, expired, ErrSessionExpired)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(t.ctx, cancel) // Close ends this POST too
	defer stop()
	return t.postWith(ctx, m, body, h, session, what)
}

// post POSTs a notification like postOther, but Close does not end it.
func (t *StreamableHTTP) post(ctx context.Context, m *jsonrpc.Message, body []byte) error {
	what := m.Method
	h := t.header("application/json, text/event-stream")
	h.Set("Content-Type", "application/json")
	t.mu.Lock()
	t.legacyHeaders(h)
	t.mu.Unlock()
	return t.postWith(ctx, m, body, h, h.Get(headerSessionID), what)
}

func (t *StreamableHTTP) postWith(ctx context.Context, m *jsonrpc.Message, body []byte, h http.Header, session, what string) error {
	resp, err := t.do(ctx, http.MethodPost, body, h)
	if err != nil {
		if ctx.Err() != nil && t.ctx.Err() != nil {
			return ErrClosed
		}
		return fmt.Errorf("transport: POST %s: %w", what, unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		se := &StatusError{Method: what, Status: resp.StatusCode, Body: readExcerpt(resp.Body)}
		if resp.StatusCode == http.StatusNotFound && session != "" {
			t.expireSession(session)
			se.Err = ErrSessionExpired
		}
		return se
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody)) // some servers answer 200 with a body
	if m.Method == methodInitialized {
		t.startListening(ctx)
	}
	return nil
}

// startListening opens the standalone GET stream of a legacy session and
// waits, bounded by ctx and listenWait, until the server has answered the
// GET. A server may send a request there as soon as the session is
// initialized (elicitation in the middle of the client's first call, or the
// response of a resumed stream), so the stream must be up before the client
// goes on; the official Go SDK waits the same way.
func (t *StreamableHTTP) startListening(ctx context.Context) {
	t.mu.Lock()
	if t.listening || t.closed || t.modern {
		t.mu.Unlock()
		return
	}
	t.listening = true
	t.wg.Add(1)
	ready := make(chan struct{})
	go t.listen(ready)
	t.mu.Unlock()

	timer := time.NewTimer(listenWait)
	defer timer.Stop()
	select {
	case <-ready:
	case <-ctx.Done():
	case <-timer.C: // a server that holds back the headers: go on without
	}
}

// listen keeps the standalone GET stream open, reconnecting (with
// Last-Event-ID once the server gave event ids) when it ends, until Close,
// a 405 (the server has no such stream), or repeated failure.
func (t *StreamableHTTP) listen(ready chan struct{}) {
	defer t.wg.Done()
	readyOnce := sync.OnceFunc(func() { close(ready) })
	defer readyOnce()
	defer func() {
		t.mu.Lock()
		t.listening = false
		t.mu.Unlock()
	}()
	sr := newSSEReader(nil, t.cfg.maxBody)
	failures := 0
	for {
		h := t.header("text/event-stream")
		t.mu.Lock()
		t.legacyHeaders(h)
		session := t.session
		t.mu.Unlock()
		if sr.hasID && sr.lastID != "" {
			h.Set(headerLastEventID, sr.lastID)
		}
		resp, err := t.do(t.ctx, http.MethodGet, nil, h)
		readyOnce()
		if t.ctx.Err() != nil {
			if err == nil {
				resp.Body.Close()
			}
			return
		}
		switch {
		case err != nil:
			failures++
			t.cfg.logger.Debug("transport: GET stream failed", "url", t.url, "error", unwrapURLError(err))
		case resp.StatusCode == http.StatusMethodNotAllowed:
			resp.Body.Close()
			return
		case resp.StatusCode == http.StatusNotFound && session != "":
			resp.Body.Close()
			t.expireSession(session)
			t.cfg.logger.Warn("transport: the session expired (HTTP 404 on the GET stream)", "url", t.url, "session", session)
			return
		default:
			ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			if resp.StatusCode/100 != 2 || ct != "text/event-stream" {
				body := readExcerpt(resp.Body)
				resp.Body.Close()
				if resp.StatusCode/100 != 5 {
					t.cfg.logger.Warn("transport: the server refused the GET stream; server-initiated messages outside requests will not arrive",
						"url", t.url, "status", resp.StatusCode, "contentType", ct, "body", body)
					return
				}
				failures++
				break
			}
			sr.reset(resp.Body)
			n, _ := t.pump(nil, sr)
			resp.Body.Close()
			if n > 0 {
				failures = 0
			} else {
				failures++
			}
		}
		if failures >= maxReconnects {
			t.cfg.logger.Warn("transport: giving up on the GET stream after repeated failures", "url", t.url)
			return
		}
		if !sleepCtx(t.ctx, reconnectDelay(sr, max(failures, 1))) {
			return
		}
	}
}

// reset points the reader at a new body, keeping the last event id and the
// retry hint: a resumed stream continues the old one.
func (r *sseReader) reset(body io.Reader) {
	r.br.Reset(body)
	r.afterCR = false
}

func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// readLimited reads a whole body of at most limit bytes.
func readLimited(r io.Reader, limit int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > limit {
		return nil, fmt.Errorf("the body is larger than %d bytes (limit set with WithMaxBodySize)", limit)
	}
	return b, nil
}

// readExcerpt reads the start of an error body for a message.
func readExcerpt(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, maxErrorBody))
	return excerptString(b)
}

func excerptString(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 512 {
		s = s[:512] + "..."
	}
	return s
}
