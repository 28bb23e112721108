// Package faketb is the one fake testing.TB of the module's own tests: it
// records failures and log output instead of failing the real test, so that
// a test can check that the harness, an assertion or a log dump fails "the
// test" with a clear message.
package faketb

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TB is a testing.TB that records failures instead of failing the real
// test, so the harness's own tests can check that a leak, a hung server, a
// panic or a failed assertion fails "the test" with a clear message.
//
// It embeds the real test for everything it does not override (TempDir,
// Setenv, ...), which also satisfies testing.TB's unexported method.
type TB struct {
	testing.TB
	name string

	mu       sync.Mutex
	failed   bool
	msgs     []string // Errorf, Fatalf and Log output, in order
	cleanups []func()
	ctx      context.Context
	cancel   context.CancelFunc
}

// New returns a fake test named name, embedding t for what it does not
// override. Run it with [TB.Finish] when the body is done; [Run] does both.
func New(t testing.TB, name string) *TB {
	ctx, cancel := context.WithCancel(context.Background())
	return &TB{TB: t, name: name, ctx: ctx, cancel: cancel}
}

// runs numbers the fake tests of the process: like the testing package's,
// their names never repeat (the leak check tells tests apart by name).
var runs atomic.Uint64

// Run runs body against a fake test in its own goroutine (so FailNow can
// end it with runtime.Goexit, as the testing package does), then, on that
// goroutine as the testing package does, cancels its context and runs its
// cleanups, and returns it for inspection.
func Run(t testing.TB, body func(tb testing.TB)) *TB {
	t.Helper()
	f := New(t, fmt.Sprintf("%s/fake#%02d", t.Name(), runs.Add(1)))
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer f.runCleanups()
		body(f)
	}()
	<-done
	return f
}

// runCleanups runs the cleanups on the calling goroutine, last registered
// first. One that ends its goroutine (FailNow) or panics does not stop the
// others: they run while it unwinds.
func (f *TB) runCleanups() {
	f.cancel()
	for fn := f.pop(); fn != nil; fn = f.pop() {
		finished := false
		func() {
			defer func() {
				if !finished {
					f.runCleanups()
				}
			}()
			fn()
			finished = true
		}()
	}
}

// pop removes and returns the last cleanup registered, nil if none is left.
func (f *TB) pop() func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.cleanups)
	if n == 0 {
		return nil
	}
	fn := f.cleanups[n-1]
	f.cleanups = f.cleanups[:n-1]
	return fn
}

// Finish ends the fake test as the testing package ends a test: its
// context is cancelled, then the cleanups run, last registered first, each
// on a goroutine of its own (so FailNow in one ends only that one).
func (f *TB) Finish() {
	f.cancel()
	for fn := f.pop(); fn != nil; fn = f.pop() {
		ran := make(chan struct{})
		go func() { defer close(ran); fn() }()
		<-ran
	}
}

// Helper does nothing: the fake has no lines to mark.
func (f *TB) Helper() {}

// Name returns the fake test's name.
func (f *TB) Name() string { return f.name }

// Context returns the fake test's context, cancelled by Finish.
func (f *TB) Context() context.Context { return f.ctx }

// Cleanup registers fn to run at Finish.
func (f *TB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

func (f *TB) record(fail bool, s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fail {
		f.failed = true
	}
	f.msgs = append(f.msgs, s)
}

func (f *TB) Errorf(format string, args ...any) { f.record(true, fmt.Sprintf(format, args...)) }
func (f *TB) Error(args ...any)                 { f.record(true, fmt.Sprintln(args...)) }
func (f *TB) Logf(format string, args ...any)   { f.record(false, fmt.Sprintf(format, args...)) }
func (f *TB) Log(args ...any)                   { f.record(false, fmt.Sprintln(args...)) }
func (f *TB) Fail()                             { f.record(true, "") }

func (f *TB) FailNow() {
	f.record(true, "")
	runtime.Goexit()
}

func (f *TB) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

func (f *TB) Fatal(args ...any) {
	f.Error(args...)
	runtime.Goexit()
}

func (f *TB) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

func (f *TB) Skip(args ...any)                 { panic("faketb: Skip is not supported") }
func (f *TB) Skipf(format string, args ...any) { panic("faketb: Skipf is not supported") }
func (f *TB) SkipNow()                         { panic("faketb: SkipNow is not supported") }
func (f *TB) Setenv(key, value string)         { panic("faketb: Setenv is not supported") }
func (f *TB) Chdir(dir string)                 { panic("faketb: Chdir is not supported") }
func (f *TB) Parallel()                        { panic("faketb: Parallel is not supported") }

// Text returns everything the fake test logged or reported.
func (f *TB) Text() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.msgs, "\n")
}

// ExpectFailure checks that the fake test failed and that its output
// contains every substring.
func (f *TB) ExpectFailure(t *testing.T, contains ...string) {
	t.Helper()
	if !f.Failed() {
		t.Fatalf("the fake test passed; expected it to fail. Its output:\n%s", f.Text())
	}
	out := f.Text()
	for _, s := range contains {
		if !strings.Contains(out, s) {
			t.Errorf("the fake test's output lacks %q. Its output:\n%s", s, out)
		}
	}
}

// ExpectPass checks that the fake test passed.
func (f *TB) ExpectPass(t *testing.T) {
	t.Helper()
	if f.Failed() {
		t.Fatalf("the fake test failed; expected it to pass. Its output:\n%s", f.Text())
	}
}

// Watch arranges for released to be closed once v, which a body made, is
// garbage; call it in the body. See [TB.ExpectLetGo].
func Watch[T any](v *T, released chan struct{}) {
	runtime.AddCleanup(v, func(ch chan struct{}) { close(ch) }, released)
}

// ExpectLetGo checks that what the body watched ([Watch]) becomes garbage
// while the fake test, which keeps its cleanups as the testing package
// keeps a finished test's until its parent ends, is still reachable:
// nothing of what a finished test's cleanups reference may keep it.
func (f *TB) ExpectLetGo(t *testing.T, released <-chan struct{}, what string) {
	t.Helper()
	defer runtime.KeepAlive(f)
	for range 200 {
		runtime.GC()
		select {
		case <-released:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("%s of a finished test is still reachable (from its cleanups, as the testing package keeps them)", what)
}
