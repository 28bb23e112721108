package logcapture_test

import (
	"context"
	"fmt"
	"github.com/mcptestkit/mcptestkit/internal/faketb"
	"log"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcptestkit/mcptestkit/logcapture"
)

func TestQueries(t *testing.T) {
	logs := logcapture.New(t)
	l := logs.Logger()
	l.Debug("d")
	l.Info("i1", "k", 1)
	l.Warn("w")
	l.Info("i2", "k", 2)

	if got := logs.Count(); got != 4 {
		t.Errorf("Count() = %d, want 4", got)
	}
	if got := logs.Messages(); !slices.Equal(got, []string{"d", "i1", "w", "i2"}) {
		t.Errorf("Messages() = %q", got)
	}
	if got := logs.Messages(logcapture.Level(slog.LevelInfo)); !slices.Equal(got, []string{"i1", "i2"}) {
		t.Errorf("Messages(Level(INFO)) = %q", got)
	}
	if got := logs.Count(logcapture.Level(slog.LevelInfo), logcapture.Attr("k", 2)); got != 1 {
		t.Errorf("Count(INFO, k=2) = %d, want 1 (matchers combine with and)", got)
	}
	if got := logs.Records(logcapture.AtLeast(slog.LevelWarn)); len(got) != 1 || got[0].Message != "w" {
		t.Errorf("Records(AtLeast(WARN)) = %v", got)
	}
	logs.Clear()
	if got := logs.Count(); got != 0 {
		t.Errorf("Count() after Clear = %d", got)
	}
	l.Info("after")
	if got := logs.Messages(); !slices.Equal(got, []string{"after"}) {
		t.Errorf("Messages() after Clear = %q", got)
	}
}

func TestMinLevel(t *testing.T) {
	var lv slog.LevelVar
	lv.Set(slog.LevelWarn)
	logs := logcapture.New(t, logcapture.MinLevel(&lv))
	l := logs.Logger()
	l.Info("dropped")
	l.Warn("kept")
	lv.Set(slog.LevelDebug)
	l.Debug("kept too")
	if got := logs.Messages(); !slices.Equal(got, []string{"kept", "kept too"}) {
		t.Errorf("Messages() = %q", got)
	}
	if logcapture.New(t).Enabled(context.Background(), slog.Level(-100)) != true {
		t.Error("a recorder without MinLevel should keep every level")
	}
}

func TestStdLogger(t *testing.T) {
	logs := logcapture.New(t)
	logs.StdLogger(slog.LevelError).Printf("http: accept error: %s", "boom")
	r := logs.RequireLogged(t, logcapture.Level(slog.LevelError), logcapture.Message("http: accept error: boom"))
	if r.Source() != nil && !strings.HasSuffix(r.Source().File, "recorder_test.go") {
		t.Errorf("source = %v", r.Source())
	}
}

// TestCaptureDefault changes process-wide state, so it is not parallel.
func TestCaptureDefault(t *testing.T) {
	prev, prevW, prevFlags := slog.Default(), log.Writer(), log.Flags()

	ft := faketb.New(t, "fake")
	logs := logcapture.New(ft, logcapture.CaptureDefault())
	slog.Warn("from slog")
	log.Print("from log")
	if got := logs.Messages(); !slices.Equal(got, []string{"from slog", "from log"}) {
		t.Errorf("Messages() = %q", got)
	}
	ft.Finish()

	if slog.Default() != prev {
		t.Error("slog.Default() not restored")
	}
	if log.Writer() != prevW || log.Flags() != prevFlags {
		t.Error("the log package's writer or flags not restored")
	}
}

func TestFailureDump(t *testing.T) {
	const header = "----- Captured log -----"
	t.Run("failed", func(t *testing.T) {
		ft := faketb.Run(t, func(tb testing.TB) {
			logs := logcapture.New(tb)
			logs.Logger().Info("started", "port", 8080)
			logs.Logger().Error("tool handler panicked", "tool", "explode", "stack", "goroutine 9 [running]:\nmain.explode()")
			tb.Errorf("failing on purpose")
		})
		got := ft.Text()
		if n := strings.Count(got, header); n != 1 {
			t.Fatalf("dumped %d times, want 1: %q", n, got)
		}
		for _, want := range []string{
			"\nINFO  started port=8080 (recorder_test.go:",
			"\nERROR tool handler panicked tool=explode (recorder_test.go:",
			"\n    stack:\n        goroutine 9 [running]:\n        main.explode()",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("dump lacks %q:\n%s", want, got)
			}
		}
	})
	t.Run("passed", func(t *testing.T) {
		ft := faketb.Run(t, func(tb testing.TB) { logcapture.New(tb).Logger().Info("x") })
		if got := ft.Text(); got != "" {
			t.Errorf("dumped for a passing test: %q", got)
		}
	})
	t.Run("NoDump", func(t *testing.T) {
		ft := faketb.Run(t, func(tb testing.TB) {
			logcapture.New(tb, logcapture.NoDump()).Logger().Info("x")
			tb.Errorf("failing on purpose")
		})
		if got := ft.Text(); strings.Contains(got, header) {
			t.Errorf("NoDump still dumped: %q", got)
		}
	})
	t.Run("nothing captured", func(t *testing.T) {
		ft := faketb.Run(t, func(tb testing.TB) {
			logcapture.New(tb)
			tb.Errorf("failing on purpose")
		})
		if got := ft.Text(); strings.Contains(got, header) {
			t.Errorf("dumped an empty log: %q", got)
		}
	})
}

