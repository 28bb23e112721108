package client

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
	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// Over HTTP, a failed Connect or call comes back by its deadline, and Close
// is not held by a notifications/cancelled POST that the server does not
// answer (issue 23).

// slack is what a failure may take beyond its deadline: generous for a
// loaded 2-core machine running -race, and far below the 5 s that a
// notifications/cancelled POST nobody answers used to cost.
const slack = time.Second

// elapsed runs f under the hang guard and returns how long it took.
func elapsed(t *testing.T, what string, f func()) time.Duration {
	t.Helper()
	return returns(t, what, func() time.Duration {
		start := time.Now()
		f()
		return time.Since(start)
	})
}

// deafHTTP is a streamable HTTP server on 127.0.0.1 that takes every POST
// and never answers it (the handler waits for the client to go away). With
// handshake set it answers the legacy handshake first (session "s1", the
// logging capability), so that what hangs is a later request and the
// notifications/cancelled POST that gives it up.
func deafHTTP(t *testing.T, handshake bool) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body) // read first: net/http notices a client hanging up only after that
		if handshake {
			switch r.Method {
			case http.MethodGet:
				http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
				return
			case http.MethodDelete:
				w.WriteHeader(http.StatusNoContent)
				return
			}
			m, err := jsonrpc.Decode(body)
			switch {
			case err == nil && m.Method == methodInitialize:
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Mcp-Session-Id", "s1")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{}},"serverInfo":{"name":"deaf","version":"1"}}}`, m.ID)
				return
			case err == nil && m.Method == methodInitialized:
				w.WriteHeader(http.StatusAccepted)
				return
			}
		}
		<-r.Context().Done()
	}))
}

// quiet drops the transport's warnings (a notifications/cancelled not
// delivered), which these tests cause on purpose.
var quiet = transport.WithLogger(slog.New(slog.DiscardHandler))

// httpClient is an HTTP client of the test's own, so that its idle
// connections (and their goroutines) can be closed before the leak check.
func httpClient(t *testing.T) *http.Client {
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(hc.CloseIdleConnections)
	return hc
}

// A Connect over HTTP that fails comes back by its deadline, not after the
// background notifications/cancelled POST (which the server never answers
// either) has run out its own time; and nothing it started outlives it.
// (Before: the legacy case took 5.5 s, the Close of the failure path waiting
// out the cancel POST's fixed 5 s.)
func TestHTTPConnectFailsByDeadline(t *testing.T) {
	const deadline = 500 * time.Millisecond
	for _, tc := range []struct {
		name      string
		handshake bool
		opts      Options
	}{
		{"legacy, initialize unanswered", false, Options{ProtocolVersion: Version20251125}},
		{"legacy, logging/setLevel unanswered", true, Options{ProtocolVersion: Version20251125, LogLevel: LevelInfo}},
		{"era-neutral, server/discover unanswered", false, Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			srv := deafHTTP(t, tc.handshake)
			defer srv.Close()
			hc := httpClient(t)
			defer hc.CloseIdleConnections()
			var err error
			took := elapsed(t, "Connect", func() {
				ctx, cancel := context.WithTimeout(t.Context(), deadline)
				defer cancel()
				_, err = Connect(ctx, transport.HTTP(srv.URL, transport.WithHTTPClient(hc), quiet), &tc.opts)
			})
			t.Logf("Connect with a %v deadline failed after %v: %v", deadline, took.Round(time.Millisecond), err)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Less(t, took, deadline+slack, "a failed Connect comes back by its deadline")
		})
	}
}

// A call over HTTP that the server never answers returns by its deadline,
// and the Close after it is not held by the notifications/cancelled POST
// that the server does not answer either. (Before: Close took 5 s.)
func TestHTTPCloseNotHeldByUndeliveredCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := deafHTTP(t, true)
	defer srv.Close()
	hc := httpClient(t)
	defer hc.CloseIdleConnections()
	c, err := Connect(t.Context(), transport.HTTP(srv.URL, transport.WithHTTPClient(hc), quiet), &Options{ProtocolVersion: Version20251125})
	require.NoError(t, err)
	const deadline = 300 * time.Millisecond
	took := elapsed(t, "CallTool", func() {
		ctx, cancel := context.WithTimeout(t.Context(), deadline)
		defer cancel()
		_, err = c.CallTool(ctx, "slow", nil)
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, took, deadline+slack, "the call comes back by its deadline")
	closing := elapsed(t, "Close", func() { require.NoError(t, c.Close()) })
	t.Logf("CallTool with a %v deadline: %v; Close after it: %v", deadline, took.Round(time.Millisecond), closing.Round(time.Millisecond))
	// The transport gives the POST half a second after Close.
	assert.Less(t, closing, 500*time.Millisecond+slack, "Close is not held by the undelivered notifications/cancelled")
}
