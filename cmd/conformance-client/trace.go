package main

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
)

// traceBody is how much of each request and response body the trace shows.
const traceBody = 2048

// tracer is an http.RoundTripper that logs every exchange, bodies included
// (response bodies as they are read, so SSE events show when they arrive).
// The log goes to the program's stderr, which the suite saves per scenario:
// the wire evidence when a scenario fails.
type tracer struct {
	next http.RoundTripper
	log  *slog.Logger
	n    atomic.Int64
}

func (t *tracer) RoundTrip(req *http.Request) (*http.Response, error) {
	id := t.n.Add(1)
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	t.log.Debug("http >", "n", id, "method", req.Method, "url", req.URL.String(),
		"accept", req.Header.Get("Accept"), "session", req.Header.Get("Mcp-Session-Id"),
		"version", req.Header.Get("Mcp-Protocol-Version"), "last-event-id", req.Header.Get("Last-Event-ID"),
		"authorization", len(req.Header.Get("Authorization")) > 0, "body", clip(body))
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		t.log.Debug("http <", "n", id, "error", err)
		return nil, err
	}
	t.log.Debug("http <", "n", id, "status", resp.StatusCode, "type", resp.Header.Get("Content-Type"),
		"session", resp.Header.Get("Mcp-Session-Id"), "www-authenticate", resp.Header.Get("WWW-Authenticate"),
		"location", resp.Header.Get("Location"))
	resp.Body = &tracedBody{ReadCloser: resp.Body, log: t.log, id: id}
	return resp, nil
}

type tracedBody struct {
	io.ReadCloser
	log *slog.Logger
	id  int64
}

func (b *tracedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.log.Debug("http < body", "n", b.id, "data", clip(p[:n]))
	}
	if err != nil && err != io.EOF {
		b.log.Debug("http < body", "n", b.id, "error", err)
	}
	return n, err
}

func clip(b []byte) string {
	if len(b) > traceBody {
		return string(b[:traceBody]) + "…"
	}
	return string(b)
}
