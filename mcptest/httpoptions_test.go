package mcptest

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// Handler's transport options reach the HTTP transport: here the
// Authorization header a protected server requires.
func TestHandlerOptionsSendHeaders(t *testing.T) {
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
		Connect(tb, Handler(protected), WithProtocolVersion(client.LatestLegacyVersion))
	}).expectFailure(t, "mcptest.Connect:", "401")

	c := Connect(t, Handler(protected, transport.WithHeader("Authorization", "Bearer t0ken")), WithProtocolVersion(client.LatestLegacyVersion))
	assert.NoError(t, c.Ping(t.Context()))
}
