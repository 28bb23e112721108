package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptestkit/mcptestkit/internal/cassette"
)

// proxyHTTP serves a streamable HTTP reverse proxy to target on listen
// until ctx ends, recording every JSON-RPC message that crosses it: the
// body of each POST, and each message of each response, a JSON body or an
// SSE stream's events, as they stream (a stream is flushed to the client as
// it comes), whatever their Content-Encoding: the client gets the bytes the
// server sent, the cassette the messages they encode. Each message is
// recorded with its session (Mcp-Session-Id, or without one its
// connection), so that concurrent clients' sessions play back apart. ready,
// if not nil, gets the proxy's URL once it listens. Then it writes the
// cassette to out. A target that is the proxy itself is refused.
func proxyHTTP(ctx context.Context, out string, redact *cassette.Redaction, listen, target string, ready func(string)) (string, error) {
	to, err := url.Parse(target)
	if err != nil {
		return "", err
	}
	if err := checkOutput(out); err != nil {
		return "", err
	}
	rec, err := newRecorder("http", redact)
	if err != nil {
		return "", err
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return "", err
	}
	if err := notItself(l.Addr(), to); err != nil {
		l.Close()
		return "", err
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var loop error // the target led back here
	self := &ownDials{addrs: map[string]bool{}}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = self.dial
	defer tr.CloseIdleConnections()
	var seq atomic.Int64 // numbers connections and initialize requests
	p := &httputil.ReverseProxy{
		Transport: tr,
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(to)
			r.Out.URL.Path = to.Path
			r.Out.URL.RawPath = to.RawPath
			r.Out.Host = to.Host
			r.Out.Header.Del("X-Forwarded-For") // invisible: the server sees what the client sent
			// The session a message is recorded in: its Mcp-Session-Id;
			// an initialize's own (its id comes with the answer); or,
			// without one (2026-07-28), the connection's.
			conn := r.In.Context().Value(connKey{}).(string)
			key := conn
			if sid := r.In.Header.Get("Mcp-Session-Id"); sid != "" {
				key = "sid:" + sid
			}
			if r.Out.Body != nil && r.Out.Method == http.MethodPost {
				body, _ := io.ReadAll(r.Out.Body)
				r.Out.Body = io.NopCloser(bytes.NewReader(body))
				msg, err := decodeAll(r.In.Header.Get("Content-Encoding"), body)
				if err != nil {
					rec.note("a request body not recorded: " + err.Error())
				}
				if key == conn && opensSession(msg) {
					key = "init:" + strconv.FormatInt(seq.Add(1), 10)
				}
				recordBody(rec, key, cassette.ClientToServer, msg)
			}
			r.Out = r.Out.WithContext(context.WithValue(r.Out.Context(), sessionKey{}, [2]string{key, conn}))
		},
		ModifyResponse: func(resp *http.Response) error {
			keys, _ := resp.Request.Context().Value(sessionKey{}).([2]string)
			key := keys[0]
			switch sid := resp.Header.Get("Mcp-Session-Id"); {
			case sid != "" && key != "sid:"+sid:
				rec.alias("sid:"+sid, key)
			case sid == "" && strings.HasPrefix(key, "init:"):
				rec.alias(key, keys[1]) // a server that keeps no sessions: the connection is the session
			}
			mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")) // any case, any parameters
			enc := resp.Header.Get("Content-Encoding")
			switch mt {
			case "text/event-stream":
				resp.Body = newTee(resp.Body, enc, rec, &sseParser{rec: rec, key: key})
			case "application/json":
				resp.Body = newTee(resp.Body, enc, rec, &bodyParser{rec: rec, key: key})
			}
			return nil
		},
		FlushInterval: -1,
	}
	var once sync.Once
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if self.from(r.RemoteAddr) {
			err := fmt.Errorf("the target %s leads back to this proxy (listening at %s): give the server's own URL", target, l.Addr())
			http.Error(w, "mcptestkit record: "+err.Error(), http.StatusLoopDetected)
			once.Do(func() { loop = err; stop() })
			return
		}
		p.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		ConnContext: func(ctx context.Context, _ net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, "conn:"+strconv.FormatInt(seq.Add(1), 10))
		}}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	if ready != nil {
		ready("http://" + l.Addr().String() + to.Path)
	}
	select {
	case <-ctx.Done():
	case err = <-done:
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut) // streams still open are cut
	_ = srv.Close()
	once.Do(func() {}) // from here on, loop is set or never will be
	if loop != nil {
		return "", loop // no cassette: it would hold only the loop
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return "", err
	}
	c := rec.finish()
	if err := c.WriteFile(out); err != nil {
		return "", err
	}
	return rec.summary(), nil
}

// connKey and sessionKey are context keys: the connection a request came
// on, and the session its messages are recorded in.
type (
	connKey    struct{}
	sessionKey struct{}
)

// opensSession reports whether the body holds an initialize request: the
// request that opens a session whose id comes with its answer.
func opensSession(body []byte) bool {
	var m struct {
		Method string `json:"method"`
	}
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var batch []json.RawMessage
		_ = json.Unmarshal(body, &batch)
		for _, b := range batch {
			if opensSession(b) {
				return true
			}
		}
		return false
	}
	return json.Unmarshal(body, &m) == nil && m.Method == "initialize"
}

