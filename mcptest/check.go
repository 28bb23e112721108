package mcptest

import (
	"cmp"
	"errors"
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// CheckOption configures [CheckServer] and [Fuzz]: it
// edits the [servercheck.Options] they run with, so any field of those can be set
// with a func literal.
type CheckOption func(*servercheck.Options)

// SkipChecks leaves out the checks whose names match any of the patterns,
// each in the syntax of go test's -skip (elements split at "/", each an
// unanchored regular expression): SkipChecks("resources/read/Babel"). A
// check left out is reported as skipped.
func SkipChecks(patterns ...string) CheckOption {
	return func(o *servercheck.Options) { o.Skip = append(o.Skip, patterns...) }
}

// StrictChecks makes the checks' warnings fail the test: a server that
// breaks a SHOULD of the specification (a tool name with spaces, an error
// code it recommends another one for) fails instead of passing with a
// logged warning.
func StrictChecks() CheckOption {
	return func(o *servercheck.Options) { o.Strict = true }
}

// CheckLogs gives the checks the server's log records: then every crash
// must have exactly one ERROR record with a stack (the crash guard writes
// it). Give the server logs.Logger().
func CheckLogs(logs *logcapture.Recorder) CheckOption {
	return func(o *servercheck.Options) {
		o.Logs = func() []servercheck.LogRecord {
			recs := logs.Records()
			out := make([]servercheck.LogRecord, len(recs))
			for i, r := range recs {
				out[i] = servercheck.LogRecord{Level: r.Level, Message: r.Message, Stack: r.Stack()}
			}
			return out
		}
	}
}

// CheckWith applies Connect options to the connections the checks open:
// the protocol version ([WithProtocolVersion]) and the client's options
// ([WithClient]: the request timeout, the client's identity and the
// callbacks a server's tools need). Options about the harness's own
// connection (transcript, leak check) do not apply.
func CheckWith(opts ...Option) CheckOption {
	return func(o *servercheck.Options) {
		cfg := newConfig(opts)
		cl := cfg.client
		o.Client = cl
		o.Version = cl.ProtocolVersion
		o.Timeout = cfg.timeout
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
func CheckServer(t testing.TB, srv Server, opts ...CheckOption) {
	t.Helper()
	dial := dialerOf(t, "mcptest.CheckServer", srv)
	if dial == nil {
		return
	}
	runChecks(t, "mcptest.CheckServer", dial, startLegacy(srv, opts))
}

// runChecks runs the checks on a goroutine of their own, which hands each
// check (or, for a t that is not a *testing.T, each result) back to this
// goroutine: so t.Run and the failures are called from here, every frame
// between them and the test's CheckServer line is a helper, and go test
// reports a failure at that line rather than in this package or servercheck.
func runChecks(t testing.TB, name string, dial servercheck.Dialer, opts []CheckOption) {
	t.Helper()
	o := checkOptions(opts)
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
	tt, isT := t.(*testing.T)
	if isT && inBubble(t) {
		isT = false // t.Run panics in a synctest bubble: report on t itself
	}
	if isT {
		o.Runner = func(name string, run func() servercheck.Result) { hand(step{name: name, run: run}) }
	} else {
		o.OnResult = func(r servercheck.Result) { hand(step{result: r}) }
	}
	var err error
	go func() {
		defer close(steps)
		err = servercheck.Run(t.Context(), dial, o)
	}()
	for st := range steps {
		if st.run != nil {
			tt.Run(st.name, func(t *testing.T) {
				t.Helper()
				reportCheck(t, st.run(), "", o.Strict)
			})
		} else {
			reportCheck(t, st.result, st.result.Name+": ", o.Strict)
		}
		close(st.done)
	}
	if errors.Is(err, servercheck.ErrConnect) {
		t.Fatalf("%s: %v", name, err)
	}
}

// startLegacy has the connections of the checks start with initialize,
// without the server/discover probe, when srv says it speaks no version from
// 2026-07-28 on (see [Server]) and no CheckWith pins a version: the option
// it adds comes last for that.
func startLegacy(srv Server, opts []CheckOption) []CheckOption {
	v := legacyStart(srv)
	if v == "" {
		return opts
	}
	return append(opts[:len(opts):len(opts)], func(o *servercheck.Options) { o.Version = cmp.Or(o.Version, v) })
}

func checkOptions(opts []CheckOption) *servercheck.Options {
	o := &servercheck.Options{Timeout: DefaultTimeout}
	for _, fn := range opts {
		fn(o)
	}
	return o
}

// reportCheck reports one check's result on t.
func reportCheck(t testing.TB, r servercheck.Result, prefix string, strict bool) {
	t.Helper()
	switch r.Status {
	case servercheck.Fail:
		msg := prefix + r.Detail
		if len(r.Transcript) > 0 {
			msg += "\nmessages (→ client to server, ← server to client):\n\t" + strings.Join(r.Transcript, "\n\t")
		}
		t.Errorf("%s", msg)
	case servercheck.Warn:
		// A SHOULD broken: the test goes on passing, and says so (a
		// failure with StrictChecks, where Run counted it as one).
		msg := prefix + "warning: " + r.Detail
		if len(r.Transcript) > 0 {
			msg += "\nmessages (→ client to server, ← server to client):\n\t" + strings.Join(r.Transcript, "\n\t")
		}
		if strict {
			t.Errorf("%s", msg)
		} else {
			t.Log(msg)
		}
	case servercheck.Skip:
		if prefix == "" {
			if r.Detail == "left out by Options.Skip" {
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
