package mcptest

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"testing"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/crash"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Server is an MCP server the harness can connect to: Serve serves one
// connection end until the connection closes (or ctx ends), then returns.
// The adapters gosdk.Server and mcpgo.Server satisfy it; [ServerFunc] adapts
// any other server.
//
// Serve must not return before it has stopped using conn and every goroutine
// it started for the connection has finished (or is about to), because the
// harness checks for leaked goroutines once it returns.
type Server interface {
	Serve(ctx context.Context, conn *memtransport.Conn) error
}

// ServerFunc is a function that is a [Server].
type ServerFunc func(ctx context.Context, conn *memtransport.Conn) error

// Serve calls f(ctx, conn).
func (f ServerFunc) Serve(ctx context.Context, conn *memtransport.Conn) error { return f(ctx, conn) }

// defaultServeGrace is how long the cleanup waits for Serve to return after
// the client closed, and again after cancelling Serve's context.
const defaultServeGrace = 5 * time.Second

// Connect serves srv on one end of a fresh in-memory connection, connects a
// real [client.Client] to the other end and returns it after the handshake,
// ready to use. Everything is undone when the test ends (t.Cleanup): the
// client closes, Serve must return, and the test fails if a goroutine the
// connection started is still running.
//
// While the test runs:
//   - every request has a deadline ([DefaultTimeout], [WithTimeout]), so a
//     server that never answers fails the call with an error naming the
//     method instead of hanging;
//   - a handler panic that the adapter's last-resort recovery catches fails
//     the test with the panic value, the method, the tool (or URI, or
//     prompt) and the stack, and says how to install the crash guard. A
//     server with its own recovery (the crash guard) is left alone: the
//     panic is its business and reaches the test as a result and a log
//     record;
//   - when the test fails, the transcript of the connection (every message,
//     both ways) is printed, the middle cut on very long runs
//     ([WithTranscriptLimits], [WithoutTranscript]).
//
// Connect is safe for parallel tests: connections share nothing, and the
// leak check only looks at goroutines this connection started (the package
// documentation explains how, and its limits).
//
// If the handshake fails, Connect stops the test with t.Fatalf.
func Connect(t testing.TB, srv Server, opts ...Option) *client.Client {
	t.Helper()
	if srv == nil {
		t.Fatalf("mcptest.Connect: the server is nil")
		return nil
	}
	cfg := newConfig(opts)
	keep := DefaultTranscriptFrames
	if !cfg.transcript {
		keep = 0
	}
	// The user's transport options come last, so they can change this.
	pairOpts := append([]memtransport.Option{memtransport.WithTranscriptLimit(keep)}, cfg.pairOptions...)
	cliEnd, srvEnd := memtransport.Pair(pairOpts...)

	h := &harness{t: t, cfg: cfg, label: newLeakLabel(), srvEnd: srvEnd, served: make(chan error, 1)}
	serveCtx := crash.WithReporter(context.Background(), h.reportCrash)
	serveCtx, h.cancelServe = context.WithCancel(serveCtx)

	copts := cfg.client
	copts.Timeout = cfg.timeout
	for _, edit := range cfg.clientEdits {
		edit(&copts)
	}
	connectCtx, cancel := t.Context(), context.CancelFunc(func() {})
	if cfg.timeout > 0 {
		connectCtx, cancel = context.WithTimeout(connectCtx, cfg.timeout)
	}
	defer cancel()

	var err error
	// Everything started inside pprof.Do carries the connection's label: the
	// server's goroutines and the client's reader. That is how the leak
	// check tells them from other tests' goroutines.
	pprof.Do(serveCtx, pprof.Labels(leakLabel, h.label), func(ctx context.Context) {
		go h.serve(ctx, srv)
		h.client, err = client.Connect(connectCtx, cliEnd, &copts)
	})
	t.Cleanup(h.cleanup)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && cfg.timeout > 0 {
			t.Fatalf("mcptest.Connect: the server did not complete the handshake within %v: %v", cfg.timeout, err)
		}
		t.Fatalf("mcptest.Connect: %v", err)
		return nil
	}
	return h.client
}

