package servercheck_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

type serveFunc func(ctx context.Context, conn *memtransport.Conn) error

func (f serveFunc) Serve(ctx context.Context, conn *memtransport.Conn) error { return f(ctx, conn) }

// Closing a connection of InProcess stops its server: quietly when Serve
// returns as its connection closes, with an error when it returns only once
// its context is cancelled. A panic in Serve reaches the dial context's
// crash reporter, which is how the checks hear of it.
func TestInProcessStopsItsServer(t *testing.T) {
	t.Parallel()
	t.Run("returns on close", func(t *testing.T) {
		t.Parallel()
		tr, err := servercheck.InProcess(pinger{})(t.Context())
		require.NoError(t, err)
		assert.NoError(t, tr.Close())
	})
	t.Run("returns on cancel", func(t *testing.T) {
		t.Parallel()
		tr, err := servercheck.InProcess(serveFunc(func(ctx context.Context, _ *memtransport.Conn) error {
			<-ctx.Done()
			return nil
		}))(t.Context())
		require.NoError(t, err)
		assert.EqualError(t, tr.Close(), "Serve did not return within 5s of its connection closing; it returned only when its context was cancelled")
	})
	t.Run("panics", func(t *testing.T) {
		t.Parallel()
		reports := make(chan crash.Report, 1)
		ctx := crash.WithReporter(t.Context(), func(r crash.Report) { reports <- r })
		tr, err := servercheck.InProcess(serveFunc(func(context.Context, *memtransport.Conn) error { panic("kaboom") }))(ctx)
		require.NoError(t, err)
		r := <-reports
		assert.Equal(t, "Serve", r.Method)
		assert.Equal(t, "kaboom", r.Value)
		assert.NoError(t, tr.Close())
	})
}
