package crash

import "context"

// Report describes one recovered panic.
type Report struct {
	// Method is the JSON-RPC method whose handler panicked ("tools/call").
	Method string
	// Name is what the method acted on when it has such a thing: the tool
	// name for tools/call, the URI for resources/read, the prompt name for
	// prompts/get; "" otherwise.
	Name string
	// Value is what was passed to panic.
	Value any
	// Stack is the panicking goroutine's stack, from runtime/debug.Stack.
	Stack []byte
}

type reporterKey struct{}

// WithReporter returns a context that carries report. A nil report leaves
// ctx as it is.
func WithReporter(ctx context.Context, report func(Report)) context.Context {
	if report == nil {
		return ctx
	}
	return context.WithValue(ctx, reporterKey{}, report)
}

// ReporterFrom returns the reporter carried by ctx, or nil when there is none.
func ReporterFrom(ctx context.Context) func(Report) {
	f, _ := ctx.Value(reporterKey{}).(func(Report))
	return f
}