// recordBody records a JSON body: one message, or a batch of them.
func recordBody(rec *recorder, key, dir string, body []byte) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(body, &batch) == nil {
			for _, m := range batch {
				rec.add(key, dir, m)
			}
			return
		}
	}
	rec.add(key, dir, body)
}

// A parser is fed a response's decoded body, as it comes, and told when it
// has ended.
type parser interface {
	io.Writer
	end()
}

// bodyParser records a JSON response body once it is whole.
type bodyParser struct {
	rec *recorder
	key string
	buf bytes.Buffer
}

func (b *bodyParser) Write(p []byte) (int, error) { return b.buf.Write(p) }
func (b *bodyParser) end()                        { recordBody(b.rec, b.key, cassette.ServerToClient, b.buf.Bytes()) }

// sseParser records each event of an SSE stream as it passes.
type sseParser struct {
	rec  *recorder
	key  string
	line []byte
	data []byte
}

func (s *sseParser) end() {}

func (s *sseParser) Write(p []byte) (int, error) {
	for _, c := range p {
		if c != '\n' {
			s.line = append(s.line, c)
			continue
		}
		l := bytes.TrimSuffix(s.line, []byte("\r"))
		s.line = s.line[:0]
		switch {
		case len(l) == 0:
			if len(s.data) > 0 {
				s.rec.add(s.key, cassette.ServerToClient, bytes.TrimSpace(s.data))
				s.data = s.data[:0]
			}
		case bytes.HasPrefix(l, []byte("data:")):
			if len(s.data) > 0 {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, bytes.TrimPrefix(bytes.TrimPrefix(l, []byte("data:")), []byte(" "))...)
		}
	}
	return len(p), nil
}

// tee passes a response body to the client unchanged, and a copy of it,
// decoded as its Content-Encoding says, to a parser. Without an encoding
// the parser sees the bytes as they pass; with one, a decoder of its own
// feeds it through a pipe, and the body's end waits for the decoder's.
type tee struct {
	io.ReadCloser
	p      parser
	pw     *io.PipeWriter // nil: no encoding
	broken bool           // the decoder failed: the copy is dropped
	done   chan struct{}
	once   sync.Once
}

func newTee(body io.ReadCloser, encoding string, rec *recorder, p parser) io.ReadCloser {
	t := &tee{ReadCloser: body, p: p}
	if isIdentity(encoding) {
		return t
	}
	pr, pw := io.Pipe()
	t.pw, t.done = pw, make(chan struct{})
	go func() {
		defer close(t.done)
		err := decodeTo(p, encoding, pr)
		if err == nil {
			p.end()
		} else {
			rec.note(err.Error())
		}
		pr.CloseWithError(err) // a Write after a failure fails at once
		_, _ = io.Copy(io.Discard, pr)
	}()
	return t
}

func (t *tee) Read(b []byte) (int, error) {
	n, err := t.ReadCloser.Read(b)
	switch {
	case t.pw == nil:
		t.p.Write(b[:n])
	case !t.broken && n > 0:
		if _, werr := t.pw.Write(b[:n]); werr != nil {
			t.broken = true
		}
	}
	if err == io.EOF {
		t.finish()
	}
	return n, err
}

func (t *tee) Close() error {
	if t.pw != nil {
		t.pw.CloseWithError(errors.New("the response was cut short")) // no-op after finish
		<-t.done
	}
	return t.ReadCloser.Close()
}

// finish ends the copy at the body's end.
func (t *tee) finish() {
	t.once.Do(func() {
		if t.pw == nil {
			t.p.end()
			return
		}
		t.pw.Close()
		<-t.done
	})
}

// ownDials remembers the local addresses of the proxy's connections to its
// target: a request that arrives from one is the proxy calling itself.
type ownDials struct {
	mu    sync.Mutex
	addrs map[string]bool
}

func (d *ownDials) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	local := c.LocalAddr().String()
	d.mu.Lock()
	d.addrs[local] = true
	d.mu.Unlock()
	return &ownConn{Conn: c, forget: func() {
		d.mu.Lock()
		delete(d.addrs, local)
		d.mu.Unlock()
	}}, nil
}

func (d *ownDials) from(remote string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.addrs[remote]
}

type ownConn struct {
	net.Conn
	forget func()
	once   sync.Once
}

func (c *ownConn) Close() error {
	c.once.Do(c.forget)
	return c.Conn.Close()
}

// notItself refuses a target that names the proxy's own listening address
// (an IP literal or localhost, at the same port): the proxy would forward
// each request to itself until it ran out of file descriptors. A name that
// needs a lookup is not resolved here; ownDials catches it at the first
// request.
func notItself(listening net.Addr, target *url.URL) error {
	la, ok := listening.(*net.TCPAddr)
	if !ok {
		return nil
	}
	port := target.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[target.Scheme]
	}
	if port != strconv.Itoa(la.Port) {
		return nil
	}
	var ips []net.IP
	switch host := target.Hostname(); {
	case host == "localhost":
		ips = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	case net.ParseIP(host) != nil:
		ips = []net.IP{net.ParseIP(host)}
	}
	for _, ip := range ips {
		if ip.Equal(la.IP) || (la.IP.IsUnspecified() && (ip.IsLoopback() || ip.IsUnspecified())) ||
			(ip.IsUnspecified() && la.IP.IsLoopback()) {
			return fmt.Errorf("the target %s is this proxy's own address (listening at %s): give the server's URL", target, la)
		}
	}
	return nil
}
