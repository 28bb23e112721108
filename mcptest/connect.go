package mcptest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/tbplace"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/inmem"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/monitor"
	"github.com/mcptestkit/mcptestkit/mcptest/surface"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Server is an MCP server the harness can connect to. [Connect],
// [CheckServer] and [Fuzz] take any Server:
//   - one served in memory: an SDK's server is not one, its adapter is:
//     gosdktest.Server(srv) for go-sdk, mcpgotest.Server(srv) for mcp-go;
//     [ServerFunc] adapts any other Go server;
//   - a program speaking stdio, in any language: [Command];
//   - a streamable HTTP handler in the process: [Handler];
//   - a streamable HTTP endpoint: [URL];
//   - any other transport: [Transport].
//
// The harness serves a Server in memory by calling Serve with one end of a
// fresh [memtransport.Pair] for each connection: Serve serves that end
// until the connection closes (or ctx ends), then returns. It must not
// return before it has stopped using conn and every goroutine it started
// for the connection has finished (or is about to), because the harness
// checks for leaked goroutines once it returns. The servers of Command,
// Handler, URL and Transport are reached through their transport instead,
// and their Serve serves nothing.
//
// A Server may also say which protocol versions it speaks, with a method
// the harness looks for (as io.Copy looks for WriterTo):
//
//	ProtocolVersions() []string
//
// When the list has no version from 2026-07-28 on, and the test pins none
// ([WithProtocolVersion], [EachVersion]), the client starts with
// initialize at the newest version both speak instead of probing with
// server/discover first, which a legacy SDK may log as an error. A nil
// list, or one the client shares no legacy version with, changes nothing.
// And it may name the SDK release that serves it:
//
//	SDK() string // "go-sdk v1.4.0"; the SDK's name alone when its release is not known
//
// [CheckServer] then names that release where it fails a check by design of
// the SDK (go-sdk before v1.7.0 answers an unknown method with code 0), and
// says how to leave the check out.
type Server interface {
	Serve(ctx context.Context, conn *memtransport.Conn) error
}

// ServerFunc is a function that is a [Server].
type ServerFunc func(ctx context.Context, conn *memtransport.Conn) error

// Serve calls f(ctx, conn).
func (f ServerFunc) Serve(ctx context.Context, conn *memtransport.Conn) error { return f(ctx, conn) }

// noTimeoutWait bounds each wait of the cleanup of a connection that has no
// timeout (client.Options.Timeout negative).
const noTimeoutWait = 5 * time.Second

// cancelWait is how long the cleanup waits for a Serve that did not return
// when its connection closed to return once its context is cancelled. It
// only decides what the report says: that Serve failed is known already.
const cancelWait = 500 * time.Millisecond

// Connect connects a real [client.Client] to srv and returns it after the
// handshake. srv is any [Server]: an SDK's adapter, not the SDK's server,
// or what [Command], [Handler], [URL] or [Transport] return:
//
//	c := mcptest.Connect(t, gosdktest.Server(srv)) // srv is a go-sdk *mcp.Server
//	c := mcptest.Connect(t, mcpgotest.Server(srv)) // srv is an mcp-go *server.MCPServer
//	c := mcptest.Connect(t, mcptest.Command(exec.Command("python", "server.py")))
//
// Connect serves a Server served in memory on one end of a fresh
// [memtransport.Pair]; it reaches the others through their transport, and
// records the transcript between the client and that transport. When the
// test ends (t.Cleanup) the client closes, the server must be done (Serve
// returns, the process exits), and the test fails if a goroutine the
// connection started is still running; while it runs, the harness checks
// what the package documentation lists under "What the harness checks for
// you". Connections share nothing, so Connect is safe for parallel tests.
//
// If srv is nil, was made from bad arguments (a nil command, a bad URL), or
// the handshake fails, Connect stops the test with t.Fatalf.
func Connect(t testing.TB, srv Server, opts ...Option) *client.Client {
	t.Helper()
	cfg := configure(t, connectCall, srv, opts)
	if cfg == nil {
		return nil
	}
	if x, ok := srv.(external); ok {
		return x.connect(newHarness(t, cfg, "mcptest.Connect", kindOf(srv)))
	}
	if cfg.version == "" && eachVersionOf(t) == "" {
		cfg.version = legacyStart(srv) // no probe for a server that says it is legacy
	}
	h := newHarness(t, cfg, "mcptest.Connect", inMemory)
	keep := cfg.keepFrames()
	// The user's transport options come last, so they can change this.
	pairOpts := append([]memtransport.Option{memtransport.WithTranscriptLimit(keep)}, cfg.pairOptions...)
	cliEnd, srvEnd := memtransport.Pair(pairOpts...)

	h.transcript = srvEnd.Transcript
	h.afterClose = append(h.afterClose, h.waitServe)
	serveCtx := crash.WithReporter(context.Background(), h.reportCrash)
	return h.connect(serveCtx, false, func(ctx context.Context) (client.Transport, error) {
		h.mem = inmem.Serve(ctx, srv, srvEnd, h.reportCrash)
		return cliEnd, nil
	})
}

