package logcapture_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcptestkit/mcptestkit/logcapture"
)

type lazy struct{ v string }

func (l lazy) LogValue() slog.Value { return slog.StringValue(l.v) }

type lazyGroup struct{}

func (lazyGroup) LogValue() slog.Value {
	return slog.GroupValue(slog.Int("n", 1), slog.Any("inner", lazy{"deep"}))
}

func TestRecordAttrs(t *testing.T) {
	logs := logcapture.New(t)
	boom := errors.New("boom")
	logs.Logger().With("svc", "books").WithGroup("req").With("id", 7).
		Info("handled", "took", 3*time.Second, "ok", true, "err", boom,
			"lazy", lazy{"resolved"}, "lg", lazyGroup{},
			slog.Group("meta", slog.String("k", "v"), slog.Group("empty")),
			slog.Group("", slog.String("inlined", "yes")), "svc", "again")

	recs := logs.Records()
	if len(recs) != 1 {
		t.Fatalf("got %d records, want 1", len(recs))
	}
	r := recs[0]
	if r.Level != slog.LevelInfo || r.Message != "handled" || r.Time.IsZero() {
		t.Errorf("got level %v message %q time %v", r.Level, r.Message, r.Time)
	}

	var keys []string
	for _, a := range r.Attrs() {
		keys = append(keys, a.Key)
	}
	want := "svc req.id req.took req.ok req.err req.lazy req.lg.n req.lg.inner req.meta.k req.inlined req.svc"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("attr keys:\n got %s\nwant %s", got, want)
	}

	for key, want := range map[string]any{
		"svc":          "books",
		"req.id":       int64(7),
		"req.took":     3 * time.Second,
		"req.ok":       true,
		"req.err":      boom,
		"req.lazy":     "resolved",
		"req.lg.inner": "deep",
		"req.svc":      "again",
	} {
		if got := r.Value(key); got != want {
			t.Errorf("Value(%q) = %#v, want %#v", key, got, want)
		}
	}
	if v, ok := r.Lookup("req.id"); !ok || v.Kind() != slog.KindInt64 {
		t.Errorf("Lookup(req.id) = %v, %v; want an Int64 value", v, ok)
	}
	if v, ok := r.Lookup("nope"); ok {
		t.Errorf("Lookup(nope) = %v, true; want false", v)
	}
	if got := r.Value("req.meta.empty"); got != nil {
		t.Errorf("empty group kept: %v", got)
	}
}

func TestRecordLookupLastWins(t *testing.T) {
	logs := logcapture.New(t)
	logs.Logger().With("k", "first").Info("m", "k", "second")
	if got := logs.Records()[0].Value("k"); got != "second" {
		t.Errorf("Value(k) = %v, want second", got)
	}
}

func TestRecordSource(t *testing.T) {
	logs := logcapture.New(t)
	logs.Logger().Info("here")
	src := logs.Records()[0].Source()
	if src == nil {
		t.Fatal("Source() = nil for a record logged through a Logger")
	}
	if !strings.HasSuffix(src.File, "record_test.go") || !strings.HasSuffix(src.Function, "TestRecordSource") || src.Line == 0 {
		t.Errorf("Source() = %+v, want this test", src)
	}

	if err := logs.Handle(context.Background(), slog.NewRecord(time.Time{}, slog.LevelInfo, "no pc", 0)); err != nil {
		t.Fatal(err)
	}
	if src := logs.Records()[1].Source(); src != nil {
		t.Errorf("Source() = %+v for a record without a PC, want nil", src)
	}
}

func TestRecordStack(t *testing.T) {
	logs := logcapture.New(t)
	l := logs.Logger()
	l.Error("string", "stack", "goroutine 1 [running]:\nmain.f()")
	l.Error("bytes", "stack", []byte("goroutine 2 [running]:\nmain.g()"))
	l.Error("grouped", slog.Group("panic", slog.String("stack", "goroutine 3")))
	l.Error("none")

	for _, tc := range []struct{ msg, want string }{
		{"string", "goroutine 1 [running]:\nmain.f()"},
		{"bytes", "goroutine 2 [running]:\nmain.g()"},
		{"grouped", "goroutine 3"},
		{"none", ""},
	} {
		r := logs.Records(logcapture.Message(tc.msg))[0]
		if got := r.Stack(); got != tc.want {
			t.Errorf("%s: Stack() = %q, want %q", tc.msg, got, tc.want)
		}
	}
}

func TestRecordString(t *testing.T) {
	logs := logcapture.New(t)
	r := slog.NewRecord(time.Now(), slog.LevelError, "tool handler panicked", 0)
	r.AddAttrs(slog.String("tool", "explode"), slog.String("panic", "two words"), slog.Int("n", 3),
		slog.String("empty", ""), slog.String("stack", "goroutine 7 [running]:\nmain.explode()\n"))
	if err := logs.Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	want := `ERROR tool handler panicked tool=explode panic="two words" n=3 empty=""
    stack:
        goroutine 7 [running]:
        main.explode()`
	if got := logs.Records()[0].String(); got != want {
		t.Errorf("String():\n%s\nwant:\n%s", got, want)
	}
	if got := logs.String(); got != want+"\n" {
		t.Errorf("Recorder.String():\n%s\nwant:\n%s", got, want)
	}
}

func TestRecordStringSource(t *testing.T) {
	logs := logcapture.New(t)
	logs.Logger().Warn("slow", "ms", 900)
	got := logs.Records()[0].String()
	if !strings.HasPrefix(got, "WARN  slow ms=900 (record_test.go:") {
		t.Errorf("String() = %q, want the level, message, attrs and source", got)
	}
}

func TestRecordsAreSnapshots(t *testing.T) {
	logs := logcapture.New(t)
	logs.Logger().Info("one", "k", 1)
	before := logs.Records()
	logs.Clear()
	logs.Logger().Info("two", "k", 2)
	if before[0].Message != "one" || before[0].Value("k") != int64(1) {
		t.Errorf("a returned record changed after Clear: %v", before[0])
	}
}
