package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	. "github.com/mcptestkit/mcptestkit/client"

	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// slowCalls makes the "slow" tool's cancelled calls deterministic on a busy
// machine, where two orders are possible besides the intended one. A short
// timeout can expire before the request is sent: no server hears of it, and
// the call is simply made again. And the cancellation can reach the server
// before the request's handler runs: the go-sdk then never runs it, and
// mcp-go, which registers a request's cancel func on the handler's
// goroutine, loses it. So its fault hook holds every notifications/cancelled
// until the test has seen the handler start.
type slowCalls struct {
	ctl     *controls
	sent    chan struct{} // a tools/call went out
	release chan struct{} // lets one held notifications/cancelled go on
}

func newSlowCalls(ctl *controls) *slowCalls {
	return &slowCalls{ctl: ctl, sent: make(chan struct{}, 1), release: make(chan struct{})}
}

// hook is the client→server fault hook.
func (s *slowCalls) hook(f memtransport.Frame) memtransport.Action {
	if f.Dir != memtransport.ClientToServer {
		return memtransport.Action{}
	}
	m, err := jsonrpc.Decode(f.Data)
	if err != nil {
		return memtransport.Action{}
	}
	switch m.Method {
	case "tools/call":
		s.sent <- struct{}{}
	case "notifications/cancelled":
		return memtransport.Action{Hold: s.release}
	}
	return memtransport.Action{}
}

// run makes call, a "slow" tools/call that ends by cancellation, until its
// request goes out; then it waits for the handler to start, calls started
// (if any), lets the cancellation through and returns call's error. The
// caller receives the handler's slowDone.
func (s *slowCalls) run(t *testing.T, call func() error, started func()) error {
	t.Helper()
	for range 100 {
		errc := make(chan error, 1)
		go func() { errc <- call() }()
		select {
		case <-s.sent:
			// The call cannot end before the release: its cancellation is held.
			<-s.ctl.slowStarted
			if started != nil {
				started()
			}
			s.release <- struct{}{}
			return <-errc
		case err := <-errc:
			// Over before its request went out (so nothing was sent to
			// cancel either): the server never heard of it. Again.
			t.Logf("the call ended before its request was sent (%v); calling again", err)
		}
	}
	t.Fatal("in 100 calls the request never went out before the call ended")
	return nil
}

// A request that runs out of time names itself and its timeout, is still a
// context.DeadlineExceeded, and the server hears why the client gave up.
func TestMatrixTimeoutNamesTheCall(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		srv, ctl := fx.newServer(t, 0)
		calls := newSlowCalls(ctl)
		c, _ := connect(t, srv, &Options{ProtocolVersion: version, Timeout: 20 * time.Millisecond}, memtransport.WithFault(calls.hook))
		slow := func(ctx context.Context, opts ...CallOption) func() error {
			return func() error {
				_, err := c.CallTool(ctx, "slow", nil, opts...)
				return err
			}
		}

		err := calls.run(t, slow(t.Context()), nil)
		require.EqualError(t, err, `tools/call "slow": no response within 20ms`)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.ErrorIs(t, <-ctl.slowDone, context.Canceled, "the server's handler was cancelled")

		// WithTimeout overrides the default, and its own value is named.
		err = calls.run(t, slow(t.Context(), WithTimeout(30*time.Millisecond)), nil)
		require.EqualError(t, err, `tools/call "slow": no response within 30ms`)
		<-ctl.slowDone

		// The caller's own deadline: the call is named, the cause is the
		// caller's (the client has no timeout of its own to report).
		err = calls.run(t, func() error {
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
			defer cancel()
			return slow(ctx, WithTimeout(0))()
		}, nil)
		require.EqualError(t, err, `tools/call "slow": context deadline exceeded`)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		<-ctl.slowDone

		// The caller's deadline comes first: it is the one reported.
		err = calls.run(t, func() error {
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
			defer cancel()
			return slow(ctx, WithTimeout(time.Hour))()
		}, nil)
		require.EqualError(t, err, `tools/call "slow": context deadline exceeded`)
		<-ctl.slowDone

		// A caller's cause is kept. (The client's own timeout is set long
		// here, so that the cancellation surely comes first.)
		why := errors.New("user pressed stop")
		ctx, cancel := context.WithCancelCause(t.Context())
		defer cancel(nil)
		err = calls.run(t, slow(ctx, WithTimeout(time.Hour)), func() { cancel(why) })
		require.ErrorIs(t, err, why)
		require.EqualError(t, err, `tools/call "slow": user pressed stop`)
		<-ctl.slowDone
	})
}
