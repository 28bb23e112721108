package faketb_test

import (
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
