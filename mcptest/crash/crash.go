package crash

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
)

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

// String words the panic for an error message: `panic in tool "divide":
// integer divide by zero`. The adapters answer the crashed request with it.
func (r Report) String() string {
	switch {
	case r.Method == "tools/call" && r.Name != "":
		return fmt.Sprintf("panic in tool %q: %v", r.Name, r.Value)
	case r.Method == "prompts/get" && r.Name != "":
		return fmt.Sprintf("panic in prompt %q: %v", r.Name, r.Value)
	case r.Name != "":
		return fmt.Sprintf("panic handling %s %q: %v", r.Method, r.Name, r.Value)
	default:
		return fmt.Sprintf("panic handling %s: %v", r.Method, r.Value)
	}
}

// Deliver hands r to the reporter ctx carries. Without one (an adapter
// serving outside the harness) it writes r and its stack to stderr rather
// than lose them.
func Deliver(ctx context.Context, r Report) {
	if report := ReporterFrom(ctx); report != nil {
		report(r)
		return
	}
	fmt.Fprintf(os.Stderr, "mcptestkit: recovered %s\n%s\n", r, r.Stack)
}

// Subject returns what a request's params (their JSON) name: the tool or
// prompt name, or the resource URI; "" when they name nothing.
func Subject(params []byte) string {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	if p.Name != "" {
		return p.Name
	}
	return p.URI
}
