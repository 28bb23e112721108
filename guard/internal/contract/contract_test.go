package contract_test

import (
	"errors"
	"log/slog"
	"testing"

	"github.com/mcptestkit/mcptestkit/guard"
	"github.com/mcptestkit/mcptestkit/guard/internal/contract"
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
		contract.LogPanic(t.Context(), logs.Logger(), tc.method, tc.name, "kaboom", []byte("goroutine 1 [running]:\nf()"))
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
	contract.LogToolError(t.Context(), logs.Logger(), "get_author", "No book titled 'Nothing'")
	logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(guard.MsgToolError),
		logcapture.Attr(guard.KeyTool, "get_author"), logcapture.Attr(guard.KeyError, "No book titled 'Nothing'"))
	logs.AssertNone(t, logcapture.HasAttr(guard.KeyStack))
}

func TestLogRequestFailed(t *testing.T) {
	logs := logcapture.New(t)
	contract.LogRequestFailed(t.Context(), logs.Logger(), "resources/read", "db://x", -32602, errors.New("Resource not found"))
	logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(guard.MsgRequestFailed),
		logcapture.Attr(guard.KeyMethod, "resources/read"), logcapture.Attr(guard.KeyURI, "db://x"),
		logcapture.Attr(guard.KeyCode, -32602), logcapture.Attr(guard.KeyError, "Resource not found"))
}

// TestNilLoggerUsesDefault swaps slog.Default, so it is not parallel.
func TestNilLoggerUsesDefault(t *testing.T) {
	logs := logcapture.New(t, logcapture.CaptureDefault())
	contract.LogToolError(t.Context(), nil, "t", "e")
	logs.AssertCount(t, 1, logcapture.Message(guard.MsgToolError))
}

func TestTexts(t *testing.T) {
	for got, want := range map[string]string{
		contract.ToolCrashText("get_author"):        "Error executing tool get_author",
		contract.ResourceCrashMessage("db://stats"): "Error reading resource db://stats",
		contract.PromptCrashMessage("greet"):        "Error rendering prompt greet",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
