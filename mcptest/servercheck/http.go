package servercheck

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// httpState is what the http/ checks share.
type httpState struct {
	opened bool
	cn     *conn
	tr     *transport.StreamableHTTP
	skip   string // why the http/ checks do not run; "" when they do
}

// httpConn returns the http/ checks' connection, opening it on first use,
// or skips the check.
func (c *state) httpConn() (*conn, *transport.StreamableHTTP) {
	h := &c.s.http
	if !h.opened {
		h.opened = true
		h.cn, h.tr, h.skip = c.s.openHTTP()
	}
	if h.skip != "" {
		c.skipf("%s", h.skip)
	}
	c.use(h.cn)
	return h.cn, h.tr
}

func (s *suite) openHTTP() (*conn, *transport.StreamableHTTP, string) {
	mc, err := s.mainConn()
	if err != nil {
		return nil, nil, err.Error()
	}
	if _, ok := mc.tap.inner.(*transport.StreamableHTTP); !ok {
		return nil, nil, "the server is not reached over streamable HTTP: these checks are of that transport"
	}
	version := mc.cl.ProtocolVersion()
	if mc.modern() {
		if version = newestLegacy(mc.cl.ServerVersions()); version == "" {
			return nil, nil, "the server speaks only 2026-07-28, which has no sessions: these checks are of the legacy transport " +
				"(2026-07-28's header rules are not checked yet)"
		}
	}
	cn, err := s.open(version)
	if err != nil {
		return nil, nil, fmt.Sprintf("could not open a connection at %s for the transport checks: %v", version, err)
	}
	return cn, cn.tap.inner.(*transport.StreamableHTTP), ""
}

// closeHTTP ends the http/ checks' connection.
func (s *suite) closeHTTP() {
	if s.http.cn != nil {
		s.http.cn.close()
		s.http.cn = nil
	}
}

// httpReply is what came back to one raw HTTP request.
type httpReply struct {
	host    string // the server's host name, as the request went
	status  int
	ctype   string
	session string // its Mcp-Session-Id header
	body    string // its start
	header  http.Header
	url     *url.URL // where the request went
}

func (r httpReply) String() string {
	s := fmt.Sprintf("HTTP %d %s", r.status, http.StatusText(r.status))
	if r.body != "" {
		s += fmt.Sprintf(" (%s) %s", r.ctype, cut(r.body, 300))
	}
	return s
}

// send sends one raw request: a JSON-RPC message (body) with the headers a
// client of the session's version sends, changed by set.
func (c *state) send(tr *transport.StreamableHTTP, cn *conn, method, body string, set map[string]string) httpReply {
	h := http.Header{}
	if body != "" {
		h.Set("Content-Type", "application/json")
	}
	h.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodGet {
		h.Set("Accept", "text/event-stream")
	}
	if v := cn.cl.ProtocolVersion(); v >= client.Version20250618 {
		h.Set("MCP-Protocol-Version", v)
	}
	for k, v := range set {
		// An empty value: sent as none (transport.Do drops it). A key in
		// another case than the canonical one goes as written.
		h.Del(k)
		h[k] = []string{v}
	}
	ctx, cancel := c.ctx()
	defer cancel()
	var data []byte
	if body != "" {
		data = []byte(body)
	}
	resp, err := tr.Do(ctx, method, h, data)
	if err != nil {
		c.fatalf("sent %s %s; the request failed: %v", method, cut(body, 200), err)
	}
	defer resp.Body.Close()
	r := httpReply{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), session: resp.Header.Get("Mcp-Session-Id")}
	r.header = resp.Header
	if resp.Request != nil {
		r.host, r.url = resp.Request.URL.Hostname(), resp.Request.URL
	}
	if strings.HasPrefix(r.ctype, "text/event-stream") {
		return r // a stream: its start may never come
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
	r.body = strings.TrimSpace(string(b))
	return r
}

const httpPing = `{"jsonrpc":"2.0","id":"` + rawPrefix + `http","method":"ping"}`

