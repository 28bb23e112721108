package mcptest

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// bubbleBound is the real time a test of the fake clock may take: once
// nothing in a bubble can run, its clock jumps, so each takes milliseconds.
const bubbleBound = 30 * time.Second

// inSynctest runs f in a synctest bubble and returns the real time it
// took. A goroutine of the bubble blocked on something outside it (a
// mutex, I/O) stops the fake clock, and the test would hang; so past
// bubbleBound the binary is ended with every goroutine's stack instead.
func inSynctest(t *testing.T, f func(t *testing.T)) time.Duration {
	t.Helper()
	start := time.Now()
	watchdog := time.AfterFunc(bubbleBound, func() {
		debug.SetTraceback("all")
		panic(fmt.Sprintf("%s: the synctest bubble has not finished within %v of real time", t.Name(), bubbleBound))
	})
	defer watchdog.Stop()
	synctest.Test(t, f)
	took := time.Since(start)
	t.Logf("the bubble took %v of real time", took)
	return took
}

// bubbleTB is a fake test in a bubble: the fake has no Deadline, the
// harness's sign of a bubble, so it lends the bubble's.
type bubbleTB struct {
	testing.TB
	bubble *testing.T
}

func (b bubbleTB) Deadline() (time.Time, bool) { return b.bubble.Deadline() }

// deadlinePanics is a test whose Deadline panics for another reason.
type deadlinePanics struct{ testing.TB }

func (deadlinePanics) Deadline() (time.Time, bool) { panic("boom") }

// The harness knows a bubble by the panic of its t.Deadline, and lets any
// other panic go on. Should a Go release stop panicking there, or word the
// panic otherwise, this test fails.
func TestBubbleIsDetected(t *testing.T) {
	assert.False(t, inBubble(t), "outside a bubble")
	assert.PanicsWithValue(t, "boom", func() { inBubble(deadlinePanics{t}) }, "another panic goes on")
	var in bool
	inSynctest(t, func(t *testing.T) { in = inBubble(t) })
	assert.True(t, in, "inside a bubble")
}

// An hour-long tool answers at once on the bubble's clock, and the
// cleanup (close, Serve, the leak check) passes inside the bubble.
func TestConnectInSynctestBubble(t *testing.T) {
	t.Parallel()
	took := inSynctest(t, func(t *testing.T) {
		start := time.Now()
		c := Connect(t, newScriptedServer(), WithClient(client.Options{Timeout: 2 * time.Hour}))
		res, err := c.CallTool(t.Context(), "sleep", nil)
		require.NoError(t, err)
		Assert(t).Text(res, "slept 1h0m0s")
		assert.Equal(t, time.Hour, time.Since(start), "on the bubble's clock")
	})
	assert.Less(t, took, 5*time.Second)
}

// The request timeout runs on the bubble's clock: the default 10 s fails a
// tool that never answers at once, naming the method.
func TestTimeoutInSynctestBubble(t *testing.T) {
	t.Parallel()
	inSynctest(t, func(t *testing.T) {
		c := Connect(t, newScriptedServer())
		start := time.Now()
		_, err := c.CallTool(t.Context(), "hang", nil)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.ErrorContains(t, err, `tools/call "hang": no response within 10s`)
		assert.Equal(t, defaultTimeout, time.Since(start), "on the bubble's clock")
	})
}

// leakyServer is a scripted server whose Serve leaves a goroutine blocked
// until release is closed.
type leakyServer struct {
	*scriptedServer
	release chan struct{}
}

func (s leakyServer) Serve(ctx context.Context, conn *memtransport.Conn) error {
	go leakInBubble(s.release)
	return s.scriptedServer.Serve(ctx, conn)
}

func leakInBubble(release <-chan struct{}) { <-release }

// In a bubble the leak check reads for its connection alone, and its wait
// is on the bubble's clock: a leak fails its own test at once.
func TestLeakInSynctestBubbleFailsTheTest(t *testing.T) {
	t.Parallel()
	inSynctest(t, func(t *testing.T) {
		release := make(chan struct{})
		defer close(release) // else the bubble ends deadlocked
		f := runFake(t, func(tb testing.TB) {
			Connect(bubbleTB{tb, t}, leakyServer{newScriptedServer(), release})
		})
		f.expectFailure(t, "goroutine leak", "mcptest.leakInBubble")
		if strings.Contains(f.output(), "a test that has ended") {
			t.Errorf("the leak was reported as another test's:\n%s", f.output())
		}
	})
}

// CheckServer runs its checks in a bubble, on t itself (t.Run panics
// there), every tool call on the bubble's clock.
func TestCheckServerInSynctestBubble(t *testing.T) {
	t.Parallel()
	inSynctest(t, func(t *testing.T) {
		start := time.Now()
		CheckServer(t, newScriptedServer(),
			WithClient(client.Options{Timeout: 2 * time.Hour}),
			SkipChecks("tools/calls/hang")) // it never answers
		assert.GreaterOrEqual(t, time.Since(start), time.Hour, "the sleep tool was called on the bubble's clock")
	})
}

// A pattern Go's RE2 cannot parse runs in regexp2, whose match timeout
// starts a clock goroutine; started in a bubble, it outlives the bubble's
// test, and synctest.Test panics ("blocked goroutines remain"). In a bubble
// the checks match without a timeout (a match's CPU time never moves the
// bubble's clock anyway). Not parallel: the clock must be stopped when the
// bubble starts, as it is in a test binary that has not matched such a
// pattern for a second.
func TestCheckServerECMAPatternInSynctestBubble(t *testing.T) {
	regexp2.StopTimeoutClock()
	srv := schemaServer(map[string]string{
		"user": `{"type":"object","properties":{"name":{"type":"string","pattern":"^(?!admin$)[a-z]+$"}},"required":["name"]}`,
	})
	inSynctest(t, func(t *testing.T) {
		// The server does not validate inputs: this test is about the pattern.
		CheckServer(t, srv, SkipChecks("resources", "prompts", "tools/invalid-arguments"))
	})
}

