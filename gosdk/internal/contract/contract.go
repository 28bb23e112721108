package contract

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcptestkit/mcptestkit/guard"
)

// Method names with a subject.
const (
	MethodCallTool     = "tools/call"
	MethodReadResource = "resources/read"
	MethodGetPrompt    = "prompts/get"
)

// CodeInternalError is the JSON-RPC code of every crash that is not a tool's.
const CodeInternalError = -32603

// InternalMessage is the error message of a crash in a method that has no
// subject to name.
const InternalMessage = "Internal server error"

// NilResult is the panic value recorded for a handler that returned neither
// a result nor an error: the SDK would send a null result, or dereference
// it and crash, so the guard answers as for a panic.
const NilResult = "the handler returned neither a result nor an error"

// ToolCrashText is the text of the error result a crashed tool returns: the
// name only, never the panic, which may describe the server's internals.
func ToolCrashText(tool string) string { return "Error executing tool " + tool }

// ResourceCrashMessage is the error message of a crashed resource read.
func ResourceCrashMessage(uri string) string { return "Error reading resource " + uri }

// PromptCrashMessage is the error message of a crashed prompt.
func PromptCrashMessage(prompt string) string { return "Error rendering prompt " + prompt }

// subject returns the panic message for method and the key under which its
// subject (tool, URI, prompt) is logged; "" when the method has none.
func subject(method string) (msg, key string) {
	switch method {
	case MethodCallTool:
		return guard.MsgToolPanic, guard.ToolKey
	case MethodReadResource:
		return guard.MsgResourcePanic, guard.URIKey
	case MethodGetPrompt:
		return guard.MsgPromptPanic, guard.PromptKey
	}
	return guard.MsgPanic, ""
}

// A Reporter writes the log records of a guard's events (a panic, a tool
// error, a failed request), as the guard's options ask.
type Reporter struct {
	logger *slog.Logger // nil: slog.Default() as it is when a record is written
	lost   *atomic.Bool // a record was lost to a panicking handler, and said so

	// ToolErrorsAsResults is whether guard.ToolErrorsAsResults was given.
	ToolErrorsAsResults bool
}

// New returns the Reporter for a guard given logger and opts.
func New(logger *slog.Logger, opts []guard.Option) Reporter {
	r := Reporter{logger: logger, lost: new(atomic.Bool)}
	for _, o := range opts {
		if o == guard.ToolErrorsAsResults {
			r.ToolErrorsAsResults = true
		}
	}
	return r
}

func (r Reporter) log() *slog.Logger {
	if r.logger == nil {
		return slog.Default()
	}
	return r.logger
}

// Panic writes the ERROR record for the panic value v, recovered while
// handling method; name is the tool, URI or prompt ("" for other methods).
// Call it from the deferred function that recovered v: the stack it records
// then still has the panicking frames, and the record's source is the frame
// that panicked, not this package.
func (r Reporter) Panic(ctx context.Context, method, name string, v any) {
	msg, _ := subject(method)
	defer r.survive(msg)
	h := r.log().Handler()
	if !h.Enabled(ctx, slog.LevelError) {
		return
	}
	_, key := subject(method)
	rec := slog.NewRecord(time.Now(), slog.LevelError, msg, panicPC())
	rec.AddAttrs(slog.String(guard.MethodKey, method))
	if key != "" {
		rec.AddAttrs(slog.String(key, name))
	}
	rec.AddAttrs(slog.Any(guard.PanicKey, v), slog.String(guard.StackKey, string(debug.Stack())))
	_ = h.Handle(ctx, rec) // as slog.Logger does: a handler's error has nowhere to go
}

// survive, deferred by each method that writes a record, recovers a panic of
// the logger's handler: the guard's own work must never crash the server it
// protects, and a panic while the guard handles a recovered one would. The
// record msg is lost; the first loss is said in one line on standard error,
// where a broken logger leaves nothing else to say it.
func (r Reporter) survive(msg string) {
	v := recover()
	if v == nil || r.lost == nil || !r.lost.CompareAndSwap(false, true) {
		return
	}
	fmt.Fprintf(os.Stderr, "guard: the logger's handler panicked writing the record %q (%v); "+
		"it and any later record the handler panics on are lost, and the server goes on\n", msg, v)
}

// panicPC returns the program counter slog takes for a record's source
// (AddSource) of the frame that panicked: the first one under the newest
// runtime.gopanic on this goroutine's stack that is not the runtime's own,
// so that a nil dereference or a bad index (raised by runtime helpers)
// points at the line that made it. It returns 0 (no source, rather than a
// wrong one) when no panic is under way.
func panicPC() uintptr {
	var pcs [32]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case panicking && !strings.HasPrefix(f.Function, "runtime."):
			// f.PC is the call's own address; slog, like runtime.Callers,
			// wants the address after it.
			return f.PC + 1
		}
		if !more {
			return 0
		}
	}
}

// ToolError writes the INFO record for a tool that reported a failure.
func (r Reporter) ToolError(ctx context.Context, tool, text string) {
	defer r.survive(guard.MsgToolError)
	r.log().LogAttrs(ctx, slog.LevelInfo, guard.MsgToolError,
		slog.String(guard.MethodKey, MethodCallTool), slog.String(guard.ToolKey, tool), slog.String(guard.ErrorKey, text))
}

// RequestFailed writes the INFO record for a request that ended in a
// JSON-RPC error with the given code; name is as for Panic.
func (r Reporter) RequestFailed(ctx context.Context, method, name string, code int64, err error) {
	defer r.survive(guard.MsgRequestFailed)
	_, key := subject(method)
	attrs := make([]slog.Attr, 0, 4)
	attrs = append(attrs, slog.String(guard.MethodKey, method))
	if key != "" {
		attrs = append(attrs, slog.String(key, name))
	}
	attrs = append(attrs, slog.Int64(guard.CodeKey, code), slog.String(guard.ErrorKey, err.Error()))
	r.log().LogAttrs(ctx, slog.LevelInfo, guard.MsgRequestFailed, attrs...)
}
