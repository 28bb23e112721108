package mcptest

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// fakeTB is a testing.TB that records failures instead of failing the real
// test, so the harness's own tests can check that a leak, a hung server, a
// panic or a failed assertion fails "the test" with a clear message.
//
// It embeds the real test for everything it does not override (TempDir,
// Setenv, ...), which also satisfies testing.TB's unexported method.
type fakeTB struct {
	testing.TB
	name string

	mu       sync.Mutex
	failed   bool
	msgs     []string // Errorf, Fatalf and Log output, in order
	cleanups []func()
	ctx      context.Context
	cancel   context.CancelFunc
}

// runFake runs body against a fake test in its own goroutine (so FailNow can
// end it with runtime.Goexit, as the testing package does), then runs the
// cleanups the body registered, last first, and returns the fake for
// inspection.
func runFake(t testing.TB, body func(tb testing.TB)) *fakeTB {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeTB{TB: t, name: t.Name() + "/fake", ctx: ctx, cancel: cancel}
	done := make(chan struct{})
	go func() {
		defer close(done)
		body(f)
	}()
	<-done
	f.cancel() // as testing does: the context ends before cleanups run
	for {
		f.mu.Lock()
		n := len(f.cleanups)
		if n == 0 {
			f.mu.Unlock()
			break
		}
		fn := f.cleanups[n-1]
		f.cleanups = f.cleanups[:n-1]
		f.mu.Unlock()
		ran := make(chan struct{})
		go func() { defer close(ran); fn() }()
		<-ran
	}
	return f
}

func (f *fakeTB) Helper()      {}
func (f *fakeTB) Name() string { return f.name }

func (f *fakeTB) Context() context.Context { return f.ctx }

func (f *fakeTB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

func (f *fakeTB) record(fail bool, s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fail {
		f.failed = true
	}
	f.msgs = append(f.msgs, s)
}

func (f *fakeTB) Errorf(format string, args ...any) { f.record(true, fmt.Sprintf(format, args...)) }
func (f *fakeTB) Error(args ...any)                 { f.record(true, fmt.Sprintln(args...)) }
func (f *fakeTB) Logf(format string, args ...any)   { f.record(false, fmt.Sprintf(format, args...)) }
func (f *fakeTB) Log(args ...any)                   { f.record(false, fmt.Sprintln(args...)) }
func (f *fakeTB) Fail()                             { f.record(true, "") }

func (f *fakeTB) FailNow() {
	f.record(true, "")
	runtime.Goexit()
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

func (f *fakeTB) Fatal(args ...any) {
	f.Error(args...)
	runtime.Goexit()
}

func (f *fakeTB) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

func (f *fakeTB) Skip(args ...any)                 { panic("fakeTB: Skip is not supported") }
func (f *fakeTB) Skipf(format string, args ...any) { panic("fakeTB: Skipf is not supported") }
func (f *fakeTB) SkipNow()                         { panic("fakeTB: SkipNow is not supported") }
func (f *fakeTB) Setenv(key, value string)         { panic("fakeTB: Setenv is not supported") }
func (f *fakeTB) Chdir(dir string)                 { panic("fakeTB: Chdir is not supported") }
func (f *fakeTB) Parallel()                        { panic("fakeTB: Parallel is not supported") }

// output returns everything the fake test logged or reported.
func (f *fakeTB) output() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.msgs, "\n")
}

// expectFailure checks that the fake test failed and that its output
// contains every substring.
func (f *fakeTB) expectFailure(t *testing.T, contains ...string) {
	t.Helper()
	if !f.Failed() {
		t.Fatalf("the fake test passed; expected it to fail. Its output:\n%s", f.output())
	}
	out := f.output()
	for _, s := range contains {
		if !strings.Contains(out, s) {
			t.Errorf("the fake test's output lacks %q. Its output:\n%s", s, out)
		}
	}
}

// expectPass checks that the fake test passed.
func (f *fakeTB) expectPass(t *testing.T) {
	t.Helper()
	if f.Failed() {
		t.Fatalf("the fake test failed; expected it to pass. Its output:\n%s", f.output())
	}
}
