package transport_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// The HTTP fault cells: real servers on 127.0.0.1 misbehaving. Every
// blocking step runs under within, so a hang fails the test.

// within runs fn and fails the test if it has not returned after d (a hang
// guard, far above what fn needs).
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		fn()
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
		t.Logf("%s returned after %v", what, time.Since(start).Round(time.Millisecond))
	case <-timer.C:
		t.Fatalf("%s still blocked after %v", what, d)
	}
}

// hang blocks until the client gives up on the request. It reads the body
// first: net/http notices a client that went away only after that.
func hang(_ http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

func TestHTTPSendHonoursContextWhenServerNeverAnswers(t *testing.T) {
	tr, _ := rawServer(t, hang)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	var err error
	within(t, 5*time.Second, "Send of a notification", func() {
		err = tr.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// hangingLegacyServer answers the handshake of a 2025-06-18 session and
// nothing else: requests go unanswered, and so does the
// notifications/cancelled POST until release is closed (each cancel POST
// is reported on cancelled).
func hangingLegacyServer(t *testing.T, cancelled chan<- struct{}, release <-chan struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
			return
		case http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
			return
		}
		m := rpcOf(t, r)
		switch {
		case m == nil:
			http.Error(w, "bad body", http.StatusBadRequest)
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"raw","version":"1"}}}`, m.ID)
		case m.Method == "notifications/cancelled":
			cancelled <- struct{}{}
			select {
			case <-release:
				w.WriteHeader(http.StatusAccepted)
			case <-r.Context().Done():
			}
		case m.IsNotification():
			w.WriteHeader(http.StatusAccepted)
		default:
			hang(w, r)
		}
	}
}

func TestHTTPCallReturnsByDeadlineWhenCancelPostHangs(t *testing.T) {
	cancelPosted := make(chan struct{}, 1)
	release := make(chan struct{})
	tr, _ := rawServer(t, hangingLegacyServer(t, cancelPosted, release))
	c := connectClient(t, tr, &client.Options{ProtocolVersion: "2025-06-18"})
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	var err error
	within(t, 5*time.Second, "CallTool with a 300ms deadline", func() {
		_, err = c.CallTool(ctx, "slow", nil)
	})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	select {
	case <-cancelPosted: // the server was still told, best effort
	case <-time.After(10 * time.Second):
		t.Error("notifications/cancelled was never POSTed")
	}
	close(release)
}

func TestHTTPConnectHonoursContext(t *testing.T) {
	tr, _ := rawServer(t, hang)
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	var err error
	within(t, 5*time.Second, "client.Connect with a 500ms deadline", func() {
		_, err = client.Connect(ctx, tr, nil)
	})
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	t.Logf("client.Connect: %v", err)
	within(t, 5*time.Second, "Close", func() { tr.Close() })
}

// redirecting serves a legacy server at /mcp and redirects /old there with
// the given status.
func redirecting(t *testing.T, status int) (*transport.StreamableHTTP, *recorder) {
	mux := http.NewServeMux()
	mux.Handle("/mcp", legacyServer(t, "2025-06-18", func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"answered"}]}}`, m.ID)
	}))
	mux.Handle("/old", http.RedirectHandler("/mcp", status))
	rec := record(mux)
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	tr := transport.HTTP(srv.URL + "/old")
	t.Cleanup(func() { tr.Close() })
	return tr, rec
}

func TestHTTPRedirectsThatChangeTheMethodAreRefused(t *testing.T) {
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			tr, rec := redirecting(t, status)
			send(t, tr, request(t, 1, "initialize", initializeParams("2025-06-18")))
			resp := recv(t, tr)
			require.NotNil(t, resp.Error)
			assert.Equal(t, transport.CodeHTTPError, resp.Error.Code)
			t.Logf("%s", resp.Error.Message)
			assert.Contains(t, resp.Error.Message, "POST initialize failed")
			assert.Contains(t, resp.Error.Message, fmt.Sprintf("HTTP %d %s", status, http.StatusText(status)))
			assert.Contains(t, resp.Error.Message, "/mcp")
			assert.Contains(t, resp.Error.Message, "turn the POST into a GET")
			assert.Empty(t, rec.requests(method(http.MethodGet)), "the redirect was not followed")

			err := tr.Send(t.Context(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
			assert.ErrorContains(t, err, "turn the POST into a GET")
		})
	}
}

func TestHTTPRedirectsThatKeepTheMethodAreFollowed(t *testing.T) {
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			tr, _ := redirecting(t, status)
			legacyHandshake(t, tr, "2025-06-18")
			assert.Equal(t, "answered", callText(t, tr, 2, map[string]any{"name": "x"}))
		})
	}
}