func (c *state) httpSessions() {
	cn, tr := c.httpConn()
	if tr.SessionID() == "" {
		c.skipf("the server gave out no Mcp-Session-Id at initialize (stateless): no session to check")
	}
	c.sessionID(cn, tr.SessionID())
	got := c.send(tr, cn, http.MethodPost, httpPing, map[string]string{"Mcp-Session-Id": "mcptestkit-check-no-such-session"})
	c.refused(got, http.StatusNotFound, "sent ping with an Mcp-Session-Id the server never gave out",
		"not served: a server MAY terminate a session, and MUST answer a request with a terminated session's id 404; "+
			"a session id it never gave out gets the same answer from a server that keeps its sessions apart, and 404 tells "+
			"the client to start a new session with initialize (basic/transports, \"Session Management\")")
}

func (c *state) httpProtocolVersion() {
	cn, tr := c.httpConn()
	if cn.cl.ProtocolVersion() < client.Version20250618 {
		c.skipf("the MCP-Protocol-Version header came with 2025-06-18; the session speaks %s", cn.cl.ProtocolVersion())
	}
	got := c.send(tr, cn, http.MethodPost, httpPing, map[string]string{"MCP-Protocol-Version": "1999-01-01"})
	c.refused(got, http.StatusBadRequest, "sent ping with MCP-Protocol-Version: 1999-01-01, a version no server speaks",
		"HTTP 400 Bad Request (basic/transports, \"Protocol Version Header\": a server that receives an invalid or "+
			"unsupported MCP-Protocol-Version MUST respond 400)")
	c.assumesOldest(cn, tr)
}

// assumesOldest sends a stateless server, which has no negotiated version
// to fall back on, a ping without MCP-Protocol-Version: one that speaks
// 2025-03-26 serves it as that version's.
func (c *state) assumesOldest(cn *conn, tr *transport.StreamableHTTP) {
	if tr.SessionID() != "" {
		return // the session's negotiated version tells the server
	}
	speaks := slices.Contains(c.main().cl.ServerVersions(), client.Version20250326)
	if !speaks && len(c.main().cl.ServerVersions()) == 0 {
		if old, err := c.s.open(client.Version20250326); err == nil {
			speaks = old.cl.ProtocolVersion() == client.Version20250326
			old.close()
		}
	}
	if !speaks {
		return
	}
	got := c.send(tr, cn, http.MethodPost, httpPing, map[string]string{"MCP-Protocol-Version": ""})
	if got.status/100 != 2 {
		c.warnf("sent ping without an MCP-Protocol-Version header to a stateless server (no session whose version it knows) "+
			"that speaks 2025-03-26; got %s\nexpected: served as 2025-03-26 (basic/transports, \"Protocol Version Header\": "+
			"with no header and no other way to tell the version, the server SHOULD assume 2025-03-26)", got)
	}
}

// refused judges the answer to a request the server must refuse with
// status: served (2xx) breaks the rule; another refusal is warned about.
func (c *state) refused(got httpReply, status int, sent, expected string) {
	switch {
	case got.status == status:
	case got.status/100 == 2:
		c.breakf("%s; it was served: %s\nexpected: %s", sent, got, expected)
	default:
		c.warnf("%s; got %s\nexpected: %s", sent, got, expected)
	}
}

