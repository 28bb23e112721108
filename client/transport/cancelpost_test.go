package transport_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// The background POST of a legacy notifications/cancelled lasts as long as
// the deadline of Send's ctx says, and Close gives it half a second, not the
// 5 s that used to hold Close (issue 23).

// cancelPosts is what a cancelServer saw of the notifications/cancelled
// POSTs.
type cancelPosts struct {
	seen      chan struct{} // one arrived
	answered  chan struct{} // one was answered
	abandoned chan struct{} // the client went away before its answer
}

// cancelServer is a legacy server (session "s1") that answers the handshake
// and leaves tools/call unanswered. It answers a notifications/cancelled
// POST after answerAfter, or never when answerAfter is 0.
func cancelServer(t *testing.T, answerAfter time.Duration) (*httptest.Server, *cancelPosts) {
	p := &cancelPosts{seen: make(chan struct{}, 8), answered: make(chan struct{}, 8), abandoned: make(chan struct{}, 8)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
			return
		case http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
			return
		}
		body, _ := io.ReadAll(r.Body)
		m, err := jsonrpc.Decode(body)
		switch {
		case err != nil:
			http.Error(w, "bad body", http.StatusBadRequest)
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"cancel","version":"1"}}}`, m.ID)
		case m.Method == "notifications/cancelled":
			p.seen <- struct{}{}
			var after <-chan time.Time
			if answerAfter > 0 {
				after = time.After(answerAfter)
			}
			select {
			case <-after:
				w.WriteHeader(http.StatusAccepted)
				p.answered <- struct{}{}
			case <-r.Context().Done():
				p.abandoned <- struct{}{}
			}
		case m.IsNotification():
			w.WriteHeader(http.StatusAccepted)
		default:
			<-r.Context().Done() // never answered
		}
	}))
	t.Cleanup(srv.Close)
	return srv, p
}

// cancelAfterCall starts tools/call 2 on a legacy session with srv and
// gives it up: it sends the notifications/cancelled with a ctx that has the
// deadline (none when 0), and cancels that ctx as soon as Send returns, as
// callers do. sent is when the ctx was made.
func cancelAfterCall(t *testing.T, srv *httptest.Server, deadline time.Duration) (tr *transport.StreamableHTTP, sent time.Time) {
	tr = transport.HTTP(srv.URL, transport.WithLogger(slog.New(slog.DiscardHandler))) // it warns of each undelivered POST
	t.Cleanup(func() { tr.Close() })
	legacyHandshake(t, tr, "2025-11-25")
	send(t, tr, request(t, 2, "tools/call", map[string]any{"name": "slow"}))
	msg, err := jsonrpc.Encode(notification(t, "notifications/cancelled", map[string]any{"requestId": 2, "reason": "test"}))
	require.NoError(t, err)
	sent = time.Now()
	ctx, cancel := context.WithCancel(t.Context())
	if deadline > 0 {
		ctx, cancel = context.WithTimeout(t.Context(), deadline)
	}
	require.NoError(t, tr.Send(ctx, msg))
	cancel()
	return tr, sent
}

// awaitPost fails the test unless ch delivers within d.
func awaitPost(t *testing.T, ch <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("%s: not within %v", what, d)
	}
}

// The POST ends at the deadline of Send's ctx, not at a fixed 5 s, and not
// when ctx is cancelled after Send has returned.
func TestHTTPCancelPostEndsAtSendDeadline(t *testing.T) {
	srv, posts := cancelServer(t, 0)
	const deadline = 300 * time.Millisecond
	_, start := cancelAfterCall(t, srv, deadline)
	awaitPost(t, posts.seen, 10*time.Second, "the notifications/cancelled POST")
	awaitPost(t, posts.abandoned, 10*time.Second, "the end of the unanswered POST")
	took := time.Since(start)
	t.Logf("the unanswered notifications/cancelled POST, sent with a %v deadline, ended after %v", deadline, took.Round(time.Millisecond))
	assert.GreaterOrEqual(t, took, deadline, "cancelling ctx after Send does not end the POST")
	assert.Less(t, took, deadline+time.Second, "the POST ends at the deadline of Send's ctx")
}

// Close is not held by a notifications/cancelled POST that the server does
// not answer: it gives it half a second. (Before: 5 s.)
func TestHTTPCloseNotHeldByCancelPost(t *testing.T) {
	srv, posts := cancelServer(t, 0)
	tr, _ := cancelAfterCall(t, srv, 0) // no deadline: 5 s were the POST's bound
	awaitPost(t, posts.seen, 10*time.Second, "the notifications/cancelled POST")
	start := time.Now()
	require.NoError(t, tr.Close())
	took := time.Since(start)
	t.Logf("Close with an unanswered notifications/cancelled POST: %v", took.Round(time.Millisecond))
	assert.Less(t, took, 500*time.Millisecond+time.Second)
	awaitPost(t, posts.abandoned, 10*time.Second, "the end of the unanswered POST")
}

// A notifications/cancelled sent just before Close still reaches a server
// that takes it within the half second Close gives it.
func TestHTTPCloseLetsCancelPostThrough(t *testing.T) {
	srv, posts := cancelServer(t, 100*time.Millisecond)
	tr, _ := cancelAfterCall(t, srv, 0)
	start := time.Now()
	require.NoError(t, tr.Close())
	t.Logf("Close with a notifications/cancelled POST answered after 100ms: %v", time.Since(start).Round(time.Millisecond))
	awaitPost(t, posts.answered, 10*time.Second, "the server's answer to the notifications/cancelled POST")
}
