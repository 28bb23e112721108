package mcptest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/tbplace"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/inmem"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/leak"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/monitor"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// harness is the state of one connection made by Connect.
type harness struct {
	t      testing.TB
	cfg    *config
	name   string // the function, for messages: "mcptest.Connect"
	label  string
	tr     client.Transport // what the client talks to
	client *client.Client
	// start is what the leak check knew of the process when the
	// connection was made.
	start leak.Start

	// transcript returns the connection's messages (nil: none recorded).
	transcript func() memtransport.Transcript
	// handshakeFailed: Connect already failed the test, saying why.
	handshakeFailed bool
	// endErr is why the connection ended before the cleanup closed it
	// (client.Err), nil if it was still open.
	endErr error
	// closeErrOK reports which errors from closing the client are not the
	// server's fault (the transport was already closed).
	closeErrOK func(error) bool
	// afterClose runs, in order, once the client has closed and before the
	// leak check: waiting for Serve, checking how a process exited.
	afterClose []func()
	// failureNotes add to what a failing test prints after the transcript.
	failureNotes []func() string
	// missing says which requests for input the client has no callback for.
	missing func(method string) bool

	// monitor judges the connection's messages (nil: off).
	monitor *monitor.Monitor

	// mem is the server of a Server served in memory (Connect only).
	mem *inmem.Served
	// stuck: a Serve did not return in time (guarded by mu for CheckServer,
	// whose connections close on other goroutines).
	stuck bool

	// deadline is the test's (go test -timeout), less the time the report
	// takes to print; zero when there is none.
	deadline time.Time
	watchdog *time.Timer // stops the connection before the deadline
	timer    *time.Timer // bounds the cleanup's waits (waitTimer)

	// place is where reports testing cannot place go (see report).
	place placement
	// ending: the harness ends on the test's goroutine (Connect's cleanup,
	// the end of CheckServer and Fuzz), where testing places its reports
	// itself, outside a bubble.
	ending atomic.Bool

	mu   sync.Mutex
	over bool // the cleanup has finished: t must not be used any more
	// stacks counts the crashes reported with each stack (its
	// stacktrace.Frames), so that each stack is printed once.
	stacks map[string]int
}

// newHarness starts the harness of a connection to a server of kind (see
// kindOf).
func newHarness(t testing.TB, cfg *config, name, kind string) *harness {
	t.Helper()
	if msg := cfg.unusable(kind); msg != "" {
		// goleak's rule: an option that cannot apply is a mistake to
		// report, not one to ignore.
		t.Fatalf("%s: %s", name, msg)
	}
	d, ok, bubble := testDeadline(t, cfg)
	h := &harness{t: t, cfg: cfg, name: name, label: leak.NewLabel(), place: newPlacement(t, bubble)}
	if ok {
		h.deadline = d.Add(-reportTime)
	}
	if bubble && cfg.knobs.census == nil {
		// The process-wide census compares times taken on different
		// clocks (a bubble's is fake) and may start its self-check, whose
		// cleanups run outside the bubble and would touch its channels. A
		// connection in a bubble is checked on its own instead, by reading
		// the profile until its goroutines are gone or its wait is over.
		// That wait is on the bubble's clock, which moves only once every
		// goroutine in the bubble is durably blocked: a goroutine still
		// there then is stuck, not slow, and waiting costs no real time.
		cfg.knobs.census, cfg.knobs.leakNow = leak.NewBubble(), true
	}
	return h
}

// reportTime is kept free before the test's deadline for the cleanup to
// print its report: the testing package prints nothing of a test that is
// still running when go test -timeout ends the binary.
const reportTime = time.Second

// testDeadline is when go test -timeout will end the test binary. In a
// synctest bubble there is none that means anything (the bubble's clock is
// fake): it reports bubble instead, and no deadline.
func testDeadline(t testing.TB, cfg *config) (deadline time.Time, ok, bubble bool) {
	deadline, ok, bubble = tbplace.Deadline(t)
	if !cfg.knobs.deadline.IsZero() && !bubble {
		return cfg.knobs.deadline, true, false
	}
	return deadline, ok, bubble
}

// inBubble reports whether t (a testing.TB, or an assertion's TestingT)
// runs in a testing/synctest bubble.
func inBubble(t any) bool { return tbplace.InBubble(t) }

// bound shortens d, a wait of the cleanup, so that it ends by the deadline.
func (h *harness) bound(d time.Duration) time.Duration {
	if h.deadline.IsZero() {
		return d
	}
	return max(0, min(d, time.Until(h.deadline)))
}

// waitLimit bounds every wait of the cleanup: the connection's timeout, so
// that a hung handler costs its test about that, and never past the
// deadline.
func (h *harness) waitLimit() time.Duration {
	d := h.cfg.timeout
	if d <= 0 {
		d = noTimeoutWait
	}
	return h.bound(d)
}

// startWatchdog arranges for a test still running shortly before go test
// -timeout ends the binary to fail with its report instead: it closes the
// connection, which ends the calls the test is waiting for, and leaves the
// cleanup the time between.
func (h *harness) startWatchdog() {
	if h.deadline.IsZero() {
		return
	}
	left := time.Until(h.deadline)
	// Leave the cleanup a few seconds, or a fifth of a short -timeout.
	stopIn := left - min(3*time.Second, left/5)
	h.watchdog = time.AfterFunc(max(0, stopIn), func() {
		h.mu.Lock()
		over := h.over
		h.mu.Unlock()
		if over {
			return
		}
		h.logf(true, "mcptest: go test -timeout ends the test binary in %v and this test has not finished: "+
			"the harness closes the connection now, so that the test ends and prints its report instead of being killed without one.",
			time.Until(h.deadline.Add(reportTime)).Round(time.Millisecond))
		if h.client != nil {
			_ = h.client.Close()
		} else if h.tr != nil {
			_ = h.tr.Close()
		}
	})
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
	if !h.cfg.crashCatcher {
		h.report(false, "%s", crashNote("the server panicked in "+what, r.Value))
		return
	}
	h.failCrash(fmt.Sprintf("mcptest: the server panicked in %s: %v", what, r.Value), "\n"+crashHint, r.Stack)
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
(packages github.com/mcptestkit/mcptestkit/gosdk and .../mcpgo)
Stack of the panicking goroutine:`
