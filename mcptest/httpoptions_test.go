package mcptest

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// WithHTTPOptions reaches the HTTP transport: here the Authorization header
// a protected server requires.
func TestWithHTTPOptionsSendsHeaders(t *testing.T) {
	t.Parallel()
	inner := probeServer().handler()
	protected := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0ken" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r)
	})

	runFake(t, func(tb testing.TB) {
		ConnectHTTP(tb, protected, WithProtocolVersion(client.LatestLegacyVersion))
	}).expectFailure(t, "mcptest.ConnectHTTP:", "401")

	c := ConnectHTTP(t, protected, WithProtocolVersion(client.LatestLegacyVersion),
		WithHTTPOptions(transport.WithHeader("Authorization", "Bearer t0ken")))
	assert.NoError(t, c.Ping(t.Context()))
}