// TestFailureDumpInGoTest runs a deliberately failing test in a child process
// and checks that the real testing package prints the dump in its output.
func TestFailureDumpInGoTest(t *testing.T) {
	if os.Getenv("LOGCAPTURE_CHILD") == "1" {
		t.Skip("the child runs only TestChildFails")
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChildFails$", "-test.v")
	cmd.Env = append(os.Environ(), "LOGCAPTURE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child test passed; want it to fail:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestChildFails",
		"the child failed on purpose",
		"------------------------------ Captured log ------------------------------",
		"INFO  before the failure user=ada",
		"ERROR it broke",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child output lacks %q:\n%s", want, out)
		}
	}
	// The failing assertion is reported at the caller's line, not inside
	// logcapture.
	if !regexp.MustCompile(`recorder_test\.go:\d+: logcapture: want no record matching level == ERROR, got 1`).Match(out) {
		t.Errorf("the assertion failure does not point at the test's line:\n%s", out)
	}
	// So is the dump: at the line that called New, not inside logcapture.
	if !regexp.MustCompile(`recorder_test\.go:\d+: -+ Captured log`).Match(out) {
		t.Errorf("the dump does not point at the test's line:\n%s", out)
	}
}

func TestChildFails(t *testing.T) {
	if os.Getenv("LOGCAPTURE_CHILD") != "1" {
		t.Skip("run by TestFailureDumpInGoTest in a child process")
	}
	logs := logcapture.New(t)
	logs.Logger().Info("before the failure", "user", "ada")
	logs.Logger().Error("it broke")
	logs.AssertNone(t, logcapture.Level(slog.LevelError))
	t.Error("the child failed on purpose")
}

func TestWait(t *testing.T) {
	logs := logcapture.New(t)
	logs.Logger().Info("already here")
	if r, err := logs.Wait(t.Context(), logcapture.Message("already here")); err != nil || r.Message != "already here" {
		t.Fatalf("Wait for a present record = %v, %v", r, err)
	}

	start := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-start
		logs.Logger().Info("noise")
		logs.Logger().Info("late", "n", 2)
	}()
	close(start)
	r, err := logs.Wait(t.Context(), logcapture.Message("late"))
	<-done
	if err != nil || r.Value("n") != int64(2) {
		t.Fatalf("Wait = %v, %v", r, err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := logs.Wait(ctx, logcapture.Message("never")); err != context.Canceled {
		t.Errorf("Wait on a cancelled context = %v, want context.Canceled", err)
	}
}

// TestConcurrent logs from many goroutines through derived loggers while
// others query and clear; run it with -race.
func TestConcurrent(t *testing.T) {
	for i := range 4 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			logs := logcapture.New(t)
			const writers, each = 8, 200
			var wg sync.WaitGroup
			for w := range writers {
				wg.Go(func() {
					l := logs.Logger().With("writer", w).WithGroup("g")
					for j := range each {
						l.Info("msg", "j", j)
					}
				})
			}
			stop := make(chan struct{})
			var readers sync.WaitGroup
			readers.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
						_ = logs.Count(logcapture.Attr("writer", 3))
						_ = logs.String()
					}
				}
			})
			wg.Wait()
			close(stop)
			readers.Wait()
			if got := logs.Count(); got != writers*each {
				t.Errorf("Count() = %d, want %d", got, writers*each)
			}
			if got := logs.Count(logcapture.Attr("writer", 3), logcapture.Attr("g.j", each-1)); got != 1 {
				t.Errorf("Count(writer 3, last j) = %d, want 1", got)
			}
		})
	}
}

// The testing package keeps a finished test's cleanups, and so all they
// reference, until its parent test ends. The fake test keeps them the same
// way; the dump's cleanup must let go of the records once it has run.
func TestFinishedTestLetsGoOfItsRecords(t *testing.T) {
	t.Parallel()
	released := make(chan struct{})
	ft := faketb.Run(t, func(tb testing.TB) {
		logs := logcapture.New(tb)
		logs.Logger().Info("kept?")
		faketb.Watch(logs, released)
	})
	ft.ExpectPass(t)
	ft.ExpectLetGo(t, released, "the log recorder")
}

// A nil Option is ignored, so that an option can be chosen conditionally.
func TestNilOptionIgnored(t *testing.T) {
	var maybe logcapture.Option
	logs := logcapture.New(t, maybe, logcapture.MinLevel(slog.LevelWarn), nil)
	logs.Logger().Info("below the level")
	logs.Logger().Warn("kept")
	if got := logs.Records(); len(got) != 1 || got[0].Message != "kept" {
		t.Fatalf("records = %v, want only the WARN record", got)
	}
}
