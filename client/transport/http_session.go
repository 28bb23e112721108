package transport

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"sync"
	"time"
)

// The legacy session (2025-03-26 to 2025-11-25): its id and version
// headers, expiry, the standalone GET stream, and DELETE on Close.

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

// legacyHeaders adds the session id and negotiated version; t.mu is held.
func (t *StreamableHTTP) legacyHeaders(h http.Header) {
	if t.session != "" {
		h.Set(headerSessionID, t.session)
	}
	if t.version >= versionHeaderFrom {
		h.Set(headerProtocolVersion, t.version)
	}
}

func (t *StreamableHTTP) expireSession(sid string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.session == sid {
		t.session, t.version, t.expired = "", "", sid
	}
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

func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
