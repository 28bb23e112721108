package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// Requests in flight: each POSTed on a goroutine of its own, answered
// through Receive exactly once, with a made-up error response when the
// server gives no usable answer.

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
		return errClosed
	}
	if old, dup := t.calls[m.ID.String()]; dup && !old.answered.Load() {
		return fmt.Errorf("transport: Send: request id %s is already in flight", m.ID)
	}
	t.modern = c.modern
	switch {
	case c.modern:
		t.modernHeaders(h, m.Method, &p)
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
			t.learnVersion(owner, m)
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

// learnVersion keeps the version an initialize result negotiated.
func (t *StreamableHTTP) learnVersion(c *call, m *jsonrpc.Message) {
	if !c.init || m.Error != nil {
		return
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(m.Result, &r) == nil {
		t.mu.Lock()
		t.version = r.ProtocolVersion
		t.mu.Unlock()
	}
}

// failCall delivers a made-up error response for c, unless the client gave
// up on c, c was answered, or the transport is closing.
func (t *StreamableHTTP) failCall(c *call, code int64, message string, status int, body string) {
	data := map[string]any{}
	if status != 0 {
		data["status"] = status
	}
	if body != "" {
		data["body"] = body
	}
	t.fail(c, code, message, data)
}

// failEnded fails c, whose SSE stream ended before its response and cannot
// be resumed: data says so ({"streamEnded": true}), since no HTTP status
// tells this apart from a connection that broke.
func (t *StreamableHTTP) failEnded(c *call, message string) {
	t.fail(c, CodeHTTPError, message, map[string]any{"streamEnded": true})
}

func (t *StreamableHTTP) fail(c *call, code int64, message string, data map[string]any) {
	if c.givenUp.Load() || c.answered.Load() || t.ctx.Err() != nil {
		return
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
