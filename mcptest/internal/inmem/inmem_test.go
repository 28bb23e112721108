package inmem

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type serveFunc func(ctx context.Context, conn *memtransport.Conn) error

func (f serveFunc) Serve(ctx context.Context, conn *memtransport.Conn) error { return f(ctx, conn) }

// untilClosed serves nothing and returns when its connection closes, as a
// server must.
func untilClosed(ctx context.Context, conn *memtransport.Conn) error {
	<-conn.Done()
	return errors.New("closed")
}

// Stop says how Serve ended: when its connection closed, only once
// cancelled, or not at all; and what it returned.
func TestStopSaysHowServeEnded(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // after the parallel subtests
	cases := []struct {
		name string
		srv  serveFunc
		want End
	}{
		{"returns on close", untilClosed, Returned},
		{"returns on cancel", func(ctx context.Context, _ *memtransport.Conn) error { <-ctx.Done(); return ctx.Err() }, Cancelled},
		{"stuck", func(context.Context, *memtransport.Conn) error { <-release; return nil }, Stuck},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, end := memtransport.Pair()
			s := Serve(context.Background(), tc.srv, end, func(crash.Report) { t.Error("no panic expected") })
			// A short first wait only where it must run out, a long one
			// where Serve returns: no scheduling delay changes the answer.
			grace, afterCancel := 50*time.Millisecond, 5*time.Second
			switch tc.want {
			case Returned:
				grace = 5 * time.Second
			case Stuck:
				afterCancel = 50 * time.Millisecond
			}
			got, err := s.Stop(grace, func() time.Duration { return afterCancel })
			assert.Equal(t, tc.want, got)
			if tc.want == Returned {
				assert.EqualError(t, err, "closed")
			}
		})
	}
}

// A panic in Serve's own goroutine goes to the reporter, with its stack,
// and becomes Serve's error.
func TestServePanicIsReported(t *testing.T) {
	t.Parallel()
	reports := make(chan crash.Report, 1)
	_, end := memtransport.Pair()
	s := Serve(context.Background(), serveFunc(func(context.Context, *memtransport.Conn) error { panic("boom") }), end,
		func(r crash.Report) { reports <- r })
	got, err := s.Stop(time.Second, func() time.Duration { return time.Second })
	assert.Equal(t, Returned, got)
	assert.EqualError(t, err, "Serve panicked: boom")
	r := <-reports
	assert.Equal(t, "Serve", r.Method)
	assert.Equal(t, "boom", r.Value)
	assert.Contains(t, string(r.Stack), "inmem_test.go")
}

// Dialer's connections serve srv with ctx's values (the crash reporter
// among them) but not its cancellation, and closing one says when Serve
// did not return.
func TestDialer(t *testing.T) {
	t.Parallel()
	reports := make(chan crash.Report, 1)
	ctx, cancel := context.WithCancel(crash.WithReporter(context.Background(), func(r crash.Report) { reports <- r }))
	served := make(chan context.Context, 1)
	dial := Dialer(serveFunc(func(ctx context.Context, conn *memtransport.Conn) error {
		served <- ctx
		return untilClosed(ctx, conn)
	}), StopWithin(time.Second))
	tr, err := dial(ctx)
	require.NoError(t, err)
	cancel()
	sctx := <-served
	require.NoError(t, sctx.Err(), "Serve's context outlives the dial's")
	require.NoError(t, tr.Close())
	require.Error(t, sctx.Err(), "Close ends it")
	require.NoError(t, tr.Close(), "Close is idempotent")

	stubborn := Dialer(serveFunc(func(ctx context.Context, _ *memtransport.Conn) error { <-ctx.Done(); return nil }), StopWithin(time.Second))
	tr, err = stubborn(context.Background())
	require.NoError(t, err)
	assert.EqualError(t, tr.Close(), "Serve did not return within 1s of its connection closing; it returned only when its context was cancelled")

	stops := 0
	counted := Dialer(serveFunc(untilClosed), func(s *Served) error { stops++; _, err := s.Stop(time.Second, nil); return err })
	tr, err = counted(context.Background())
	require.NoError(t, err)
	assert.EqualError(t, tr.Close(), "closed", "Close returns what stop returned")
	assert.EqualError(t, tr.Close(), "closed")
	assert.Equal(t, 1, stops, "stop runs once")

	panicky := Dialer(serveFunc(func(context.Context, *memtransport.Conn) error { panic("boom") }), StopWithin(time.Second))
	tr, err = panicky(crash.WithReporter(context.Background(), func(r crash.Report) { reports <- r }))
	require.NoError(t, err)
	assert.Equal(t, "boom", (<-reports).Value)
	require.NoError(t, tr.Close())
}
