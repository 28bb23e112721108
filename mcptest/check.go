package mcptest

import (
	"cmp"
	"context"
	"errors"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/toolschema"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/inmem"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/leak"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/sdk"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/mcptest/surface"
)

// SkipChecks leaves out the checks whose names match any of the patterns,
// each in the syntax of go test's -skip (elements split at "/", each an
// unanchored regular expression): SkipChecks("resources/read/Babel"). A
// check left out is reported as skipped. It applies to CheckServer.
func SkipChecks(patterns ...string) Option {
	return option("SkipChecks", checkCall, func(c *config) { c.skip = append(c.skip, patterns...) })
}

// StrictChecks makes the checks' warnings fail the test: a server that
// breaks a SHOULD of the specification (a tool name with spaces, an error
// code it recommends another one for) fails instead of passing with a
// logged warning. It applies to CheckServer.
func StrictChecks() Option {
	return option("StrictChecks", checkCall, func(c *config) { c.strict = true })
}

// CheckLogs gives the checks the server's log records: then every crash
// must have exactly one ERROR record with a stack (the crash guard writes
// it). Give the server logs.Logger(). It applies to CheckServer and Fuzz.
func CheckLogs(logs *logcapture.Recorder) Option {
	return option("CheckLogs", checkCall|fuzzCall, func(c *config) { c.logs = logs })
}

// logRecords returns what the checks read of logs.
func logRecords(logs *logcapture.Recorder) func() []servercheck.LogRecord {
	if logs == nil {
		return nil
	}
	return func() []servercheck.LogRecord {
		recs := logs.Records()
		out := make([]servercheck.LogRecord, len(recs))
		for i, r := range recs {
			out[i] = servercheck.LogRecord{Level: r.Level, Message: r.Message, Stack: r.Stack()}
		}
		return out
	}
}

// CheckServer runs the battery of package [servercheck] against srv: every
// check is a subtest (so -run and -skip select them, and [SkipChecks] does
// too), and a failing check says what was sent, what came back, what the
// protocol or the error contract expects, and the messages around it. It
// is the first test to add for a server:
//
//	func TestServer(t *testing.T) {
//		logs := logcapture.New(t)
//		mcptest.CheckServer(t, gosdktest.Server(myserver.New(logs.Logger())), mcptest.CheckLogs(logs))
//	}
//
// srv is any [Server]. The checks open many connections: one served in
// memory is served on a fresh in-memory connection for each; a [Command]
// server starts a process for each, a [Handler] or [URL] server opens an
// HTTP session for each, and a [Transport] server calls its dial function
// for each.
//
// The checks need no fixture: they read what the server declares and lists,
// and call every tool, many times, with arguments generated from its input
// schema (so give them a server whose tools touch nothing real). The package
// documentation of [servercheck] lists them; a check that does not apply to
// a server (a capability it does not declare) is skipped.
//
// Given a t that is not a *testing.T, the checks run in t itself, each
// failure prefixed with the check's name.
func CheckServer(t testing.TB, srv Server, opts ...Option) {
	t.Helper()
	h, dial, o := checkHarness(t, checkCall, srv, opts)
	if h == nil {
		return
	}
	defer h.endChecks()
	runChecks(t, h.name, dial, o, sdkOf(srv), callSite(1))
}

// sdkOf returns the SDK release srv says serves it (see [Server]), or "".
func sdkOf(srv Server) string {
	if s, ok := srv.(interface{ SDK() string }); ok {
		return s.SDK()
	}
	return ""
}

// checkHarness returns the harness of the connections that fn (CheckServer
// or Fuzz) opens to srv, the Dialer that opens them, and the options of
// the checks; or fails the test and returns nil. The connections are made
// as Connect makes its one: the same timeout and client options, a Server
// served in memory served and stopped the same way, and every goroutine
// they start carrying the harness's leak label, for the leak check
// [harness.endChecks] makes once they have all closed.
func checkHarness(t testing.TB, fn call, srv Server, opts []Option) (*harness, servercheck.Dialer, *servercheck.Options) {
	t.Helper()
	cfg := configure(t, fn, srv, opts)
	if cfg == nil {
		return nil, nil, nil
	}
	h := newHarness(t, cfg, "mcptest."+fn.String(), kindOf(srv))
	var dial servercheck.Dialer
	if x, ok := srv.(external); ok {
		dial = x.dial(h)
	} else {
		dial = h.dialMemory(srv)
	}
	h.start = cfg.leakCensus().Connecting()
	source := surface.Check
	if fn == fuzzCall {
		source = surface.Fuzz
	}
	labelled := func(ctx context.Context) (tr client.Transport, err error) {
		pprof.Do(ctx, pprof.Labels(leak.Key, h.label), func(ctx context.Context) { tr, err = dial(ctx) })
		return surface.Observe(tr, source), err
	}
	o := &servercheck.Options{
		Version: cmp.Or(cfg.version, legacyStart(srv)),
		Client:  cfg.client,
		Timeout: cfg.timeout, // the checks need a bound: zero is servercheck's default
		Skip:    cfg.skip,
		Strict:  cfg.strict,
		Logs:    logRecords(cfg.logs),
	}
	if cfg.knobs.checks != nil {
		cfg.knobs.checks(o)
	}
	return h, labelled, o
}