// harness is the state of one connection made by Connect.
type harness struct {
	t           testing.TB
	cfg         *config
	label       string
	srvEnd      *memtransport.Conn
	client      *client.Client
	cancelServe context.CancelFunc
	served      chan error

	mu   sync.Mutex
	over bool // the cleanup has finished: t must not be used any more
}

// serve runs the server. A panic in Serve's own goroutine is recovered and
// reported like a handler panic, so it cannot kill the test binary.
func (h *harness) serve(ctx context.Context, srv Server) {
	var err error
	defer func() {
		if r := recover(); r != nil {
			h.reportCrash(crash.Report{Method: "Serve", Value: r, Stack: debug.Stack()})
			err = fmt.Errorf("Serve panicked: %v", r)
		}
		h.served <- err
	}()
	err = srv.Serve(ctx, h.srvEnd)
}

// reportCrash is the reporter the adapters' last-resort recovery calls. It
// may run on any goroutine while the test runs or cleans up.
func (h *harness) reportCrash(r crash.Report) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.over {
		return
	}
	what := r.Method
	if r.Name != "" {
		what += " " + fmt.Sprintf("%q", r.Name)
	}
	msg := fmt.Sprintf("mcptest: the server panicked in %s: %v\n\n%s\n%s", what, r.Value, crashHint, r.Stack)
	if !h.cfg.crashCatcher {
		h.t.Logf("%s", msg)
		return
	}
	h.t.Errorf("%s", msg)
}

// crashHint tells the reader how to make the server recover panics itself,
// which is what production needs: without it the SDK lets the panic kill the
// process.
const crashHint = `The server has no panic recovery of its own, so the test harness recovered it;
in production this panic would crash the server process.
Install the crash guard, which turns a handler panic into an error for the
client and an ERROR log record with the stack:
	go-sdk:  srv.AddReceivingMiddleware(gosdk.Guard(logger))
	mcp-go:  mcpgo.Guard(logger)(srv)   (or pass it to server.NewMCPServer)
Stack of the panicking goroutine:`

// cleanup runs when the test ends: close the client, wait for Serve, check
// for leaked goroutines, and print the transcript if the test failed.
func (h *harness) cleanup() {
	t := h.t
	if h.client != nil {
		if err := h.client.Close(); err != nil && !errors.Is(err, memtransport.ErrClosed) {
			t.Errorf("mcptest: closing the client: %v", err)
		}
	}
	_ = h.srvEnd.Close()
	h.waitServe()
	h.cancelServe()

	if h.cfg.leakCheck {
		if report := waitForLeaks(context.Background(), h.label, h.cfg.leakIgnores, h.cfg.leakWait); report != "" {
			t.Errorf("mcptest: goroutine leak: %s\nA goroutine the server (or a handler) started must end when the connection closes. If it is meant to outlive the connection, ignore it with mcptest.IgnoreLeaks(\"<function>\") or turn the check off with mcptest.WithoutLeakCheck().", report)
		}
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	h.over = true
	if h.cfg.transcript && t.Failed() {
		t.Logf("mcptest: %s", renderTranscript(h.srvEnd.Transcript(), h.cfg.head, h.cfg.tail, h.cfg.lineMax))
	}
}

// waitServe waits for Serve to return: first after the connection closed,
// then after its context is cancelled. A Serve that outlives both fails the
// test rather than hanging it.
func (h *harness) waitServe() {
	t := h.t
	grace := h.cfg.serveGrace
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case err := <-h.served:
		h.serveReturned(err)
		return
	case <-timer.C:
	}
	h.cancelServe()
	timer.Reset(grace)
	select {
	case err := <-h.served:
		t.Errorf("mcptest: Serve did not return within %v after the connection closed; it returned only when its context was cancelled. Serve must return when its connection closes.", grace)
		h.serveReturned(err)
	case <-timer.C:
		t.Errorf("mcptest: Serve did not return within %v after the connection closed, nor after its context was cancelled; its goroutine is left running", 2*grace)
	}
}

func (h *harness) serveReturned(err error) {
	if err == nil || errors.Is(err, memtransport.ErrClosed) || errors.Is(err, context.Canceled) {
		return
	}
	h.t.Errorf("mcptest: the server's Serve returned an error: %v", err)
}
