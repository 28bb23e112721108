package mcptest

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/tbplace"
)

// The testing package places a report at the first line, up the reporting
// goroutine's stack, outside the functions marked with t.Helper; for a
// cleanup it goes on from the line that registered it. It cannot place a
// report made on another goroutine: it names a line of this package. Nor,
// as of Go 1.26, one a cleanup makes inside synctest.Test: the bubble's t
// records which cleanup runs, but its parent places the report, and names
// testing.go. The harness places those two kinds itself, at the test's line
// that called Connect (CheckServer, Fuzz), when t is a *testing.T: reports
// of a fake or a wrapper go to its own Errorf and Logf.

// placement is where the harness puts the reports the testing package
// cannot place.
type placement struct {
	tbplace.Place      // the test's line that called Connect, CheckServer or Fuzz
	bubble        bool // t runs inside synctest.Test
}

// newPlacement returns the placement of the reports of a harness for t,
// made by a call from the test (it is one of that call's frames).
func newPlacement(t testing.TB, bubble bool) placement {
	_, self, _, _ := runtime.Caller(0)
	return placement{tbplace.Caller(t, self), bubble}
}

// logf reports on the test unless the cleanup has finished, after which the
// testing package would panic. It is for the goroutines of a connection
// that may still run while the cleanup does (stderr readers, loggers).
func (h *harness) logf(fail bool, format string, args ...any) {
	h.t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.over {
		return
	}
	h.report(fail, format, args...)
}

// report fails the test with the message, or logs it. Made as the harness
// ends outside a bubble, it is left to testing, which honours the test's
// own helpers around Connect; on a goroutine, or in a bubble, it is placed
// by hand (see placement).
func (h *harness) report(fail bool, format string, args ...any) {
	h.t.Helper()
	if (h.place.bubble || !h.ending.Load()) && h.place.Report(fail, fmt.Sprintf(format, args...)) {
		return
	}
	if fail {
		h.t.Errorf(format, args...)
		return
	}
	h.t.Logf(format, args...)
}