func (c *state) httpNotifications() {
	cn, tr := c.httpConn()
	const note = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"` + rawPrefix + `none","reason":"a check"}}`
	got := c.send(tr, cn, http.MethodPost, note, nil)
	if got.status == http.StatusAccepted && got.body == "" {
		return
	}
	c.breakf("POSTed a notification (notifications/cancelled for a request that does not exist); got %s\n"+
		"expected: HTTP 202 Accepted with no body (basic/transports, \"Sending Messages to the Server\": for a notification or a "+
		"response the server accepts, it MUST return 202 Accepted with no body)", got)
}

func (c *state) httpOrigin() {
	cn, tr := c.httpConn()
	// As a browser sends it after a DNS rebinding: the page's origin, and
	// the attacker's host name resolved to this machine.
	got := c.send(tr, cn, http.MethodPost, httpPing, map[string]string{"Origin": "http://evil.example.com", "Host": "evil.example.com"})
	if !localhost(got.host) {
		c.skipf("the server is not on localhost (%s): DNS rebinding protection is the rule of a local server", got.host)
	}
	switch {
	case got.status == http.StatusForbidden:
	case got.status/100 == 4:
		c.notef("a foreign Host and Origin got %s (the specification says 403)", got)
	default:
		c.breakf("sent ping with Host: evil.example.com and Origin: http://evil.example.com to a server on localhost; got %s\n"+
			"expected: HTTP 403 Forbidden: a web page on another site could otherwise drive the local server through the "+
			"browser (DNS rebinding); servers MUST validate the Origin header, and answer 403 to an invalid one; a local server checks the Host header too "+
			"(basic/transports, \"Security Warning\")", got)
	}
}

func (c *state) httpGet() {
	cn, tr := c.httpConn()
	got := c.send(tr, cn, http.MethodGet, "", nil)
	switch {
	case got.status == http.StatusMethodNotAllowed:
		c.notef("GET answered 405: the server offers no stream of its own")
	case got.status == http.StatusOK && strings.HasPrefix(got.ctype, "text/event-stream"):
	case got.status == http.StatusConflict:
		// The session's client has its GET stream open already, and the
		// server keeps one a session.
		c.notef("GET answered %s: the session's client holds its GET stream already, and the server allows one", got)
	default:
		c.breakf("sent GET (Accept: text/event-stream) in the session; got %s\n"+
			"expected: an SSE stream (Content-Type: text/event-stream) or HTTP 405 Method Not Allowed (basic/transports, "+
			"\"Listening for Messages from the Server\": the server MUST return one or the other)", got)
	}
}

// httpPriming reads the SSE stream a POSTed ping gets, to its response.
func (c *state) httpPriming() {
	cn, tr := c.httpConn()
	if v := cn.cl.ProtocolVersion(); v < client.Version20251125 {
		c.skipf("the session speaks %s: priming events came with 2025-11-25", v)
	}
	if tr.SessionID() == "" {
		c.skipf("the server gave out no Mcp-Session-Id at initialize (stateless): no session to resume a stream in")
	}
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {cn.cl.ProtocolVersion()}}
	ctx, cancel := c.ctx()
	defer cancel()
	resp, err := tr.Do(ctx, http.MethodPost, h, []byte(httpPing))
	if err != nil {
		c.fatalf("sent ping in the session; the request failed: %v", err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		c.skipf("the server answered a POSTed ping with HTTP %d (%s), not an SSE stream: nothing to resume", resp.StatusCode, ct)
	}
	events, err := readEvents(resp.Body, 64<<10, `"`+rawPrefix+`http"`)
	if err != nil && len(events) == 0 {
		c.fatalf("sent ping in the session; reading its SSE stream failed: %v", err)
	}
	first := events[0]
	retry := slices.ContainsFunc(events, func(e sseEvent) bool { return e.retry })
	answered := slices.ContainsFunc(events, func(e sseEvent) bool { return strings.Contains(e.data, `"`+rawPrefix+`http"`) })
	switch {
	case first.id == "" || strings.TrimSpace(first.data) != "":
		c.breakf("sent ping in the session; the SSE stream began with %s\n"+
			"expected: a priming event first, an event id with empty data, so that a client can resume with GET and "+
			"Last-Event-ID if the stream ends before the response (servers SHOULD send it: basic/transports, "+
			"\"Resumability and Redelivery\", SEP-1699, 2025-11-25)", first)
	case retry:
	case answered:
		// The retry SHOULD is for a server that closes the stream before
		// its response; this one carried the response.
		c.notef("the SSE stream had a priming event (id %q) and carried the response; it set no retry field, "+
			"which a server should send only when it closes a stream before the response", first.id)
	default:
		c.breakf("sent ping in the session; the SSE stream had a priming event (id %q) and ended before the response, "+
			"with no retry field\n"+
			"expected: a retry field before the server closes a stream early, which tells the client how long to wait "+
			"before it reconnects (servers SHOULD send it: basic/transports, \"Resumability and Redelivery\", 2025-11-25)", first.id)
	}
}

// sseEvent is one event of an SSE stream, as much as the checks need.
type sseEvent struct {
	id, data string
	retry    bool
}

func (e sseEvent) String() string {
	if e.id == "" {
		return fmt.Sprintf("an event with no id and data %s", cut(strconv.Quote(e.data), 200))
	}
	return fmt.Sprintf("an event with id %q and data %s", e.id, cut(strconv.Quote(e.data), 200))
}

// readEvents reads SSE events until one's data holds stop, the stream
// ends, or limit bytes were read.
func readEvents(r io.Reader, limit int64, stop string) ([]sseEvent, error) {
	sc := bufio.NewScanner(io.LimitReader(r, limit))
	sc.Buffer(nil, int(limit))
	var out []sseEvent
	var cur sseEvent
	seen := false
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			if seen {
				out = append(out, cur)
				if strings.Contains(cur.data, stop) {
					return out, nil
				}
			}
			cur, seen = sseEvent{}, false
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			cur.id, seen = value, true
		case "data":
			if cur.data != "" {
				cur.data += "\n"
			}
			cur.data += value
			seen = true
		case "retry":
			cur.retry, seen = true, true
		}
	}
	if seen {
		out = append(out, cur)
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	if len(out) == 0 {
		return nil, errors.New("the stream ended with no event")
	}
	return out, nil
}

func (c *state) httpDelete() {
	cn, tr := c.httpConn()
	sid := tr.SessionID()
	if sid == "" {
		c.skipf("the server gave out no Mcp-Session-Id at initialize (stateless): no session to end")
	}
	got := c.send(tr, cn, http.MethodDelete, "", nil)
	switch {
	case got.status == http.StatusMethodNotAllowed:
		c.notef("DELETE answered 405: the server does not let clients end sessions")
		return
	case got.status/100 == 5:
		c.breakf("sent DELETE to end the session; got %s\nexpected: 2xx, or 405 when clients may not end sessions (basic/transports, \"Session Management\")", got)
	case got.status/100 != 2:
		c.warnf("sent DELETE to end the session; got %s\nexpected: 2xx, or 405 when clients may not end sessions (basic/transports, \"Session Management\")", got)
		return
	}
	after := c.send(tr, cn, http.MethodPost, httpPing, nil)
	if after.status != http.StatusNotFound {
		c.breakf("ended the session with DELETE (%s), then sent ping in it; got %s\n"+
			"expected: HTTP 404 Not Found: once a session ends, the server MUST answer requests with its id 404 "+
			"(basic/transports, \"Session Management\")", got, after)
	}
}

// localhost reports whether host is this machine's (an in-process handler
// is served as localhost).
func localhost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkAlive, after a request the server dropped, asks an HTTP server for
// anything at all: when nothing answers (the process died), every later
// check is skipped, saying so once here and not failing for it.
func (s *suite) checkAlive(cn *conn, during string) {
	tr, ok := cn.tap.inner.(*transport.StreamableHTTP)
	if !ok || s.dead != "" {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.timeout)
	defer cancel()
	// On a connection kept alive from before, a dying server's process may
	// still answer: a new request goes on a new connection.
	tr.CloseIdleConnections()
	resp, err := tr.Do(ctx, http.MethodPost, http.Header{"Content-Type": {"application/json"}}, []byte(httpPing))
	if err == nil {
		resp.Body.Close()
		return
	}
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || errors.As(err, &ne) {
		s.dead = fmt.Sprintf("the server stopped answering during %s (a new request got: %v)", during, err)
	}
}
