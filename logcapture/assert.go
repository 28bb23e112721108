package logcapture

import (
	"fmt"
	"log/slog"
	"strings"
)

// TestingT is what the assertions need from a test: *testing.T,
// *testing.B, testing.TB, or a fake with these two methods. If it also has
// a Helper method (as testing.TB does), the assertions call it so that
// failures point at the caller.
type TestingT interface {
	Errorf(format string, args ...any)
	FailNow()
}

// helper is the optional part of a TestingT. Each assertion calls Helper
// itself: Helper marks its caller, so a shared wrapper would mark only
// the wrapper.
type helper interface{ Helper() }

// Every AssertX has a RequireX: AssertX reports a failure and returns
// whether it passed, RequireX reports the same failure and stops the test
// (FailNow). Both call one unexported check, told whether to stop.

// AssertLogged checks that a record matching every matcher was captured;
// otherwise it reports a failure listing every captured record. To check
// the record further, use [Recorder.RequireLogged], which returns it.
//
//	logs.AssertLogged(t, logcapture.Level(slog.LevelError), logcapture.HasAttr("stack"))
func (r *Recorder) AssertLogged(t TestingT, ms ...Matcher) bool {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	_, ok := r.logged(t, false, ms)
	return ok
}

// RequireLogged is [Recorder.AssertLogged] that stops the test (FailNow)
// when no record matches, and returns the first record that matches:
//
//	rec := logs.RequireLogged(t, logcapture.Level(slog.LevelError))
//	assert.Contains(t, rec.Stack(), "panic")
func (r *Recorder) RequireLogged(t TestingT, ms ...Matcher) Record {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	rec, _ := r.logged(t, true, ms)
	return rec
}

func (r *Recorder) logged(t TestingT, stop bool, ms []Matcher) (Record, bool) {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	if rec, ok := r.first(ms); ok {
		return rec, true
	}
	t.Errorf("%s", failure(fmt.Sprintf("no record matches %s", describe(ms, " and ")), r.Records(), nil))
	if stop {
		t.FailNow()
	}
	return Record{}, false
}

// AssertNone checks that no captured record matches every matcher. On
// failure it reports the matching records among all captured ones.
//
//	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
func (r *Recorder) AssertNone(t TestingT, ms ...Matcher) bool {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	return r.count(t, false, 0, ms)
}

// RequireNone is [Recorder.AssertNone] that stops the test (FailNow) when a
// record matches.
func (r *Recorder) RequireNone(t TestingT, ms ...Matcher) {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	r.count(t, true, 0, ms)
}

// AssertNoWarnings checks that nothing at WARN or above was captured.
func (r *Recorder) AssertNoWarnings(t TestingT) bool {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	return r.count(t, false, 0, []Matcher{AtLeast(slog.LevelWarn)})
}

// RequireNoWarnings is [Recorder.AssertNoWarnings] that stops the test
// (FailNow) when something at WARN or above was captured.
func (r *Recorder) RequireNoWarnings(t TestingT) {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	r.count(t, true, 0, []Matcher{AtLeast(slog.LevelWarn)})
}

// AssertCount checks that exactly n captured records match every matcher.
func (r *Recorder) AssertCount(t TestingT, n int, ms ...Matcher) bool {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	return r.count(t, false, n, ms)
}

// RequireCount is [Recorder.AssertCount] that stops the test (FailNow)
// unless exactly n captured records match every matcher.
func (r *Recorder) RequireCount(t TestingT, n int, ms ...Matcher) {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	r.count(t, true, n, ms)
}

func (r *Recorder) count(t TestingT, stop bool, n int, ms []Matcher) bool {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	got := r.Count(ms...)
	if got == n {
		return true
	}
	// Only a failure pays for a copy of the records. One logged since the
	// count shows in the list but not in the number.
	all := r.Records()
	what := describe(ms, " and ")
	head := fmt.Sprintf("want %d %s matching %s, got %d", n, plural(n, "record"), what, got)
	if n == 0 {
		head = fmt.Sprintf("want no record matching %s, got %d", what, got)
	}
	t.Errorf("%s", failure(head, all, func(rec Record) bool { return matchAll(ms, rec) }))
	if stop {
		t.FailNow()
	}
	return false
}

// failure builds an assertion message: the headline, then every captured
// record, matching ones marked with "> " when mark is given.
func failure(head string, all []Record, mark func(Record) bool) string {
	var b strings.Builder
	b.WriteString("logcapture: ")
	b.WriteString(head)
	if len(all) == 0 {
		b.WriteString("\nno records were captured")
		return b.String()
	}
	fmt.Fprintf(&b, "\ncaptured %d %s", len(all), plural(len(all), "record"))
	if mark != nil {
		b.WriteString(" (> marks a match)")
	}
	b.WriteString(":\n")
	b.WriteString(strings.TrimRight(formatShown(all, mark), "\n"))
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