// endChecks runs once every connection of the checks (or the fuzzer) has
// closed: it checks for leaked goroutines, then stops h from touching t.
func (h *harness) endChecks() {
	h.t.Helper()
	h.ending.Store(true)
	for _, fn := range h.afterClose {
		fn()
	}
	h.checkLeaks()
	h.mu.Lock()
	h.over = true
	h.mu.Unlock()
}

// dialMemory returns the Dialer of the checks' connections to srv, a Server
// served in memory: each is served on a fresh [memtransport.Pair], as
// Connect serves its one, and closing it stops Serve as Connect's cleanup
// does, failing the test if Serve does not return in time.
func (h *harness) dialMemory(srv Server) servercheck.Dialer {
	return inmem.Dialer(srv, func(s *inmem.Served) error {
		h.stopServed(s, "a connection of the checks")
		return nil
	})
}

// runChecks runs the checks on a goroutine of their own, which hands each
// check (or, for a t that is not a *testing.T, each result) back to this
// goroutine: so t.Run and the failures are called from here, every frame
// between them and the test's CheckServer line is a helper, and go test
// reports a failure at that line rather than in this package or servercheck.
// release, the SDK release serving the server ("" if not known), reaches
// the checks in their context rather than in servercheck.Options: the
// programs that use servercheck have none to give.
func runChecks(t testing.TB, name string, dial servercheck.Dialer, o *servercheck.Options, release, at string) {
	t.Helper()
	type step struct {
		name   string
		run    func() servercheck.Result // a check to run as a subtest
		result servercheck.Result        // else a result to report on t
		done   chan struct{}
	}
	steps := make(chan step)
	hand := func(st step) {
		st.done = make(chan struct{})
		steps <- st
		<-st.done
	}
	ctx := t.Context()
	tt, isT := t.(*testing.T)
	if inBubble(t) {
		isT = false // t.Run panics in a synctest bubble: report on t itself
		ctx = toolschema.Untimed(ctx)
	}
	if isT {
		o.Runner = func(name string, run func() servercheck.Result) { hand(step{name: name, run: run}) }
	} else {
		o.OnResult = func(r servercheck.Result) { hand(step{result: r}) }
	}
	var err error
	go func() {
		defer close(steps)
		err = servercheck.Run(sdk.With(ctx, release), dial, o)
	}()
	for st := range steps {
		if st.run != nil {
			tt.Run(st.name, func(t *testing.T) {
				t.Helper()
				reportCheck(t, st.run(), "", o.Strict, at)
			})
		} else {
			reportCheck(t, st.result, st.result.Name+": ", o.Strict, at)
		}
		close(st.done)
	}
	if errors.Is(err, servercheck.ErrConnect) {
		t.Fatalf("%s: %v", name, err)
	}
}

// reportCheck reports one check's result on t.
func reportCheck(t testing.TB, r servercheck.Result, prefix string, strict bool, at string) {
	t.Helper()
	switch r.Status {
	case servercheck.Fail:
		msg := prefix + r.Detail
		if len(r.Transcript) > 0 {
			msg += "\nmessages (→ client to server, ← server to client):\n\t" + strings.Join(r.Transcript, "\n\t")
		}
		t.Errorf("%s\n%s", msg, findingLine(r, at))
	case servercheck.Warn:
		// A SHOULD broken: the test goes on passing, and says so (a
		// failure with StrictChecks, where Run counted it as one).
		msg := prefix + "warning: " + r.Detail
		if len(r.Transcript) > 0 {
			msg += "\nmessages (→ client to server, ← server to client):\n\t" + strings.Join(r.Transcript, "\n\t")
		}
		if strict {
			t.Errorf("%s\n%s", msg, findingLine(r, at))
		} else {
			t.Log(msg)
		}
	case servercheck.Skip:
		if prefix == "" {
			if r.Detail == servercheck.SkippedDetail {
				r.Detail = "left out by mcptest.SkipChecks"
			}
			t.Skip(r.Detail)
		}
	default:
		if r.Detail != "" && prefix == "" {
			t.Log(r.Detail)
		}
	}
}
