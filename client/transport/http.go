package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
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
	// "body": <the start of the body, when there was one>}, or
	// {"streamEnded": true} when the response stream ended early.
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
	// cancelTimeout bounds the background POST of a legacy
	// notifications/cancelled whose Send had a ctx without a deadline.
	cancelTimeout = 5 * time.Second
	// cancelCloseWait is how long Close lets such POSTs still running go on:
	// long enough for a server that is up to take one, so that a
	// cancellation sent just before Close still reaches it, and short, so
	// that a server that does not answer it cannot hold Close.
	cancelCloseWait = 500 * time.Millisecond

	modernVersion     = "2026-07-28" // the first version of the stateless era
	versionHeaderFrom = "2025-06-18" // the first version with the version header
	metaVersionKey    = "io.modelcontextprotocol/protocolVersion"
	methodInitialize  = "initialize"
	methodInitialized = "notifications/initialized"
	methodCancelled   = "notifications/cancelled"
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
// itself: tools refused for invalid x-mcp-header annotations (a warning, as
// the spec asks), a standalone GET stream that failed, a
// notifications/cancelled that was not delivered. The default is
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
//     Mcp-Param-* headers of the tool's x-mcp-header annotations, which
//     the client hands over with [StreamableHTTP.LearnToolHeaders] as it
//     lists tools (it drops tools whose annotations are invalid). There is
//     no session and no GET
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
// is POSTed in the background, so that a server that does not answer it
// cannot hold up the caller who gave up, until the deadline of Send's ctx
// (5 seconds when it has none; cancelling ctx after Send has returned does
// not stop it), and its failure is logged. Each request runs in a goroutine
// of its own until its response arrives; Close ends them all, and gives a
// notifications/cancelled still being POSTed half a second at most.
type StreamableHTTP struct {
	url    string
	urlErr error
	cfg    httpConfig
	inproc *handlerTransport // set by Handler

	ctx    context.Context // ends every request; cancelled by Close
	cancel context.CancelFunc
	// cancels ends the background notifications/cancelled POSTs: Close
	// lets them go on for cancelCloseWait at most.
	cancels    context.Context
	endCancels context.CancelFunc
	wg         sync.WaitGroup

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
	t.cancels, t.endCancels = context.WithCancel(context.Background())
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
			return t.postCancel(ctx, m, msg, legacy)
		}
		return nil
	}
	return t.postOther(ctx, m, msg)
}

// Receive returns the next message from the server.
func (t *StreamableHTTP) Receive(ctx context.Context) ([]byte, error) {
	select {
	case <-t.ctx.Done():
		return nil, errClosed
	default:
	}
	select {
	case m := <-t.incoming:
		return m, nil
	case <-t.ctx.Done():
		return nil, errClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close ends every request in flight and the GET stream, waits for their
// goroutines, and, when a legacy session is open, DELETEs it (a 405 answer is
// fine: the server lets sessions expire). A notifications/cancelled still
// being POSTed gets half a second more at most. Close returns the DELETE's
// error, if any. Close is safe to call more than once.
func (t *StreamableHTTP) Close() error {
	t.closeOnce.Do(func() {
		t.mu.Lock()
		t.closed = true
		session, version := t.session, t.version
		t.mu.Unlock()
		t.cancel()
		stop := time.AfterFunc(cancelCloseWait, t.endCancels)
		t.wg.Wait()
		stop.Stop()
		t.endCancels()
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

// header returns the custom headers plus Accept (when given).
func (t *StreamableHTTP) header(accept string) http.Header {
	h := t.cfg.header.Clone()
	if accept != "" {
		h.Set("Accept", accept)
	}
	return h
}

// Do sends one HTTP request of its own to the transport's endpoint, with
// the transport's HTTP client and headers (WithHeaders) and, when set, its
// session id, overridden by header (an empty value removes one): for checks of a server's HTTP behaviour
// below the protocol (status codes, sessions, Origin), as package
// mcptest/servercheck makes. A key of header set directly in a case other
// than the canonical one (header["mcp-method"]) is sent as written, to
// check a server's case-insensitive matching. The caller closes the
// response's body.
func (t *StreamableHTTP) Do(ctx context.Context, method string, header http.Header, body []byte) (*http.Response, error) {
	if t.urlErr != nil {
		return nil, t.urlErr
	}
	h := t.header("")
	if s := t.SessionID(); s != "" {
		h.Set(headerSessionID, s)
	}
	for k, v := range header {
		if len(v) == 0 || len(v) == 1 && v[0] == "" {
			h.Del(k)
			continue
		}
		h.Del(k)
		h[k] = v
	}
	return t.do(ctx, method, body, h)
}

// CloseIdleConnections closes the idle connections of the transport's HTTP
// client (see [http.Client.CloseIdleConnections]), so that its next request
// opens a new one: whether a server still accepts connections cannot be
// seen on a kept-alive one.
func (t *StreamableHTTP) CloseIdleConnections() { t.cfg.client.CloseIdleConnections() }

func (t *StreamableHTTP) do(ctx context.Context, method string, body []byte, h http.Header) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.url, r)
	if err != nil {
		return nil, err
	}
	if host := h.Get("Host"); host != "" { // net/http sends Request.Host, never a Host header
		h = h.Clone()
		h.Del("Host")
		req.Host = host
	}
	req.Header = h
	return t.cfg.client.Do(req)
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
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
