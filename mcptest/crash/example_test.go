package crash_test

import (
	"context"
	"fmt"

	"github.com/mcptestkit/mcptestkit/mcptest/crash"
)

func ExampleDeliver() {
	// The harness, before it calls an adapter's Serve:
	ctx := crash.WithReporter(context.Background(), func(r crash.Report) {
		fmt.Println("the test fails:", r)
	})
	// Deep inside the adapter's recovery, with a handler's context:
	crash.Deliver(ctx, crash.Report{Method: "tools/call", Name: "divide", Value: "integer divide by zero"})
	// Output:
	// the test fails: panic in tool "divide": integer divide by zero
}
