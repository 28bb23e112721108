package logcapture_test

import (
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptestkit/mcptestkit/logcapture"
)

// fakeT records what an assertion reports.
type fakeT struct {
	errors   []string
	helpers  int
	failNow  bool
	failNows int
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeT) Helper()  { f.helpers++ }
func (f *fakeT) FailNow() { f.failNow = true; f.failNows++ }

// check fails t unless ft saw exactly the want error (or none if want is "").
func (f *fakeT) check(t *testing.T, want string) {
	t.Helper()
	switch {
	case want == "" && len(f.errors) > 0:
		t.Errorf("unexpected failure:\n%s", f.errors[0])
	case want != "" && len(f.errors) != 1:
		t.Errorf("got %d failures, want 1: %q", len(f.errors), f.errors)
	case want != "" && f.errors[0] != want:
		t.Errorf("failure message:\n%s\nwant:\n%s", f.errors[0], want)
	}
	if f.helpers == 0 {
		t.Error("the assertion did not call Helper")
	}
}

// seeded returns a recorder holding three records. They go in through
// Handle with a zero PC, so the failure messages carry no line numbers.
func seeded(t *testing.T) *logcapture.Recorder {
	logs := logcapture.New(t, logcapture.NoDump())
	for _, r := range []struct {
		l   slog.Level
		msg string
		kv  []any
	}{
		{slog.LevelInfo, "tool returned an error", []any{"tool", "get_author", "error", "No book titled 'Nothing'"}},
		{slog.LevelWarn, "slow call", []any{"ms", 900}},
		{slog.LevelError, "tool handler panicked", []any{"tool", "explode", "stack", "goroutine 7 [running]:\nmain.explode()"}},
	} {
		rec := slog.NewRecord(time.Now(), r.l, r.msg, 0)
		rec.Add(r.kv...)
		if err := logs.Handle(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
	}
	return logs
}

func TestAssertLogged(t *testing.T) {
	logs := seeded(t)

	ft := &fakeT{}
	ok := logs.AssertLogged(ft, logcapture.Level(slog.LevelError), logcapture.Attr("tool", "explode"))
	ft.check(t, "")
	if !ok {
		t.Errorf("AssertLogged = false; want true")
	}

	ft = &fakeT{}
	ok = logs.AssertLogged(ft, logcapture.Level(slog.LevelError), logcapture.Attr("tool", "get_author"))
	ft.check(t, `logcapture: no record matches level == ERROR and tool == "get_author"
captured 3 records:
INFO  tool returned an error tool=get_author error="No book titled 'Nothing'"
WARN  slow call ms=900
ERROR tool handler panicked tool=explode
    stack:
        goroutine 7 [running]:
        main.explode()`)
	if ok || ft.failNow {
		t.Errorf("AssertLogged = %v (FailNow %v); want false, and the test going on", ok, ft.failNow)
	}

	ft = &fakeT{}
	logcapture.New(t, logcapture.NoDump()).AssertLogged(ft, logcapture.Message("x"))
	ft.check(t, "logcapture: no record matches message == \"x\"\nno records were captured")
}

func TestRequireLogged(t *testing.T) {
	logs := seeded(t)
	ft := &fakeT{}
	r := logs.RequireLogged(ft, logcapture.MessageContains("slow"))
	ft.check(t, "")
	if ft.failNow || r.Value("ms") != int64(900) {
		t.Errorf("RequireLogged = %v (FailNow %v)", r, ft.failNow)
	}

	ft = &fakeT{}
	r = logs.RequireLogged(ft, logcapture.Level(slog.LevelError), logcapture.Attr("tool", "explode"))
	if r.Message != "tool handler panicked" || !strings.Contains(r.Stack(), "main.explode()") {
		t.Errorf("RequireLogged = %v; want the panic record", r)
	}

	ft = &fakeT{}
	logs.RequireLogged(ft, logcapture.MessageContains("fast"))
	if !ft.failNow || len(ft.errors) != 1 {
		t.Errorf("RequireLogged without a match: FailNow %v, errors %q; want FailNow and one error", ft.failNow, ft.errors)
	}
}

func TestAssertNone(t *testing.T) {
	logs := seeded(t)
	ft := &fakeT{}
	if !logs.AssertNone(ft, logcapture.AtLeast(slog.LevelError+4)) {
		t.Error("AssertNone returned false with nothing matching")
	}
	ft.check(t, "")

	ft = &fakeT{}
	if logs.AssertNone(ft, logcapture.AtLeast(slog.LevelWarn)) {
		t.Error("AssertNone returned true with matches")
	}
	ft.check(t, `logcapture: want no record matching level >= WARN, got 2
captured 3 records (> marks a match):
  INFO  tool returned an error tool=get_author error="No book titled 'Nothing'"
> WARN  slow call ms=900
> ERROR tool handler panicked tool=explode
      stack:
          goroutine 7 [running]:
          main.explode()`)
}

func TestAssertNoWarnings(t *testing.T) {
	logs := seeded(t)
	ft := &fakeT{}
	if logs.AssertNoWarnings(ft) {
		t.Error("AssertNoWarnings returned true")
	}
	if len(ft.errors) != 1 || !strings.HasPrefix(ft.errors[0], "logcapture: want no record matching level >= WARN, got 2\n") {
		t.Errorf("errors = %q", ft.errors)
	}

	logs.Clear()
	logs.Logger().Info("fine")
	logs.Logger().Debug("fine too")
	ft = &fakeT{}
	if !logs.AssertNoWarnings(ft) {
		t.Error("AssertNoWarnings returned false for INFO and DEBUG")
	}
	ft.check(t, "")
}

func TestAssertCount(t *testing.T) {
	logs := seeded(t)
	for _, tc := range []struct {
		n    int
		ms   []logcapture.Matcher
		fail string // the failure's first line, "" if it passes
	}{
		{3, nil, ""},
		{1, []logcapture.Matcher{logcapture.HasAttr("stack")}, ""},
		{2, []logcapture.Matcher{logcapture.HasAttr("tool")}, ""},
		{0, []logcapture.Matcher{logcapture.Level(slog.LevelDebug)}, ""},
		{1, []logcapture.Matcher{logcapture.HasAttr("tool")}, `logcapture: want 1 record matching has tool, got 2`},
		{2, nil, `logcapture: want 2 records matching any record, got 3`},
		{0, []logcapture.Matcher{logcapture.Message("slow call")}, `logcapture: want no record matching message == "slow call", got 1`},
	} {
		ft := &fakeT{}
		ok := logs.AssertCount(ft, tc.n, tc.ms...)
		if ok != (tc.fail == "") {
			t.Errorf("AssertCount(%d, %v) = %v", tc.n, tc.ms, ok)
		}
		if tc.fail == "" {
			ft.check(t, "")
			continue
		}
		if len(ft.errors) != 1 || !strings.HasPrefix(ft.errors[0], tc.fail+"\ncaptured 3 records (> marks a match):\n") {
			t.Errorf("AssertCount(%d, %v) errors = %q, want one starting %q", tc.n, tc.ms, ft.errors, tc.fail)
		}
	}
}

// TestAssertWithRealT checks that the assertions accept *testing.T as is.
func TestAssertWithRealT(t *testing.T) {
	logs := seeded(t)
	logs.AssertLogged(t, logcapture.Message("slow call"))
	logs.AssertNone(t, logcapture.Message("nothing like this"))
	logs.AssertCount(t, 1, logcapture.Level(slog.LevelError))
	_ = logs.RequireLogged(t, logcapture.Level(slog.LevelInfo))
}

// Every AssertX method of Recorder has a RequireX twin taking the same
// arguments, and every RequireX an AssertX.
func TestEveryAssertHasItsRequire(t *testing.T) {
	typ := reflect.TypeFor[*logcapture.Recorder]()
	twins := 0
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		var twin string
		switch {
		case strings.HasPrefix(m.Name, "Assert"):
			twin = "Require" + strings.TrimPrefix(m.Name, "Assert")
		case strings.HasPrefix(m.Name, "Require"):
			twin = "Assert" + strings.TrimPrefix(m.Name, "Require")
		default:
			continue
		}
		tm, ok := typ.MethodByName(twin)
		if !ok {
			t.Errorf("%s has no twin %s", m.Name, twin)
			continue
		}
		twins++
		in := func(f reflect.Type) (ins []reflect.Type) {
			for j := range f.NumIn() {
				ins = append(ins, f.In(j))
			}
			return ins
		}
		if !slices.Equal(in(m.Type), in(tm.Type)) || m.Type.IsVariadic() != tm.Type.IsVariadic() {
			t.Errorf("%s%v and %s%v take different arguments", m.Name, in(m.Type)[1:], twin, in(tm.Type)[1:])
		}
	}
	if twins < 8 {
		t.Errorf("found %d Assert/Require methods, want at least 8 (Logged, None, NoWarnings, Count)", twins)
	}
}

