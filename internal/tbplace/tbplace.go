// Package tbplace writes a test's reports at a line of the test where the
// testing package cannot place them: a report made on a goroutine other
// than the test's names a line of the reporting package, and (as of Go
// 1.26) one a cleanup makes inside synctest.Test names testing.go, because
// the bubble's t records which cleanup runs while its parent places the
// report. It knows nothing of MCP: logcapture uses it as mcptest does.
package tbplace

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A Place is a line of a test where reports go; the zero Place, for a t
// that is not a *testing.T (a fake, a wrapper), leaves every report to t.
type Place struct {
	t  reporter
	at string // "file:line: ", as testing prints it
}

// reporter is what Report writes to: a *testing.T or *testing.F.
type reporter interface {
	Output() io.Writer
	Fail()
}

// Caller returns the place of the first caller, up the stack, whose file is
// outside the directory of file (a source file of the calling package, which
// its _test.go files are outside of): the test's call into that package.
func Caller(t testing.TB, file string) Place {
	tt, ok := t.(*testing.T)
	if !ok {
		return Place{}
	}
	return Place{t: tt, at: line(file)}
}

// Line is [Caller]'s line, "file:line: ", whatever the test: a fuzz test
// finds it once, and reports each input's failures there with [At].
func Line(file string) string { return line(file) }

// At returns the place at line (from [Line]) on t, a *testing.T or
// *testing.F.
func At(t reporter, line string) Place { return Place{t: t, at: line} }

// line finds the line for Caller and Line, which call it directly.
func line(file string) string {
	dir := filepath.Dir(file)
	var pcs [16]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	for {
		f, more := frames.Next()
		if filepath.Dir(f.File) != dir || strings.HasSuffix(f.File, "_test.go") || !more {
			name := f.File
			if full := flag.Lookup("test.fullpath"); full == nil || full.Value.String() != "true" {
				name = filepath.Base(name)
			}
			return fmt.Sprintf("%s:%d: ", name, f.Line)
		}
	}
}

// Report writes msg at p as t.Log lays it out (continuation lines indented
// once more) and, when fail is set, marks the test failed. It reports false,
// writing nothing, for the zero Place.
func (p Place) Report(fail bool, msg string) bool {
	if p.t == nil {
		return false
	}
	msg = strings.TrimSuffix(msg, "\n")
	fmt.Fprintf(p.t.Output(), "%s%s\n", p.at, strings.ReplaceAll(msg, "\n", "\n    "))
	if fail {
		p.t.Fail()
	}
	return true
}

// Deadline returns t's Deadline, if t has the method, and reports whether t
// runs in a testing/synctest bubble.
//
// Go 1.25 has no call that says whether the caller is in a bubble, but a
// bubble's *testing.T panics in Deadline ("testing: t.Deadline called
// inside synctest bubble") before it reads or changes anything. So that
// panic, recovered here around that one call, is the answer; any other
// panic goes on. Should a later Go word the panic otherwise, it goes on
// too, and the tests of this package and of mcptest say so.
func Deadline(t any) (deadline time.Time, ok, bubble bool) {
	d, has := t.(interface{ Deadline() (time.Time, bool) })
	if !has {
		return time.Time{}, false, false
	}
	defer func() {
		if r := recover(); r != nil {
			if s, isText := r.(string); !isText || !strings.Contains(s, "synctest bubble") {
				panic(r)
			}
			bubble = true
		}
	}()
	deadline, ok = d.Deadline()
	return deadline, ok, false
}

// InBubble reports whether t (a testing.TB, or anything with its Deadline
// method) runs in a testing/synctest bubble.
func InBubble(t any) bool {
	_, _, bubble := Deadline(t)
	return bubble
}