// configure returns the configuration of fn (Connect, CheckServer or Fuzz)
// given srv and opts, or fails the test and returns nil: when srv is nil or
// was made from bad arguments (a nil command, a bad URL), when an option
// does not apply to fn, or when two options pin different versions.
func configure(t testing.TB, fn call, srv Server, opts []Option) *config {
	t.Helper()
	name := "mcptest." + fn.String()
	if srv == nil {
		t.Fatalf("%s: the server is nil", name)
		return nil
	}
	cfg := newConfig(opts)
	msg := cfg.misused(fn) // goleak's rule: an option that cannot apply is a mistake to report
	if msg == "" {
		msg = cfg.versionConflict
	}
	if x, ok := srv.(external); ok && msg == "" {
		if err := x.check(); err != nil {
			msg = err.Error()
		}
	}
	if msg != "" {
		t.Fatalf("%s: %s", name, msg)
		return nil
	}
	return cfg
}

// legacyStart returns the version at which to start a connection to srv
// with initialize, without the server/discover probe: the newest legacy
// version the client and srv speak, when srv lists its versions (see
// [Server]) and none is 2026-07-28 or later. "" means probe as usual.
func legacyStart(srv Server) string {
	s, ok := srv.(interface{ ProtocolVersions() []string })
	if !ok {
		return ""
	}
	best := ""
	for _, v := range s.ProtocolVersions() {
		if !client.IsLegacy(v) {
			return ""
		}
		if v > best && slices.Contains(client.SupportedVersions(), v) {
			best = v
		}
	}
	return best
}

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
	start leakStart

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
	h := &harness{t: t, cfg: cfg, name: name, label: newLeakLabel(), place: newPlacement(t, bubble)}
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
		cfg.knobs.census, cfg.knobs.leakNow = newBubbleCensus(), true
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

// keepFrames is how many messages the connection's transcript keeps.
func (c *config) keepFrames() int { return transcriptFrames }

