package mcptest_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// Issue 39: go-sdk with an event store primes each POST's SSE stream (an id,
// no data) and sets no retry field. The retry SHOULD is for a stream the
// server closes before its response: on a stream that carried the response
// it is a note, not a warning; a stream cut before the response, with no
// retry, is warned about.
func TestHTTPPrimingRetryOnlyForAnEarlyClose(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		cut    bool
		status servercheck.Status
		detail string
	}{
		{"ended-normally", false, servercheck.Pass, "carried the response; it set no retry field"},
		{"closed-early", true, servercheck.Warn, "ended before the response, with no retry field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := probeServer(nil)
			var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
				&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)})
			if tc.cut {
				next := h
				h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(&dropAnswer{w}, r) })
			}
			t.Cleanup(func() {
				for ss := range s.Sessions() {
					_ = ss.Close()
				}
			})
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			var got *servercheck.Result
			err := servercheck.Run(t.Context(), func(context.Context) (client.Transport, error) { return transport.HTTP(srv.URL), nil },
				&servercheck.Options{Version: client.Version20251125, Run: "http/priming", OnResult: func(r servercheck.Result) {
					if r.Name == "http/priming" {
						got = &r
					}
				}})
			require.NoError(t, err)
			require.NotNil(t, got, "http/priming did not run")
			assert.Equal(t, tc.status, got.Status, "%s", got)
			assert.Contains(t, got.Detail, tc.detail)
		})
	}
}

// dropAnswer drops the SSE event that answers the checks' raw ping, so
// that its stream ends before the response.
type dropAnswer struct{ http.ResponseWriter }

func (d *dropAnswer) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"mcptestkit-check-http"`)) && bytes.Contains(p, []byte(`"result"`)) {
		return len(p), nil
	}
	return d.ResponseWriter.Write(p)
}

func (d *dropAnswer) Flush() {
	if f, ok := d.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Issue 39: go-sdk's stateful handler serves a request without the session
// id it gave out: it does not require one, which is noted. One that refuses
// it with another status than 400 is warned about (servers that require a
// session id SHOULD answer 400).
func TestHTTPRequestWithoutSessionID(t *testing.T) {
	t.Parallel()
	for _, refuse := range []bool{false, true} {
		s := probeServer(nil)
		var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
		if refuse {
			next := h
			h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Mcp-Session-Id") == "" && r.Method == http.MethodPost && !bytes.Contains(peekBody(r), []byte(`"initialize"`)) {
					http.Error(w, "no session", http.StatusNotFound)
					return
				}
				next.ServeHTTP(w, r)
			})
		}
		t.Cleanup(func() {
			for ss := range s.Sessions() {
				_ = ss.Close()
			}
		})
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		var got *servercheck.Result
		_ = servercheck.Run(t.Context(), func(context.Context) (client.Transport, error) { return transport.HTTP(srv.URL), nil },
			&servercheck.Options{Version: client.Version20251125, Run: "http/no-session", OnResult: func(r servercheck.Result) {
				if r.Name == "http/no-session" {
					got = &r
				}
			}})
		require.NotNil(t, got)
		if !refuse {
			assert.Equal(t, servercheck.Pass, got.Status, "%s", got)
			assert.Contains(t, got.Detail, "the server does not require one")
			continue
		}
		assert.Equal(t, servercheck.Warn, got.Status, "%s", got)
		assert.Contains(t, got.Detail, "sent ping without the Mcp-Session-Id the server gave out at initialize; it was refused with HTTP 404")
	}
}

// peekBody reads r's body and puts it back.
func peekBody(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b
}
