package crash_test

import (
	"context"
	"fmt"

	"github.com/mcptestkit/mcptestkit/internal/crash"
)

func ExampleWithReporter() {
	ctx := crash.WithReporter(context.Background(), func(r crash.Report) {
		fmt.Printf("panic in %s %q: %v\n", r.Method, r.Name, r.Value)
	})
	// Deep inside an adapter's recovery:
	if report := crash.ReporterFrom(ctx); report != nil {
		report(crash.Report{Method: "tools/call", Name: "divide", Value: "integer divide by zero"})
	}
	// Output:
	// panic in tools/call "divide": integer divide by zero
}
