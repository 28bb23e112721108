package logcapture

import (
	"fmt"
	"log/slog"
	"strings"
)

// TestingT is what the assertions need from a test: *testing.T,
// *testing.B, testify's mocks and any fake with an Errorf method. If it also
// has a Helper method (as testing.TB does), the assertions call it so that
// failures point at the caller.
type TestingT interface {
	Errorf(format string, args ...any)
}

// RequireT is a [TestingT] that can stop the test, as *testing.T can.
type RequireT interface {
	TestingT
	FailNow()
}

// helper is the optional part of a TestingT. Each assertion calls Helper
// itself: Helper marks its caller, so a shared wrapper would mark only
// the wrapper.
type helper interface{ Helper() }

// AssertLogged checks that a record matching every matcher was captured;
// otherwise it reports a failure listing every captured record. To check
// the record further, use [Recorder.RequireLogged], which returns it.
//
//	logs.AssertLogged(t, logcapture.Level(slog.LevelError), logcapture.HasAttr("stack"))
func (r *Recorder) AssertLogged(t TestingT, ms ...Matcher) bool {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	_, ok := r.logged(t, ms)
	return ok
}

// RequireLogged is [Recorder.AssertLogged] that stops the test (FailNow)
// when no record matches, and returns the first record that matches:
//
//	rec := logs.RequireLogged(t, logcapture.Level(slog.LevelError))
//	assert.Contains(t, rec.Stack(), "panic")
func (r *Recorder) RequireLogged(t RequireT, ms ...Matcher) Record {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	rec, ok := r.logged(t, ms)
	if !ok {
		t.FailNow()
	}
	return rec
}

func (r *Recorder) logged(t TestingT, ms []Matcher) (Record, bool) {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	if rec, ok := r.first(ms); ok {
		return rec, true
	}
	t.Errorf("%s", failure(fmt.Sprintf("no record matches %s", describe(ms, " and ")), r.Records(), nil))
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
	return r.AssertCount(t, 0, ms...)
}

// AssertNoWarnings checks that nothing at WARN or above was captured.
func (r *Recorder) AssertNoWarnings(t TestingT) bool {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	return r.AssertNone(t, AtLeast(slog.LevelWarn))
}

// AssertCount checks that exactly n captured records match every matcher.
func (r *Recorder) AssertCount(t TestingT, n int, ms ...Matcher) bool {
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
	b.WriteString(strings.TrimRight(formatRecords(all, mark), "\n"))
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
