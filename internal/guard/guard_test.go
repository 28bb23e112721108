package guard_test

import (
	"errors"
	"log/slog"
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/guard"
	"github.com/mcptestkit/mcptestkit/logcapture"
)

func TestLogPanic(t *testing.T) {
	for _, tc := range []struct {
		method, name, msg, key string
	}{
		{"tools/call", "explode", guard.MsgToolPanic, guard.KeyTool},
		{"resources/read", "db://stats", guard.MsgResourcePanic, guard.KeyURI},
		{"prompts/get", "greet", guard.MsgPromptPanic, guard.KeyPrompt},
		{"completion/complete", "", guard.MsgPanic, ""},
	} {
		logs := logcapture.New(t)
		guard.LogPanic(t.Context(), logs.Logger(), tc.method, tc.name, "kaboom", []byte("goroutine 1 [running]:\nf()"))
		ms := []logcapture.Matcher{
			logcapture.Level(slog.LevelError), logcapture.Message(tc.msg),
			logcapture.Attr(guard.KeyMethod, tc.method), logcapture.Attr(guard.KeyPanic, "kaboom"),
		}
		if tc.key != "" {
			ms = append(ms, logcapture.Attr(tc.key, tc.name))
		}
		rec := logs.RequireLogged(t, ms...)
		if rec.Stack() != "goroutine 1 [running]:\nf()" {
			t.Errorf("%s: stack = %q", tc.method, rec.Stack())
		}
		logs.AssertCount(t, 1)
		if tc.key == "" {
			logs.AssertNone(t, logcapture.Any(logcapture.HasAttr(guard.KeyTool), logcapture.HasAttr(guard.KeyURI), logcapture.HasAttr(guard.KeyPrompt)))
		}
	}
}

func TestLogToolError(t *testing.T) {
	logs := logcapture.New(t)
	guard.LogToolError(t.Context(), logs.Logger(), "get_author", "No book titled 'Nothing'")
	logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(guard.MsgToolError),
		logcapture.Attr(guard.KeyTool, "get_author"), logcapture.Attr(guard.KeyError, "No book titled 'Nothing'"))
	logs.AssertNone(t, logcapture.HasAttr(guard.KeyStack))
}

func TestLogRequestFailed(t *testing.T) {
	logs := logcapture.New(t)
	guard.LogRequestFailed(t.Context(), logs.Logger(), "resources/read", "db://x", -32602, errors.New("Resource not found"))
	logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(guard.MsgRequestFailed),
		logcapture.Attr(guard.KeyMethod, "resources/read"), logcapture.Attr(guard.KeyURI, "db://x"),
		logcapture.Attr(guard.KeyCode, -32602), logcapture.Attr(guard.KeyError, "Resource not found"))
}

// TestNilLoggerUsesDefault swaps slog.Default, so it is not parallel.
func TestNilLoggerUsesDefault(t *testing.T) {
	logs := logcapture.New(t, logcapture.CaptureDefault())
	guard.LogToolError(t.Context(), nil, "t", "e")
	logs.AssertCount(t, 1, logcapture.Message(guard.MsgToolError))
}

func TestTexts(t *testing.T) {
	for got, want := range map[string]string{
		guard.ToolCrashText("get_author"):        "Error executing tool get_author",
		guard.ResourceCrashMessage("db://stats"): "Error reading resource db://stats",
		guard.PromptCrashMessage("greet"):        "Error rendering prompt greet",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// The messages and keys are API: users' tests assert on them, and the
// package docs of mcptest/gosdk and mcptest/mcpgo quote them. Change them
// there too, and say so in the release notes.
func TestMessagesAndKeysAreStable(t *testing.T) {
	for got, want := range map[string]string{
		guard.MsgToolPanic:     "tool handler panicked",
		guard.MsgResourcePanic: "resource handler panicked",
		guard.MsgPromptPanic:   "prompt handler panicked",
		guard.MsgPanic:         "handler panicked",
		guard.MsgToolError:     "tool returned an error",
		guard.MsgRequestFailed: "request failed",
		guard.KeyMethod:        "method",
		guard.KeyTool:          "tool",
		guard.KeyURI:           "uri",
		guard.KeyPrompt:        "prompt",
		guard.KeyPanic:         "panic",
		guard.KeyStack:         "stack",
		guard.KeyError:         "error",
		guard.KeyCode:          "code",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
