package mcptest

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// served is a Server served in memory: the goroutine running its Serve on
// one end of a connection. [Connect] and the connections of [CheckServer]
// and [Fuzz] serve a Server this way and stop it the same way.
type served struct {
	end    *memtransport.Conn // the server's end
	cancel context.CancelFunc
	done   chan error // what Serve returned
}

// serve runs srv.Serve on end, on a goroutine of its own, with a context
// derived from ctx that stop cancels. A panic in Serve's own goroutine is
// recovered and handed to crashed, so that it cannot kill the test binary.
func serve(ctx context.Context, srv Server, end *memtransport.Conn, crashed func(crash.Report)) *served {
	ctx, cancel := context.WithCancel(ctx)
	s := &served{end: end, cancel: cancel, done: make(chan error, 1)}
	go func() {
		var err error
		defer func() {
			if r := recover(); r != nil {
				crashed(crash.Report{Method: "Serve", Value: r, Stack: debug.Stack()})
				err = fmt.Errorf("Serve panicked: %v", r)
			}
			s.done <- err
		}()
		err = srv.Serve(ctx, end)
	}()
	return s
}

// serveEnd says how a Serve ended once its connection closed.
type serveEnd uint8

const (
	returned  serveEnd = iota // when its connection closed, as it must
	cancelled                 // only once its context was cancelled
	stuck                     // not even then: its goroutine is left running
)

// stop closes the server's end and waits up to grace for Serve to return;
// then it cancels Serve's context and waits up to afterCancel() more. It
// says how Serve ended and what it returned.
func (s *served) stop(grace time.Duration, afterCancel func() time.Duration) (serveEnd, error) {
	_ = s.end.Close()
	defer s.cancel()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case err := <-s.done:
		return returned, err
	case <-timer.C:
	}
	s.cancel()
	timer.Reset(afterCancel())
	select {
	case err := <-s.done:
		return cancelled, err
	case <-timer.C:
		return stuck, nil
	}
}
