package mcptest

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/tbplace"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// Fuzz fuzzes srv's tools for go test -fuzz: the fuzzer's bytes become
// tool arguments that conform to each tool's input schema, arguments that
// nearly conform (one property left out, of the wrong type, undeclared, or
// made of the input's bytes), and raw JSON-RPC requests. Each input must
// keep the invariants of [CheckServer]'s tool checks: an answer in time,
// the connection intact, no crash, no crash text reaching the client,
// structured output valid against the output schema. A failing input is
// minimised and saved under testdata/fuzz, as go test does.
//
//	func FuzzServer(f *testing.F) {
//		mcptest.Fuzz(f, gosdktest.Server(myserver.New(slog.New(slog.DiscardHandler))))
//	}
//
// Run it with go test -fuzz=FuzzServer; without -fuzz it runs the seed
// inputs (one per tool and phase) like any test. See
// [servercheck.Fuzzer] for how an input's bytes are read. srv is any
// [Server], reached as [CheckServer] reaches it; each fuzzing process
// keeps one connection, opening another when an input broke it (that
// input fails; the next runs on the new connection).
func Fuzz(f *testing.F, srv Server, opts ...Option) {
	f.Helper()
	h, dial, o := checkHarness(f, fuzzCall, srv, opts)
	if h == nil {
		return
	}
	_, self, _, _ := runtime.Caller(0)
	ft := &fuzzTB{F: f, at: tbplace.Line(self)}
	// From here on the harness reports through ft: testing.F panics when
	// called while an input runs, which is when a broken connection is
	// closed and its Serve stopped.
	h.t = ft
	// Cleanups run last first: the fuzzer's connection closes (and stops
	// regexp2's timing goroutine, if a lookahead pattern started it), then
	// the leak check looks for what it left.
	f.Cleanup(h.endChecks)
	fz, err := servercheck.NewFuzzer(f.Context(), dial, o)
	if err != nil {
		f.Fatalf("mcptest.Fuzz: %v", err)
		return
	}
	f.Cleanup(fz.Close)
	f.Cleanup(ft.done)
	for _, seed := range fz.Seeds() {
		f.Add(seed)
	}
	ft.mu.Lock()
	ft.fuzzing = true
	ft.mu.Unlock()
	f.Fuzz(func(t *testing.T, data []byte) {
		ft.enter(t)
		defer ft.leave()
		if err := fz.Input(data); err != nil {
			// At the line of the test that called Fuzz: t.Error would
			// name this file.
			tbplace.At(t, ft.at).Report(true, err.Error())
			t.FailNow()
		}
	})
}

// fuzzTB is what the harness of Fuzz reports on: while an input runs, that
// input's t; outside one while fuzzing, nothing yet (testing.F panics if
// called while an input runs, and a report from another goroutine cannot
// know whether one does), held until the fuzzing is done; else f. Every
// report goes at the line of the test that called Fuzz.
type fuzzTB struct {
	*testing.F
	at string // see tbplace.Line

	mu      sync.Mutex
	input   *testing.T // the input running, if any
	fuzzing bool       // f.Fuzz is running
	held    []heldReport
}

type heldReport struct {
	fail bool
	msg  string
}

func (ft *fuzzTB) enter(t *testing.T) {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	ft.input = t
}

func (ft *fuzzTB) leave() {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	ft.input = nil
}

// done ends the fuzzing, as the first of f's cleanups, and reports what
// was held.
func (ft *fuzzTB) done() {
	ft.mu.Lock()
	held := ft.held
	ft.fuzzing, ft.held = false, nil
	ft.mu.Unlock()
	for _, r := range held {
		ft.report(r.fail, r.msg)
	}
}

func (ft *fuzzTB) report(fail bool, msg string) {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if ft.fuzzing && ft.input == nil {
		ft.held = append(ft.held, heldReport{fail, msg})
		return
	}
	var t interface {
		Output() io.Writer
		Fail()
	} = ft.F
	if ft.input != nil {
		t = ft.input
	}
	if msg == "" {
		t.Fail()
		return
	}
	tbplace.At(t, ft.at).Report(fail, msg)
}

// Helper does nothing: every report goes at the test's line anyway.
func (ft *fuzzTB) Helper() {}

func (ft *fuzzTB) Log(args ...any)                 { ft.report(false, fmt.Sprintln(args...)) }
func (ft *fuzzTB) Logf(format string, args ...any) { ft.report(false, fmt.Sprintf(format, args...)) }
func (ft *fuzzTB) Error(args ...any)               { ft.report(true, fmt.Sprintln(args...)) }
func (ft *fuzzTB) Errorf(format string, args ...any) {
	ft.report(true, fmt.Sprintf(format, args...))
}

func (ft *fuzzTB) Fail() { ft.report(true, "") }

// Fatal and Fatalf are for the test's own goroutine, as always.
func (ft *fuzzTB) Fatal(args ...any) {
	ft.Error(args...)
	ft.failNow()
}

func (ft *fuzzTB) Fatalf(format string, args ...any) {
	ft.Errorf(format, args...)
	ft.failNow()
}

func (ft *fuzzTB) FailNow() {
	ft.Fail()
	ft.failNow()
}

func (ft *fuzzTB) failNow() {
	ft.mu.Lock()
	t := ft.input
	ft.mu.Unlock()
	if t != nil {
		t.FailNow()
	}
	ft.F.FailNow()
}
