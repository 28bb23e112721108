package mcptest_test

import (
	"bytes"
	"context"
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