// Issue 31: a tool that is slow by design but reports progress is not a
// hang: each progress notification gives it the timeout again (the
// protocol's "Timeouts": progress MAY reset it), up to six timeouts in all.
// On the bubble's clock, so the waits cost no real time.
func TestCheckServerProgressResetsTheTimeout(t *testing.T) {
	t.Parallel()
	work := func(steps int, every time.Duration, report bool) fakeHandler {
		return func(ctx context.Context, c *fakeCall) (*fakeResult, error) {
			for i := range steps {
				select {
				case <-time.After(every):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				if report {
					_ = c.progress(ctx, float64(i+1), float64(steps))
				}
			}
			return fakeText("done"), nil
		}
	}
	srv := probeServer(
		newTool("slow_reporting", work(10, 3*time.Second, true)),    // 30 s, progress every 3 s
		newTool("slow_silent", work(10, 3*time.Second, false)),      // 30 s, nothing said
		newTool("endless_reporting", work(1000, time.Second, true)), // past any bound
	)
	results := map[string]servercheck.Result{}
	inSynctest(t, func(t *testing.T) {
		err := servercheck.Run(t.Context(), memDialer(srv), &servercheck.Options{
			Run: "tools/calls", Calls: 1, Timeout: 10 * time.Second,
			OnResult: func(r servercheck.Result) { results[r.Name] = r },
		})
		assert.Error(t, err)
	})
	assert.Equal(t, servercheck.Pass, results["tools/calls/slow_reporting"].Status, "%s", results["tools/calls/slow_reporting"])
	silent := results["tools/calls/slow_silent"]
	assert.Equal(t, servercheck.Fail, silent.Status, "%s", silent)
	assert.Contains(t, silent.Detail, "no answer within 10s\n")
	assert.Contains(t, silent.Detail, `(basic/lifecycle, "Timeouts": progress MAY reset it, up to a maximum)`)
	// Issue 39: a tool that keeps reporting progress is working (mcp-go's
	// everything longRunningOperation): never failed for taking long; the
	// check says how long it ran, and that its result was not seen.
	endless := results["tools/calls/endless_reporting"]
	assert.Equal(t, servercheck.Skip, endless.Status, "%s", endless)
	assert.Regexp(t, `the call with arguments \{\} was still at work after 1m0s, reporting progress all along \(\d+ notification\(s\)\)`, endless.Detail)
	assert.Contains(t, endless.Detail, "a tool slow by design, not a hang; its result was not seen")
}

// Issue 31: a server that ignores notifications/cancelled, going on with
// its progress and then sending the result, is warned about (the receiver
// SHOULD stop and SHOULD NOT answer); one that stops passes. The tool that
// reported progress in tools/calls is the one cancelled, while it works.
func TestCheckServerCancellationIgnored(t *testing.T) {
	t.Parallel()
	for _, ignore := range []bool{false, true} {
		srv := probeServer(newTool("work", func(ctx context.Context, c *fakeCall) (*fakeResult, error) {
			for i := range 6 {
				select {
				case <-time.After(time.Second):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				_ = c.progress(ctx, float64(i+1), 6)
			}
			return fakeText("done"), nil
		}))
		srv.ignoreCancel = ignore
		results := map[string]servercheck.Result{}
		inSynctest(t, func(t *testing.T) {
			_ = servercheck.Run(t.Context(), memDialer(srv), &servercheck.Options{
				Run: "tools/(calls|cancellation)", Calls: 1, Timeout: 10 * time.Second,
				OnResult: func(r servercheck.Result) { results[r.Name] = r },
			})
		})
		got := results["tools/cancellation"]
		if !ignore {
			// Issue 39: no progress after the cancellation is no evidence
			// that the server stopped, only that none was seen in the window:
			// a skip that says so, never a pass one run and a warning the next.
			assert.Equal(t, servercheck.Skip, got.Status, "%s", got)
			assert.Contains(t, got.Detail, "no evidence either way that it stopped")
			continue
		}
		assert.Equal(t, servercheck.Warn, got.Status, "%s", got)
		assert.Contains(t, got.Detail, `the client cancelled its tools/call "work"`)
		assert.Contains(t, got.Detail, "more progress notification(s) and the call's result for the cancelled call")
	}
}

// Issue 39: with the calls of the only tool that reports progress left out,
// nothing shows a call at work, so nothing seen is cancelled: a skip that
// says so, not a pass.
func TestCheckServerCancellationWithTheSlowToolLeftOut(t *testing.T) {
	t.Parallel()
	srv := probeServer(newTool("work", func(ctx context.Context, c *fakeCall) (*fakeResult, error) {
		for i := range 6 {
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			_ = c.progress(ctx, float64(i+1), 6)
		}
		return fakeText("done"), nil
	}))
	srv.ignoreCancel = true // a defect no check can see here
	results := map[string]servercheck.Result{}
	inSynctest(t, func(t *testing.T) {
		_ = servercheck.Run(t.Context(), memDialer(srv), &servercheck.Options{
			Run: "tools/(calls|cancellation)", Skip: []string{"tools/calls/work"}, Calls: 1, Timeout: 10 * time.Second,
			OnResult: func(r servercheck.Result) { results[r.Name] = r },
		})
	})
	got := results["tools/cancellation"]
	assert.Equal(t, servercheck.Skip, got.Status, "%s", got)
	assert.Contains(t, got.Detail, "no tool reported progress in tools/calls (where a tool left out by Options.Skip makes no call)")
}
