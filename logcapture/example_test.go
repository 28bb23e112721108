package logcapture_test

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/mcptestkit/mcptestkit/logcapture"
)

// exampleT stands in for the *testing.T a real test receives: it prints the
// failures an assertion reports, so the examples can show them.
type exampleT struct{ testing.TB }

func (exampleT) Helper()                           {}
func (exampleT) Cleanup(func())                    {}
func (exampleT) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// t is the test the examples run in; in a real test it is the *testing.T.
var t = exampleT{}

// lookup is the code under test: it logs through the logger it is given.
func lookup(logger *slog.Logger, title string) {
	if title != "Dune" {
		logger.Info("tool returned an error", "tool", "get_author", "error", "No book titled "+title)
		return
	}
	logger.Debug("found", "title", title)
}

func Example() {
	logs := logcapture.New(t)
	lookup(logs.Logger(), "Nothing")

	// An expected failure is logged at INFO, not as a warning.
	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
	rec := logs.RequireLogged(t, logcapture.Message("tool returned an error"), logcapture.Attr("tool", "get_author"))
	fmt.Println(rec.Level, rec.Value("error"))
	// Output:
	// INFO No book titled Nothing
}

func ExampleRecorder_AssertNone() {
	logs := logcapture.New(t)
	logs.Logger().Warn("cache miss", "key", "dune")

	// Fails, and the message lists what was captured.
	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
	// Output:
	// logcapture: want no record matching level >= WARN, got 1
	// captured 1 record (> marks a match):
	// > WARN  cache miss key=dune (example_test.go:45)
}

func ExampleRecorder_Records() {
	logs := logcapture.New(t)
	l := logs.Logger().With("session", "s1")
	l.Debug("connected")
	l.WithGroup("req").Info("call", "method", "tools/call", "id", 7)
	l.Error("tool handler panicked", "tool", "explode", "stack", "goroutine 7 [running]:\n...")

	for _, r := range logs.Records(logcapture.AtLeast(slog.LevelInfo)) {
		fmt.Println(r.Level, r.Message, r.Value("session"))
	}
	fmt.Println(logs.Messages(logcapture.Attr("req.id", 7)))
	fmt.Println(logs.Count(logcapture.Any(logcapture.Level(slog.LevelDebug), logcapture.HasAttr("stack"))))
	// Output:
	// INFO call s1
	// ERROR tool handler panicked s1
	// [call]
	// 2
}

func ExampleRecord_Stack() {
	logs := logcapture.New(t)
	logs.Logger().Error("tool handler panicked", "tool", "explode",
		"stack", "goroutine 7 [running]:\nexample.com/bookshop.explode()")

	rec := logs.RequireLogged(t, logcapture.Level(slog.LevelError))
	fmt.Println(rec.Stack())
	// Output:
	// goroutine 7 [running]:
	// example.com/bookshop.explode()
}

func ExampleRecorder_StdLogger() {
	logs := logcapture.New(t)
	errorLog := logs.StdLogger(slog.LevelError) // e.g. http.Server{ErrorLog: errorLog}
	errorLog.Printf("http: TLS handshake error from %s", "127.0.0.1:5555")

	fmt.Println(logs.Records()[0].Level, logs.Records()[0].Message)
	// Output:
	// ERROR http: TLS handshake error from 127.0.0.1:5555
}
