package client

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/client/transport"
)

// However a Client's connection ends, its calls and Err fail with errors
// matching ErrClosed, the kit's one sentinel for an ended connection, and
// keep the transport's own error as the cause.
func TestClosedErrorsMatchErrClosed(t *testing.T) {
	t.Run("Close", func(t *testing.T) {
		c, _ := legacyFake(t, Version20251125, nil)
		require.NoError(t, c.Close())
		_, err := c.ListTools(t.Context(), "")
		require.ErrorIs(t, err, ErrClosed)
		require.EqualError(t, err, "tools/list: client: connection closed")
		require.ErrorIs(t, c.Err(), ErrClosed)
	})
	t.Run("in-memory end closed by the server", func(t *testing.T) {
		c, f := legacyFake(t, Version20251125, nil)
		require.NoError(t, f.conn.Close())
		<-c.Done()
		_, err := c.ListTools(t.Context(), "")
		require.ErrorIs(t, err, ErrClosed)
		require.ErrorIs(t, err, io.ErrClosedPipe, "memtransport's own error is the cause")
		require.ErrorIs(t, c.Err(), ErrClosed)
	})
	t.Run("HTTP transport closed under the client", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		srv := deafHTTP(t, true)
		defer srv.Close()
		hc := httpClient(t)
		defer hc.CloseIdleConnections()
		tr := transport.HTTP(srv.URL, transport.WithHTTPClient(hc), quiet)
		c, err := Connect(t.Context(), tr, &Options{ProtocolVersion: Version20251125})
		require.NoError(t, err)
		defer c.Close()
		require.NoError(t, tr.Close())
		<-c.Done()
		_, err = c.ListTools(t.Context(), "")
		require.ErrorIs(t, err, ErrClosed)
		assert.EqualError(t, err, "tools/list: client: connection closed: transport: transport: closed")
		require.ErrorIs(t, c.Err(), ErrClosed)
	})
}