// connect is what the connections to every kind of server share: it runs
// open and the handshake inside the connection's label, registers the
// cleanup, and fails the test if the handshake fails. With record set, the
// transport open returns is wrapped in a recorder for the transcript.
func (h *harness) connect(base context.Context, record bool, open func(ctx context.Context) (client.Transport, error)) *client.Client {
	t, cfg := h.t, h.cfg
	t.Helper()
	copts := cfg.client
	// In an EachVersion subtest the connection speaks the subtest's version
	// unless the test pinned another.
	subtestVersion := eachVersionOf(t)
	copts.ProtocolVersion = cmp.Or(cfg.version, subtestVersion)
	inEach := subtestVersion != "" && copts.ProtocolVersion == subtestVersion
	h.missing = missingCallbacks(&copts)
	h.catchClientPanics(&copts)
	for _, n := range cfg.notifications {
		next := copts.OnNotification
		copts.OnNotification = func(method string, params json.RawMessage) {
			n.record(method, params)
			if next != nil {
				next(method, params)
			}
		}
	}
	connectCtx, cancel := t.Context(), context.CancelFunc(func() {})
	if cfg.timeout > 0 {
		connectCtx, cancel = context.WithTimeout(connectCtx, cfg.timeout)
	}
	defer cancel()

	var err error
	h.start = cfg.leakCensus().connecting()
	// Everything started inside pprof.Do carries the connection's label: the
	// server's goroutines, the transport's and the client's reader. That is
	// how the leak check tells them from other tests' goroutines.
	pprof.Do(base, pprof.Labels(leakLabel, h.label), func(ctx context.Context) {
		var tr client.Transport
		if tr, err = open(ctx); err != nil {
			return
		}
		if record {
			label := ""
			if cfg.leakCheck {
				label = h.label
			}
			rec := newRecorder(tr, cfg.keepFrames(), label)
			h.transcript, tr = rec.transcript, rec
		}
		tr = surface.Observe(tr, surface.Tests)
		if cfg.monitor != MonitorOff {
			h.monitor = monitor.New()
			tr = monitor.Wrap(tr, h.monitor)
		}
		h.tr = tr
		h.client, err = client.Connect(connectCtx, tr, &copts)
	})
	if h.tr == nil { // nothing was started
		cfg.leakCensus().closed()
		t.Fatalf("%s: %v", h.name, err)
		return nil
	}
	for _, tr := range cfg.transcriptTo {
		tr.attach(h.transcript)
	}
	// The testing package keeps a finished test's cleanups until its parent
	// test ends: in a suite of parallel subtests, every test's at once. So
	// the cleanup lets go of the harness once it has run, and with it the
	// client, the transports and the transcript.
	hp := h
	t.Cleanup(func() {
		t.Helper() // what the cleanup prints is labelled with the test's line that called Connect
		h := hp
		hp = nil
		h.cleanup()
	})
	h.startWatchdog()
	if err != nil {
		h.handshakeFailed = true
		if errors.Is(err, context.DeadlineExceeded) && cfg.timeout > 0 {
			t.Fatalf("%s: the server did not complete the handshake within %v: %v", h.name, cfg.timeout, err)
		}
		t.Fatalf("%s: %v%s", h.name, err, versionHint(copts.ProtocolVersion, inEach, err))
		return nil
	}
	if got := h.client.ProtocolVersion(); inEach && got != subtestVersion {
		t.Fatalf("%s: %s", h.name, versionMismatch(subtestVersion, got))
		return nil
	}
	for _, n := range cfg.notifications {
		n.attach(h.client.Done(), cfg.timeout)
	}
	for _, note := range capabilityNotes(&copts, h.client.ProtocolVersion(), h.client.Capabilities()) {
		t.Logf("%s", note)
	}
	return h.client
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

// checkLeaks hands the closed connection to the census (see leak.go) and
// fails the test with what it found: this connection's leak, now or never
// (a census made later reports it), and the leaks of connections of tests
// that have already ended. With the check off, the census only learns that
// the connection has closed.
func (h *harness) checkLeaks() {
	h.t.Helper()
	c := h.cfg.leakCensus()
	if !h.cfg.leakCheck {
		c.closed()
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
	own, others := c.check(context.Background(), label, leakCheck{
		test:   h.t.Name(),
		ignore: h.cfg.leakIgnores,
		wait:   wait,
		start:  h.start,
	}, now)
	if own.report != "" {
		h.report(true, "mcptest: goroutine leak: %s\n%s", own.report, leakHint(own.starts))
	}
	for _, o := range others {
		h.report(true, "mcptest: goroutine leak in a connection of %s, a test that has ended: %s\n"+
			"It was found by this test's cleanup, %v after that connection closed: with many goroutines in the process "+
			"(tests waiting in t.Parallel count), the leak check runs for many connections at once, to keep its cost in "+
			"proportion to the number of tests. Run %s on its own to see it fail by itself.\n%s",
			o.test, o.report, o.closed.Round(time.Millisecond), o.test, leakHint(o.starts))
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
