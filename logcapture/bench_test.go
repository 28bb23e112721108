package logcapture_test

import (
	"log/slog"
	"testing"

	"github.com/mcptestkit/mcptestkit/logcapture"
)

func BenchmarkHandle(b *testing.B) {
	logs := logcapture.New(b, logcapture.NoDump())
	l := logs.Logger().With("session", "s1").WithGroup("req")
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		l.Info("call", "method", "tools/call", "id", 7)
		// A test keeps hundreds of records, not millions: clearing keeps the
		// benchmark about handling rather than about growing one huge slice.
		if n++; n%1024 == 0 {
			logs.Clear()
		}
	}
}

func BenchmarkAssertNone(b *testing.B) {
	logs := logcapture.New(b, logcapture.NoDump())
	for i := range 1000 {
		logs.Logger().Info("call", "id", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		logs.AssertNone(b, logcapture.AtLeast(slog.LevelWarn))
	}
}
