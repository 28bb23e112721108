package faketb_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/faketb"
)

// FailNow and Fatal end the body as they end a test; cleanups run after
// the context ends, last registered first, and may log.
func TestRun(t *testing.T) {
	t.Parallel()
	var order []string
	reached := false
	f := faketb.Run(t, func(tb testing.TB) {
		tb.Cleanup(func() { order = append(order, "first") })
		tb.Cleanup(func() {
			order = append(order, "second")
			if tb.Context().Err() == nil {
				tb.Errorf("the context is still live in a cleanup")
			}
			tb.Log("logged by a cleanup")
		})
		tb.Fatalf("stop here: %d", 1)
		reached = true
	})
	f.ExpectFailure(t, "stop here: 1", "logged by a cleanup")
	if reached || strings.Join(order, ",") != "second,first" || strings.Contains(f.Text(), "still live") {
		t.Errorf("reached %v, cleanups %v, output %q", reached, order, f.Text())
	}
	faketb.Run(t, func(tb testing.TB) { tb.Log("fine") }).ExpectPass(t)
}

// As in the testing package, the cleanups run on the body's goroutine, and
// one that calls FailNow (or Fatal) ends only itself: the next still runs.
func TestCleanupFailNowEndsOnlyItself(t *testing.T) {
	t.Parallel()
	var order []string
	var bodyG, cleanupG uint64
	f := faketb.Run(t, func(tb testing.TB) {
		bodyG = goid()
		tb.Cleanup(func() { order = append(order, "first"); cleanupG = goid() })
		tb.Cleanup(func() { order = append(order, "second"); tb.Fatal("second stops") })
		tb.Cleanup(func() { order = append(order, "third"); tb.FailNow() })
	})
	f.ExpectFailure(t, "second stops")
	if got := strings.Join(order, ","); got != "third,second,first" {
		t.Errorf("cleanups ran %s, want third,second,first", got)
	}
	if bodyG == 0 || bodyG != cleanupG {
		t.Errorf("the body ran on goroutine %d and the last cleanup on %d: want the same", bodyG, cleanupG)
	}
}

// goid is the calling goroutine's id, read from its stack header.
func goid() uint64 {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	var id uint64
	fmt.Sscanf(strings.TrimPrefix(string(buf), "goroutine "), "%d", &id)
	return id
}