// reset sends head (the status line, headers and the start of a body) on
// the raw connection, then resets it (RST, not FIN).
func reset(t *testing.T, w http.ResponseWriter, head string) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	require.NoError(t, err)
	buf.WriteString(head)
	buf.Flush()
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// endless writes s until the client goes away.
func endless(w http.ResponseWriter, s string) {
	rc := http.NewResponseController(w)
	for {
		if _, err := io.WriteString(w, s); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
	}
}

// TestHTTPFaultCells: one request each, against a server misbehaving in
// one way. Every request must get exactly one response, an error that
// names what went wrong, and nothing may hang (recv gives up after 30s).
func TestHTTPFaultCells(t *testing.T) {
	cases := []struct {
		name    string
		modern  bool
		reply   func(t *testing.T, w http.ResponseWriter, id string)
		opts    []transport.HTTPOption
		code    int64
		message string // substrings of the error message
	}{
		{"503 with a JSON-RPC error", false, func(_ *testing.T, w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"overloaded, try later"}}`, id)
		}, nil, -32603, "overloaded, try later"},
		{"502 with an HTML body", false, func(_ *testing.T, w http.ResponseWriter, _ string) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, "<html><body>Bad Gateway</body></html>")
		}, nil, transport.CodeHTTPError, "HTTP 502 Bad Gateway from POST tools/list"},
		{"half an SSE event, then EOF", true, func(_ *testing.T, w http.ResponseWriter, id string) {
			writeSSE(w, `data: {"jsonrpc":"2.0","id":`+id+`,"resu`)
		}, nil, transport.CodeHTTPError, "the SSE stream of tools/list ended before its response; 2026-07-28 has no resumption"},
		{"endless JSON body", false, func(_ *testing.T, w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"pad":"`, id)
			endless(w, strings.Repeat("x", 4096))
		}, []transport.HTTPOption{transport.WithMaxBodySize(64 << 10)}, transport.CodeHTTPError, "the body is larger than 65536 bytes (limit set with WithMaxBodySize)"},
		{"endless SSE event", false, func(_ *testing.T, w http.ResponseWriter, id string) {
			writeSSE(w, `data: {"jsonrpc":"2.0","id":`+id+`,"result":{"pad":"`)
			endless(w, strings.Repeat("x", 4096))
		}, []transport.HTTPOption{transport.WithMaxBodySize(64 << 10)}, transport.CodeHTTPError, "more than 65536 bytes of data (limit set with WithMaxBodySize)"},
		{"endless SSE data lines", false, func(_ *testing.T, w http.ResponseWriter, _ string) {
			writeSSE(w)
			endless(w, "data: x\n")
		}, []transport.HTTPOption{transport.WithMaxBodySize(64 << 10)}, transport.CodeHTTPError, "more than 65536 bytes of data"},
		{"connection reset in a JSON body", false, func(t *testing.T, w http.ResponseWriter, id string) {
			reset(t, w, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"+`{"jsonrpc":"2.0","id":`+id)
		}, nil, transport.CodeHTTPError, "reading the reply to tools/list"},
		{"connection reset in an SSE stream", true, func(t *testing.T, w http.ResponseWriter, id string) {
			reset(t, w, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n10\r\ndata: {\"jsonrpc\"\r\n")
		}, nil, transport.CodeHTTPError, "the SSE stream of tools/list ended before its response ("},
		{"connection reset before the headers", false, func(t *testing.T, w http.ResponseWriter, _ string) {
			reset(t, w, "")
		}, nil, transport.CodeHTTPError, "POST tools/list failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, _ := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
				m := rpcOf(t, r)
				if m == nil {
					http.Error(w, "unexpected", http.StatusBadRequest)
					return
				}
				tc.reply(t, w, m.ID.String())
			}, tc.opts...)
			var params map[string]any
			if tc.modern {
				params = modern(nil)
			}
			send(t, tr, request(t, 1, "tools/list", params))
			resp, _ := recvResponse(t, tr, jsonrpc.Int64ID(1))
			require.NotNil(t, resp.Error, "got %s", resp.Result)
			t.Logf("%d %s %s", resp.Error.Code, resp.Error.Message, resp.Error.Data)
			assert.Equal(t, tc.code, resp.Error.Code)
			assert.Contains(t, resp.Error.Message, tc.message)

			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			_, err := tr.Receive(ctx)
			assert.ErrorIs(t, err, context.Canceled, "nothing else arrives for the request")
			within(t, 10*time.Second, "Close", func() { tr.Close() })
		})
	}
}
