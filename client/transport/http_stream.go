package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"
)

// SSE replies: delivering their events, and resuming a legacy stream that
// ends before its response.

// readCallStream reads a request's SSE reply until its response arrives.
// A legacy stream that ends early is resumed with GET and Last-Event-ID,
// after the server's retry hint.
func (t *StreamableHTTP) readCallStream(c *call, body io.Reader) {
	sr := newSSEReader(body, t.cfg.maxBody)
	if _, err := t.pump(c, sr); err != nil {
		t.failCall(c, CodeHTTPError, fmt.Sprintf("the SSE stream of %s: %v", c.method, err), 0, "")
		return
	}
	if c.answered.Load() {
		t.readToEnd(c, sr, body)
		return
	}
	for attempt := 1; !c.answered.Load(); attempt++ {
		if c.givenUp.Load() || c.ctx.Err() != nil {
			return
		}
		switch {
		case c.modern:
			t.failEnded(c, fmt.Sprintf("the SSE stream of %s ended before its response%s; 2026-07-28 has no resumption, so send the request again with a new id", c.method, sr.how()))
			return
		case !sr.hasID || sr.lastID == "":
			t.failEnded(c, fmt.Sprintf("the server ended the SSE stream of %s before its response%s, with no event id to resume from", c.method, sr.how()))
			return
		case attempt > maxReconnects:
			t.failEnded(c, fmt.Sprintf("the SSE stream of %s ended before its response %d times in a row%s; giving up", c.method, maxReconnects, sr.how()))
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

// endWait is how long the rest of a stream is read after its response.
const endWait = 100 * time.Millisecond

// readToEnd reads what follows a request's response on its SSE stream, a
// moment at most: a server ends the stream after the response, and a
// stream read to its end leaves its connection to be reused, where one
// closed early is torn down, and the next request dials anew (through a
// proxy, where the end lags, every request did). A message that still
// comes is delivered, as on the GET stream.
func (t *StreamableHTTP) readToEnd(c *call, sr *sseReader, body io.Reader) {
	closer, ok := body.(io.Closer)
	if !ok || c.givenUp.Load() {
		return
	}
	stop := time.AfterFunc(endWait, func() { closer.Close() })
	defer stop.Stop()
	_, _ = t.pump(nil, sr)
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
