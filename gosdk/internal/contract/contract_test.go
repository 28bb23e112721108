package contract_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/gosdk/internal/contract"
	"github.com/mcptestkit/mcptestkit/guard"
	"github.com/mcptestkit/mcptestkit/logcapture"
)

func TestPanic(t *testing.T) {
	for _, tc := range []struct {
		method, name, msg, key string
	}{
		{"tools/call", "explode", guard.MsgToolPanic, guard.ToolKey},
		{"resources/read", "db://stats", guard.MsgResourcePanic, guard.URIKey},
		{"prompts/get", "greet", guard.MsgPromptPanic, guard.PromptKey},
		{"completion/complete", "", guard.MsgPanic, ""},
	} {
		logs := logcapture.New(t)
		contract.New(logs.Logger(), nil).Panic(t.Context(), tc.method, tc.name, "kaboom")
		ms := []logcapture.Matcher{
			logcapture.Level(slog.LevelError), logcapture.Message(tc.msg),
			logcapture.Attr(guard.MethodKey, tc.method), logcapture.Attr(guard.PanicKey, "kaboom"),
		}
		if tc.key != "" {
			ms = append(ms, logcapture.Attr(tc.key, tc.name))
		}
		rec := logs.RequireLogged(t, ms...)
		if !strings.Contains(rec.Stack(), "contract_test.TestPanic(") {
			t.Errorf("%s: the stack does not name the caller:\n%s", tc.method, rec.Stack())
		}
		if src := rec.Source(); src != nil {
			t.Errorf("%s: outside a panic the record has a source, %s:%d; want none rather than a wrong one", tc.method, src.File, src.Line)
		}
		logs.AssertCount(t, 1)
		if tc.key == "" {
			logs.AssertNone(t, logcapture.Any(logcapture.HasAttr(guard.ToolKey), logcapture.HasAttr(guard.URIKey), logcapture.HasAttr(guard.PromptKey)))
		}
	}
}

// The record's source is the line that panicked, also for a nil
// dereference, which the runtime raises from a signal through helpers of its
// own.
func TestPanicSourceIsThePanickingLine(t *testing.T) {
	logs := logcapture.New(t)
	r := contract.New(logs.Logger(), nil)
	var file string
	var line int
	func() {
		defer func() { r.Panic(t.Context(), "tools/call", "nil", recover()) }()
		var p *struct{ n int }
		_, file, line, _ = runtime.Caller(0)
		p.n = 1 // the line after runtime.Caller's
	}()
	src := logs.RequireLogged(t, logcapture.Level(slog.LevelError)).Source()
	if src == nil || src.File != file || src.Line != line+1 {
		t.Errorf("the record's source is %+v, want %s:%d", src, file, line+1)
	}
}

func TestToolError(t *testing.T) {
	logs := logcapture.New(t)
	contract.New(logs.Logger(), nil).ToolError(t.Context(), "get_author", "No book titled 'Nothing'")
	logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(guard.MsgToolError),
		logcapture.Attr(guard.ToolKey, "get_author"), logcapture.Attr(guard.ErrorKey, "No book titled 'Nothing'"))
	logs.AssertNone(t, logcapture.HasAttr(guard.StackKey))
}

func TestRequestFailed(t *testing.T) {
	logs := logcapture.New(t)
	contract.New(logs.Logger(), nil).RequestFailed(t.Context(), "resources/read", "db://x", -32602, errors.New("Resource not found"))
	logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(guard.MsgRequestFailed),
		logcapture.Attr(guard.MethodKey, "resources/read"), logcapture.Attr(guard.URIKey, "db://x"),
		logcapture.Attr(guard.CodeKey, -32602), logcapture.Attr(guard.ErrorKey, "Resource not found"))
}

// TestNilLoggerUsesDefault swaps slog.Default, so it is not parallel.
func TestNilLoggerUsesDefault(t *testing.T) {
	logs := logcapture.New(t, logcapture.CaptureDefault())
	contract.New(nil, nil).ToolError(t.Context(), "t", "e")
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

func TestNewReadsOptions(t *testing.T) {
	if contract.New(nil, nil).ToolErrorsAsResults {
		t.Error("ToolErrorsAsResults without the option")
	}
	if !contract.New(nil, []guard.Option{guard.ToolErrorsAsResults}).ToolErrorsAsResults {
		t.Error("guard.ToolErrorsAsResults not read")
	}
}

// panicking is a slog.Handler that panics on every record.
type panicking struct{}

func (panicking) Enabled(context.Context, slog.Level) bool  { return true }
func (panicking) Handle(context.Context, slog.Record) error { panic("the handler broke") }
func (h panicking) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h panicking) WithGroup(string) slog.Handler           { return h }

// A logger whose handler panics cannot crash the server through the guard:
// every method returns, the records are lost, and the first loss is said
// once on standard error. (os.Stderr is swapped: no t.Parallel.)
func TestHandlerPanicIsSurvived(t *testing.T) {
	stderr, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = stderr
	t.Cleanup(func() { os.Stderr = saved })

	r := contract.New(slog.New(panicking{}), nil)
	func() {
		defer func() {
			if v := recover(); v != nil {
				r.Panic(t.Context(), contract.MethodCallTool, "explode", v) // in the recovery, as the guard calls it
			}
		}()
		panic("kaboom")
	}()
	r.ToolError(t.Context(), "get_order", "Order 99 not found")
	r.RequestFailed(t.Context(), contract.MethodReadResource, "db://x", -32602, errors.New("no such row"))

	os.Stderr = saved
	said, err := os.ReadFile(stderr.Name())
	if err != nil {
		t.Fatal(err)
	}
	want := `guard: the logger's handler panicked writing the record "tool handler panicked" (the handler broke); ` +
		"it and any later record the handler panics on are lost, and the server goes on\n"
	if string(said) != want {
		t.Errorf("standard error:\n%q\nwant:\n%q", said, want)
	}
}
