// Package inmem serves an in-process MCP server on one end of an in-memory
// connection and stops it: the one piece of code that runs a server in
// memory, for mcptest's harness and for programs, through
// servercheck.InProcess.
package inmem

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Server is what Serve serves: mcptest.Server's method, which the SDK
// adapters (gosdktest.Server, mcpgotest.Server) have.
type Server interface {
	Serve(ctx context.Context, conn *memtransport.Conn) error
}

// Served is a Server being served: the goroutine running its Serve on one
// end of a connection.
type Served struct {
	end    *memtransport.Conn // the server's end
	cancel context.CancelFunc
	done   chan error // what Serve returned
}

// Serve runs srv.Serve on end, on a goroutine of its own, with a context
// derived from ctx that Stop cancels. A panic in Serve's own goroutine is
// recovered and handed to crashed, so that it cannot kill the process.
func Serve(ctx context.Context, srv Server, end *memtransport.Conn, crashed func(crash.Report)) *Served {
	ctx, cancel := context.WithCancel(ctx)
	s := &Served{end: end, cancel: cancel, done: make(chan error, 1)}
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

// End says how a Serve ended once its connection closed.
type End uint8

const (
	Returned  End = iota // when its connection closed, as it must
	Cancelled            // only once its context was cancelled
	Stuck                // not even then: its goroutine is left running
)

// Stop closes the server's end and waits up to grace for Serve to return;
// then it cancels Serve's context and waits up to afterCancel() more. It
// says how Serve ended and what it returned.
func (s *Served) Stop(grace time.Duration, afterCancel func() time.Duration) (End, error) {
	_ = s.end.Close()
	defer s.cancel()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case err := <-s.done:
		return Returned, err
	case <-timer.C:
	}
	s.cancel()
	timer.Reset(afterCancel())
	select {
	case err := <-s.done:
		return Cancelled, err
	case <-timer.C:
		return Stuck, nil
	}
}

// Dialer returns a function that serves srv on a fresh in-memory connection
// each time it is called (a servercheck.Dialer) and returns the client's
// end. ctx, which carries the checks' crash reporter, goes to Serve without
// its cancellation; a panic in Serve's own goroutine goes to that reporter.
// Closing the connection calls stop with its Served, once, and returns what
// stop returned (or the error closing the client's end).
func Dialer(srv Server, stop func(*Served) error) func(ctx context.Context) (client.Transport, error) {
	return func(ctx context.Context) (client.Transport, error) {
		cli, end := memtransport.Pair()
		s := Serve(context.WithoutCancel(ctx), srv, end, func(r crash.Report) { crash.Deliver(ctx, r) })
		return &conn{Conn: cli, s: s, stop: stop}, nil
	}
}

// StopWithin is the stop of a Dialer for a program: it waits up to grace
// for Serve, twice (see Stop), and reports a Serve that did not return when
// its connection closed as an error.
func StopWithin(grace time.Duration) func(*Served) error {
	return func(s *Served) error {
		switch end, _ := s.Stop(grace, func() time.Duration { return grace }); end {
		case Cancelled:
			return fmt.Errorf("Serve did not return within %v of its connection closing; it returned only when its context was cancelled", grace)
		case Stuck:
			return fmt.Errorf("Serve did not return within %v of its connection closing and its context being cancelled; its goroutine is left running", 2*grace)
		}
		return nil
	}
}

// conn is the client's end of a connection Dialer opened.
type conn struct {
	*memtransport.Conn
	s    *Served
	stop func(*Served) error
	once sync.Once
	err  error
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.err = c.stop(c.s)
		c.s = nil // a harness's Served carries its leak label, which must become unreachable
	})
	if c.err != nil {
		return c.err
	}
	return err
}
