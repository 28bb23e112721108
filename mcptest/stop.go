package mcptest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcptestkit/mcptestkit/mcptest/internal/inmem"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/leak"
)

// noTimeoutWait bounds each wait of the cleanup of a connection that has no
// timeout (client.Options.Timeout negative).
const noTimeoutWait = 5 * time.Second

// cancelWait is how long the cleanup waits for a Serve that did not return
// when its connection closed to return once its context is cancelled. It
// only decides what the report says: that Serve failed is known already.
const cancelWait = 500 * time.Millisecond

// cleanup runs when the test ends: close the client, wait for the server
// (Serve, or the process), check for leaked goroutines, and print the
// transcript if the test failed.
//
// Every wait is bounded by [harness.waitLimit]. Once a wait has run out
// (Serve has not returned: a handler is stuck), the leak check does not
// wait again: it lists at once the goroutines still running, the stuck
// handler among them.
func (h *harness) cleanup() {
	t := h.t
	t.Helper() // what it prints is labelled with the test's line that called Connect
	h.ending.Store(true)
	if h.watchdog != nil {
		h.watchdog.Stop()
	}
	defer func() {
		if h.timer != nil {
			h.timer.Stop()
		}
	}()
	if h.client != nil {
		h.endErr = h.client.Err()
		h.closeClient()
	} else {
		_ = h.tr.Close() // client.Connect closed it already; Close is idempotent
	}
	for _, fn := range h.afterClose {
		fn()
	}
	h.reportMonitor()

	h.checkLeaks()

	h.mu.Lock()
	defer h.mu.Unlock()
	h.over = true
	if !t.Failed() {
		return
	}
	if h.transcript != nil {
		f := transcriptFormat{head: h.cfg.head, tail: h.cfg.tail, lineMax: h.cfg.lineMax, compact: !h.cfg.verbatim, missing: h.missing}
		h.report(false, "mcptest: %s", f.render(h.transcript()))
	}
	for _, note := range h.failureNotes {
		if s := note(); s != "" {
			h.report(false, "mcptest: %s", s)
		}
	}
}

// checkLeaks hands the closed connection to the census (package leak) and
// fails the test with what it found: this connection's leak, now or never
// (a census made later reports it), and the leaks of connections of tests
// that have already ended. With the check off, the census only learns that
// the connection has closed.
func (h *harness) checkLeaks() {
	h.t.Helper()
	c := h.cfg.leakCensus()
	if !h.cfg.leakCheck {
		c.Closed()
		return
	}
	wait, now := min(h.cfg.leakWait, h.waitLimit()), h.cfg.knobs.leakNow
	h.mu.Lock()
	stuck := h.stuck
	h.mu.Unlock()
	if stuck {
		// Serve's wait ran out: what is still running is stuck, not slow.
		wait, now = 0, true
	}
	// Once the census has it, only the goroutines carrying the label may
	// keep its value reachable: the census's cleanup watches for that.
	label := h.label
	h.label = ""
	own, others := c.Check(context.Background(), label, leak.Check{
		Test:   h.t.Name(),
		Ignore: h.cfg.leakIgnores,
		Wait:   wait,
		Start:  h.start,
	}, now)
	if own.Text != "" {
		h.report(true, "mcptest: goroutine leak: %s\n%s", own.Text, leak.Hint(own.Starts))
	}
	for _, o := range others {
		h.report(true, "mcptest: goroutine leak in a connection of %s, a test that has ended: %s\n"+
			"It was found by this test's cleanup, %v after that connection closed: with many goroutines in the process "+
			"(tests waiting in t.Parallel count), the leak check runs for many connections at once, to keep its cost in "+
			"proportion to the number of tests. Run %s on its own to see it fail by itself.\n%s",
			o.Test, o.Text, o.After.Round(time.Millisecond), o.Test, leak.Hint(o.Starts))
	}
}

// waitServe stops the Server served in memory: it closes the server's end
// and waits for Serve to return, then, briefly, for it to return once its
// context is cancelled. A Serve that outlives both fails the test rather
// than hanging it.
func (h *harness) waitServe() {
	h.t.Helper()
	h.stopServed(h.mem, "")
	h.mem = nil // its context carries the leak label, which must become unreachable
}

// stopServed stops s, a Server served in memory for h, and fails the test
// unless Serve returned when its connection closed; which names the
// connection in the messages ("" for Connect's).
func (h *harness) stopServed(s *inmem.Served, which string) {
	h.t.Helper()
	grace := h.cfg.knobs.serveGrace
	if grace == 0 {
		grace = h.waitLimit().Round(time.Millisecond)
	}
	var second time.Duration
	end, err := s.Stop(grace, func() time.Duration {
		second = h.bound(min(grace, cancelWait)).Round(time.Millisecond)
		return second
	})
	conn := "the connection"
	if which != "" {
		conn = which
	}
	switch end {
	case inmem.Cancelled:
		h.logf(true, "mcptest: Serve did not return within %v after %s closed; it returned only when its context was cancelled. Serve must return when its connection closes.", grace, conn)
	case inmem.Stuck:
		h.mu.Lock()
		h.stuck = true
		h.mu.Unlock()
		after := fmt.Sprintf("nor %v after its context was cancelled", second)
		if second == 0 {
			after = "and go test -timeout left no time to wait after cancelling its context"
		}
		h.logf(true, "mcptest: Serve did not return within %v after %s closed, %s: a handler is still running "+
			"(the goroutine leak report lists where it is stuck). Its goroutine is left running.", grace, conn, after)
		return
	}
	h.serveReturned(err)
}

// closeClient closes the client, waiting no longer than the cleanup's
// waits: Close waits for the client's callbacks, and one of the test's own
// may be stuck.
func (h *harness) closeClient() {
	h.t.Helper()
	done := make(chan error, 1)
	go func() { done <- h.client.Close() }()
	limit := h.waitLimit()
	timer := h.waitTimer(limit)
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, io.ErrClosedPipe) && (h.closeErrOK == nil || !h.closeErrOK(err)) {
			h.report(true, "mcptest: closing the connection: %v", err)
		}
	case <-timer.C:
		h.report(true, "mcptest: closing the client did not finish within %v: one of its callbacks (sampling, elicitation, roots, a notification handler) is still running", limit)
	}
}

// waitTimer returns the cleanup's one timer, set to fire in d: its waits
// come one after another, so they share it. The cleanup stops it.
func (h *harness) waitTimer(d time.Duration) *time.Timer {
	if h.timer == nil {
		h.timer = time.NewTimer(d)
	} else {
		h.timer.Reset(d) // a stopped or fired timer: Reset drains it (Go 1.23)
	}
	return h.timer
}

func (h *harness) serveReturned(err error) {
	h.t.Helper()
	if err == nil || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, context.Canceled) {
		return
	}
	h.logf(true, "mcptest: the server's Serve returned an error: %v", err)
}
