package contract

import (
	"context"
	"log/slog"

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
		return guard.MsgToolPanic, guard.KeyTool
	case MethodReadResource:
		return guard.MsgResourcePanic, guard.KeyURI
	case MethodGetPrompt:
		return guard.MsgPromptPanic, guard.KeyPrompt
	}
	return guard.MsgPanic, ""
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
	attrs = append(attrs, slog.String(guard.KeyMethod, method))
	if key != "" {
		attrs = append(attrs, slog.String(key, name))
	}
	attrs = append(attrs, slog.Any(guard.KeyPanic, value), slog.String(guard.KeyStack, string(stack)))
	orDefault(l).LogAttrs(ctx, slog.LevelError, msg, attrs...)
}

// LogToolError writes the INFO record for a tool that reported a failure.
func LogToolError(ctx context.Context, l *slog.Logger, tool, text string) {
	orDefault(l).LogAttrs(ctx, slog.LevelInfo, guard.MsgToolError,
		slog.String(guard.KeyMethod, MethodCallTool), slog.String(guard.KeyTool, tool), slog.String(guard.KeyError, text))
}

// LogRequestFailed writes the INFO record for a request that ended in a
// JSON-RPC error with the given code; name is as for LogPanic.
func LogRequestFailed(ctx context.Context, l *slog.Logger, method, name string, code int64, err error) {
	_, key := subject(method)
	attrs := make([]slog.Attr, 0, 4)
	attrs = append(attrs, slog.String(guard.KeyMethod, method))
	if key != "" {
		attrs = append(attrs, slog.String(key, name))
	}
	attrs = append(attrs, slog.Int64(guard.KeyCode, code), slog.String(guard.KeyError, err.Error()))
	orDefault(l).LogAttrs(ctx, slog.LevelInfo, guard.MsgRequestFailed, attrs...)
}
