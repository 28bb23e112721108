package guard

import (
	"context"
	"log/slog"
)

// Log messages. A panic is one ERROR record, a failure the handler reported
// itself one INFO record.
const (
	MsgToolPanic     = "tool handler panicked"
	MsgResourcePanic = "resource handler panicked"
	MsgPromptPanic   = "prompt handler panicked"
	MsgPanic         = "handler panicked"
	MsgToolError     = "tool returned an error"
	MsgRequestFailed = "request failed"
)

// Attribute keys.
const (
	KeyMethod = "method" // the JSON-RPC method, on every record
	KeyTool   = "tool"   // tools/call: the tool name
	KeyURI    = "uri"    // resources/read: the resource URI
	KeyPrompt = "prompt" // prompts/get: the prompt name
	KeyPanic  = "panic"  // the value passed to panic, as it was
	KeyStack  = "stack"  // the panicking goroutine's stack, a string
	KeyError  = "error"  // the error text
	KeyCode   = "code"   // the JSON-RPC error code the client gets, an int64
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
		return MsgToolPanic, KeyTool
	case MethodReadResource:
		return MsgResourcePanic, KeyURI
	case MethodGetPrompt:
		return MsgPromptPanic, KeyPrompt
	}
	return MsgPanic, ""
}

// orDefault returns l, or slog.Default() (as it is now) when l is nil.
func orDefault(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}

// LogPanic writes the ERROR record for a panic recovered while handling
// method; name is the tool, URI or prompt ("" for other methods).
func LogPanic(ctx context.Context, l *slog.Logger, method, name string, value any, stack []byte) {
	msg, key := subject(method)
	attrs := make([]slog.Attr, 0, 4)
	attrs = append(attrs, slog.String(KeyMethod, method))
	if key != "" {
		attrs = append(attrs, slog.String(key, name))
	}
	attrs = append(attrs, slog.Any(KeyPanic, value), slog.String(KeyStack, string(stack)))
	orDefault(l).LogAttrs(ctx, slog.LevelError, msg, attrs...)
}

// LogToolError writes the INFO record for a tool that reported a failure.
func LogToolError(ctx context.Context, l *slog.Logger, tool, text string) {
	orDefault(l).LogAttrs(ctx, slog.LevelInfo, MsgToolError,
		slog.String(KeyMethod, MethodCallTool), slog.String(KeyTool, tool), slog.String(KeyError, text))
}

// LogRequestFailed writes the INFO record for a request that ended in a
// JSON-RPC error with the given code; name is as for LogPanic.
func LogRequestFailed(ctx context.Context, l *slog.Logger, method, name string, code int64, err error) {
	_, key := subject(method)
	attrs := make([]slog.Attr, 0, 4)
	attrs = append(attrs, slog.String(KeyMethod, method))
	if key != "" {
		attrs = append(attrs, slog.String(key, name))
	}
	attrs = append(attrs, slog.Int64(KeyCode, code), slog.String(KeyError, err.Error()))
	orDefault(l).LogAttrs(ctx, slog.LevelInfo, MsgRequestFailed, attrs...)
}
