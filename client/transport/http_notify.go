package transport

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// Notifications and responses: POSTed synchronously, errors returned,
// except notifications/cancelled, which goes in the background.

// postCancel POSTs a legacy notifications/cancelled in the background and
// returns at once. Cancellation is best effort, and whoever sends it has
// given up waiting already: a server that does not answer this POST must
// not hold the caller past its deadline. The POST carries ctx's values and
// ends at ctx's deadline (after cancelTimeout when it has none): the
// sender decides how long its cancellation may take, and the usual cancel
// of ctx once Send returns does not cut it short. Close does not end it at
// once but lets it go on for cancelCloseWait at most: a server that runs
// the request until told otherwise must still hear of it when the client
// closes right after giving up, and one that does not answer must not hold
// Close. Its failure goes to the logger.
func (t *StreamableHTTP) postCancel(ctx context.Context, m *jsonrpc.Message, msg []byte, legacy *call) error {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(cancelTimeout)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return errClosed
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		ctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
		defer cancel()
		stop := context.AfterFunc(t.cancels, cancel)
		defer stop()
		err := t.post(ctx, m, msg)
		if legacy != nil && err == nil {
			legacy.cancel() // the server was told; stop waiting on its stream
		}
		if err != nil {
			if t.cancels.Err() != nil {
				err = fmt.Errorf("the transport closed and the server had not taken it %v later", cancelCloseWait)
			}
			t.cfg.logger.Warn("transport: notifications/cancelled was not delivered", "url", t.url, "error", err)
		}
	}()
	return nil
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
		return errClosed
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

// post POSTs a notification like postOther, but Close does not end it:
// ctx does.
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
			return errClosed
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