// Each twin reports the same failure; Assert lets the test go on, Require
// stops it exactly once. Passing, neither stops.
func TestRequireTwins(t *testing.T) {
	logs := seeded(t)
	for _, tc := range []struct {
		name          string
		assert        func(ft *fakeT, fail bool) bool
		require       func(ft *fakeT, fail bool)
		failureStarts string
	}{
		{"Logged",
			func(ft *fakeT, fail bool) bool {
				return logs.AssertLogged(ft, logcapture.MessageContains(pick(fail, "fast", "slow")))
			},
			func(ft *fakeT, fail bool) {
				logs.RequireLogged(ft, logcapture.MessageContains(pick(fail, "fast", "slow")))
			},
			`logcapture: no record matches message contains "fast"`},
		{"None",
			func(ft *fakeT, fail bool) bool {
				return logs.AssertNone(ft, logcapture.Level(pick(fail, slog.LevelWarn, slog.LevelDebug)))
			},
			func(ft *fakeT, fail bool) {
				logs.RequireNone(ft, logcapture.Level(pick(fail, slog.LevelWarn, slog.LevelDebug)))
			},
			"logcapture: want no record matching level == WARN, got 1"},
		{"NoWarnings",
			func(ft *fakeT, fail bool) bool { return pick(fail, logs, logcapture.New(t)).AssertNoWarnings(ft) },
			func(ft *fakeT, fail bool) { pick(fail, logs, logcapture.New(t)).RequireNoWarnings(ft) },
			"logcapture: want no record matching level >= WARN, got 2"},
		{"Count",
			func(ft *fakeT, fail bool) bool {
				return logs.AssertCount(ft, pick(fail, 2, 1), logcapture.HasAttr("stack"))
			},
			func(ft *fakeT, fail bool) { logs.RequireCount(ft, pick(fail, 2, 1), logcapture.HasAttr("stack")) },
			"logcapture: want 2 records matching has stack, got 1"},
	} {
		for _, fail := range []bool{false, true} {
			ft := &fakeT{}
			ok := tc.assert(ft, fail)
			if ok == fail || ft.failNow || len(ft.errors) != btoi(fail) || ft.helpers == 0 {
				t.Errorf("Assert%s (failing %v) = %v, FailNow %v, errors %q, Helper calls %d", tc.name, fail, ok, ft.failNow, ft.errors, ft.helpers)
			}
			rt := &fakeT{}
			tc.require(rt, fail)
			if rt.failNows != btoi(fail) || !slices.Equal(rt.errors, ft.errors) || rt.helpers == 0 {
				t.Errorf("Require%s (failing %v): FailNow %d times, errors %q (Assert%s reported %q), Helper calls %d", tc.name, fail, rt.failNows, rt.errors, tc.name, ft.errors, rt.helpers)
			}
			if fail && len(ft.errors) == 1 && !strings.HasPrefix(ft.errors[0], tc.failureStarts) {
				t.Errorf("Assert%s: failure %q, want one starting %q", tc.name, ft.errors[0], tc.failureStarts)
			}
		}
	}
}

func pick[T any](fail bool, failing, passing T) T {
	if fail {
		return failing
	}
	return passing
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
