package mcptest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/leak"
)

// testCensus is a census of its own whose connections the collector may
// clear from the first: it waits for the self-check, which the tests'
// expectations count on, where the binary's census does not.
func testCensus() *leak.Census {
	c := leak.New()
	c.Collector = func(bool) bool { return leak.RuntimeKeepsLabels() }
	return c
}

// deferredCensus reads only when a check asks for it or a connection's leak
// wait is over: what the test binary's census does when the process has
// many goroutines.
func deferredCensus() *leak.Census {
	c := testCensus()
	c.Cheap, c.MaxDelay = 0, time.Hour
	return c
}

// leakyTest runs a fake test whose connection to srv (a spawnServer) calls
// the tool that leaves a goroutine running.
func leakyTest(t *testing.T, srv *fakeServer, opts ...Option) *fakeTB {
	return runFake(t, func(tb testing.TB) {
		c := Connect(tb, srv, opts...)
		_, err := c.CallTool(tb.Context(), "spawn", nil)
		require.NoError(tb, err)
	})
}

// onlyWaiting returns the one connection waiting in cs.
func onlyWaiting(t *testing.T, cs *leak.Census) leak.Pending {
	t.Helper()
	pending := cs.Pending()
	require.Len(t, pending, 1)
	return pending[0]
}

// waiting reports whether the connection id waits in cs.
func waiting(cs *leak.Census, id uint64) bool {
	return slices.ContainsFunc(cs.Pending(), func(p leak.Pending) bool { return p.ID == id })
}

// In a large suite a connection's leak check waits for a census; the leak is
// then reported by the test whose cleanup made the census, naming the test
// that leaked and the leaked goroutine's stack.
func TestLeakFoundLaterNamesTheTestThatLeaked(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	srv := spawnServer(release)
	cs := deferredCensus()
	withCensus := func(c *config) { c.knobs.census = cs }

	leaky := leakyTest(t, srv, withCensus, func(c *config) { c.leakWait = time.Millisecond })
	leaky.expectPass(t) // its check is still to come
	leaked := onlyWaiting(t, cs)
	// Let the connection's own goroutines end, so that the report is only
	// the leaked one's, and its wait pass, so that the report is due.
	require.Eventually(t, func() bool {
		groups := leak.Running(leaked.Label, nil)
		return len(groups) == 1 && groups[0].Count == 1 && time.Since(leaked.Closed) > leaked.Wait
	}, 10*time.Second, time.Millisecond)

	later := runFake(t, func(tb testing.TB) {
		Connect(tb, probeServer(), withCensus, withLeakWait(leakedWait))
	})
	later.expectFailure(t,
		"goroutine leak in a connection of "+leaky.Name()+", a test that has ended",
		"1 goroutine(s) started by the connection", "mcptest.blockForever",
		"Run "+leaky.Name()+" on its own", "mcptest.IgnoreLeaks")
	assert.Empty(t, cs.Pending(), "every connection waiting was checked")
}

// Clean connections leave nothing behind in the census, read or not.
func TestCensusForgetsCleanConnections(t *testing.T) {
	t.Parallel()
	cs := deferredCensus()
	withCensus := func(c *config) { c.knobs.census = cs }
	for range 3 {
		runFake(t, func(tb testing.TB) { Connect(tb, probeServer(), withCensus) }).expectPass(t)
	}
	// On a loaded machine the first connections' goroutines may still be
	// ending: a read made then would rightly keep them waiting.
	require.Eventually(t, func() bool {
		for _, p := range cs.Pending() {
			if len(leak.Running(p.Label, nil)) > 0 {
				return false
			}
		}
		return true
	}, 10*time.Second, time.Millisecond)
	// This one reads at once, for every connection waiting.
	runFake(t, func(tb testing.TB) { Connect(tb, probeServer(), withCensus, withLeakWait(defaultLeakWait)) }).expectPass(t)
	assert.Empty(t, cs.Pending())
}

// waitForLeaks polls until no goroutine carrying the label value is left or
// the time is up, and returns a report of what was left ("" when nothing).
// The wait is not a timing assertion: it only bounds how long a correct
// program may take to let its goroutines finish after Close.
func waitForLeaks(ctx context.Context, value string, ignore []string, limit time.Duration) string {
	c := leak.New()
	own, _ := c.Check(ctx, value, leak.Check{Ignore: ignore, Wait: limit}, true)
	return own.Text
}

// requireCollected runs the collector until the census has no connection
// waiting, and checks that the collector, not a profile read, cleared them:
// nothing of the harness or the transports keeps a closed connection's
// label reachable.
func requireCollected(t *testing.T, cs *leak.Census, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second) // a hang guard only
	for {
		// Pending first: a connection the collector clears between the
		// two reads would otherwise be gone from Pending but not counted.
		waiting := len(cs.Pending())
		reads, collected := cs.Counts()
		if waiting == 0 {
			assert.Equal(t, 0, reads, "profile reads")
			assert.Equal(t, n, collected, "connections the collector cleared")
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connection(s) still waiting for the collector: something keeps their label reachable", waiting)
		}
		runtime.GC()
		runtime.Gosched() // let the cleanups run
	}
}

// A closed connection is cleared by the collector, with no profile read,
// whatever served it: a Server in both eras, a subprocess, an HTTP
// handler, a URL. (That the SDK adapters keep no label either is not
// tested here: the root module has no SDK.)
func TestClosedConnectionsAreCollected(t *testing.T) {
	t.Parallel()
	srv := probeServer()
	conns := map[string]func(tb testing.TB, opts ...Option) *client.Client{
		"memory": func(tb testing.TB, opts ...Option) *client.Client {
			return Connect(tb, srv, opts...)
		},
		"command": func(tb testing.TB, opts ...Option) *client.Client {
			return Connect(tb, Command(cmdServer(tb, "")), opts...)
		},
		"http": func(tb testing.TB, opts ...Option) *client.Client {
			return Connect(tb, Handler(srv.handler()), opts...)
		},
		"url": func(tb testing.TB, opts ...Option) *client.Client {
			hs := httptest.NewServer(srv.handler())
			tb.Cleanup(hs.Close)
			return Connect(tb, URL(hs.URL), opts...)
		},
	}
	for name, connect := range conns {
		for _, version := range []string{client.LatestVersion, client.LatestLegacyVersion} {
			t.Run(name+"/"+version, func(t *testing.T) {
				t.Parallel()
				cs := deferredCensus()
				var c *client.Client
				f := runFake(t, func(tb testing.TB) {
					c = connect(tb, func(c *config) { c.knobs.census = cs }, WithProtocolVersion(version))
					echoes(tb, c, "collected")
				})
				f.expectPass(t)
				requireCollected(t, cs, 1)
				// A test keeps its client, and the testing package the
				// test's cleanups (so the harness), until the test is over.
				runtime.KeepAlive(c)
				runtime.KeepAlive(f)
			})
		}
	}
	runtime.KeepAlive(srv) // the server outlives the connections, as a suite's does
}

// A leaked goroutine keeps its connection's label reachable: the collector
// clears the connection only once the goroutine has ended.
func TestLeakedConnectionWaitsForItsGoroutine(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := spawnServer(release)
	cs := deferredCensus()
	withCensus := func(c *config) { c.knobs.census = cs }
	leakyTest(t, srv, withCensus).expectPass(t) // its check is still to come
	leaky := onlyWaiting(t, cs).ID
	// A clean connection closed after it is collected...
	runFake(t, func(tb testing.TB) { Connect(tb, srv, withCensus) }).expectPass(t)
	require.Eventually(t, func() bool {
		runtime.GC()
		_, collected := cs.Counts()
		return collected == 1
	}, 10*time.Second, time.Millisecond)
	// ... the leaky one is not.
	assert.True(t, waiting(cs, leaky))
	close(release)
	requireCollected(t, cs, 2)
}

// scriptedCount makes a census count n goroutines when a connection is made
// and m after it has closed.
func scriptedCount(cs *leak.Census, n, m int) {
	calls := 0
	var mu sync.Mutex
	cs.Goroutines = func() int {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			return n
		}
		return m
	}
}

// With few goroutines in the process (serial tests), a connection that
// leaves more goroutines behind than there were when it was made is read for
// at once, and its leak fails its own test.
func TestLoneLeakFailsItsOwnTest(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	srv := spawnServer(release)
	cs := testCensus()
	scriptedCount(cs, 10, 11)
	// A leak wait, not an order to check at once (withLeakWait).
	f := leakyTest(t, srv, func(c *config) { c.knobs.census, c.leakWait = cs, leakedWait })
	f.expectFailure(t, "mcptest: goroutine leak: 1 goroutine(s) started by the connection", "mcptest.blockForever", "mcptest.IgnoreLeaks")
	assert.NotContains(t, f.output(), "a test that has ended")
	assert.Empty(t, cs.Pending())
}

// With other connections made or closed while it was open, a connection's
// count of goroutines says nothing: where reading is cheap and no other
// connection is open, it is read for at once, and its leak fails its own
// test even when the count hides it.
func TestConnectionAmongOthersIsReadAtOnce(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	srv := spawnServer(release)
	cs := testCensus()
	scriptedCount(cs, 10, 10) // the other connection's end hides the leak
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, srv, func(c *config) { c.knobs.census, c.leakWait = cs, leakedWait })
		_, err := c.CallTool(tb.Context(), "spawn", nil)
		require.NoError(tb, err)
		Connect(tb, probeServer(), WithoutLeakCheck(), func(c *config) { c.knobs.census = cs })
	})
	f.expectFailure(t, "mcptest: goroutine leak: 1 goroutine(s) started by the connection", "mcptest.blockForever")
	assert.NotContains(t, f.output(), "a test that has ended")
}

// A lone connection that leaves no more goroutines than there were is left
// to the collector: no profile read.
func TestLoneCleanConnectionIsNotRead(t *testing.T) {
	t.Parallel()
	cs := testCensus()
	scriptedCount(cs, 10, 10)
	var c *client.Client
	f := runFake(t, func(tb testing.TB) {
		c = Connect(tb, probeServer(), func(c *config) { c.knobs.census = cs })
		echoes(tb, c, "alone")
	})
	f.expectPass(t)
	requireCollected(t, cs, 1)
	runtime.KeepAlive(c)
	runtime.KeepAlive(f)
}

// A connection whose label something other than a goroutine keeps (here a
// server that keeps a handler's context) is cleared by the profile read
// made once it is due.
func TestKeptLabelIsClearedByARead(t *testing.T) {
	t.Parallel()
	kept := make(chan context.Context, 1)
	srv := probeServer(newTool("keep", func(ctx context.Context, _ *fakeCall) (*fakeResult, error) {
		kept <- ctx
		return fakeText(""), nil
	}))
	cs := deferredCensus()
	cs.MaxDelay = time.Millisecond
	withCensus := func(c *config) { c.knobs.census = cs }
	runFake(t, func(tb testing.TB) {
		c := Connect(tb, srv, withCensus)
		_, err := c.CallTool(tb.Context(), "keep", nil)
		require.NoError(tb, err)
	}).expectPass(t)
	ctx := <-kept
	first := onlyWaiting(t, cs)
	// Once it is due, and its goroutines have ended, the next
	// connection's check reads, and finds it clean.
	require.Eventually(t, func() bool {
		return time.Now().After(first.Due) && len(leak.Running(first.Label, nil)) == 0
	}, 10*time.Second, time.Millisecond)
	runFake(t, func(tb testing.TB) { Connect(tb, srv, withCensus) }).expectPass(t)
	assert.False(t, waiting(cs, first.ID))
	reads, _ := cs.Counts()
	assert.Equal(t, 1, reads)
	runtime.KeepAlive(ctx)
}

// TestChildLeaks leaks goroutines on purpose, in a child process run by
// TestSerialTestFailsByItselfWhenItLeaks: its subtests do not run in
// parallel.
func TestChildLeaks(t *testing.T) {
	if os.Getenv("MCPTEST_SERIAL_CHILD") != "1" {
		t.Skip("run by TestSerialTestFailsByItselfWhenItLeaks")
	}
	release := make(chan struct{})
	defer close(release)
	srv := spawnServer(release)
	leak := func(t *testing.T) {
		// The leak wait is shortened; the check is the default one.
		c := Connect(t, srv, func(c *config) { c.leakWait = leakedWait })
		_, err := c.CallTool(t.Context(), "spawn", nil)
		require.NoError(t, err)
	}
	// First, so that no goroutine of an earlier test or connection is still
	// exiting while it runs, which would hide the leaked one from the count.
	t.Run("alone", leak)
	for i := range 3 {
		t.Run(fmt.Sprint("clean", i), func(t *testing.T) { echoes(t, Connect(t, srv), "clean") })
	}
	t.Run("among-others", func(t *testing.T) {
		echoes(t, Connect(t, srv), "open")
		leak(t)
	})
}

// A test that leaks, in a binary whose tests do not run in parallel, fails
// by itself: alone, because it leaves more goroutines than there were when
// it connected, and among its own other connections, because reading is
// cheap.
func TestSerialTestFailsByItselfWhenItLeaks(t *testing.T) {
	if os.Getenv("MCPTEST_SERIAL_CHILD") == "1" {
		t.Skip("the child runs only TestChildLeaks")
	}
	t.Parallel()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChildLeaks$", "-test.v")
	cmd.Env = append(os.Environ(), "MCPTEST_SERIAL_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the child passed; want it to fail:\n%s", out)
	for _, want := range []string{
		"--- PASS: TestChildLeaks/clean2",
		"--- FAIL: TestChildLeaks/alone",
		"--- FAIL: TestChildLeaks/among-others",
	} {
		assert.Contains(t, string(out), want)
	}
	assert.Equal(t, 2, strings.Count(string(out), "mcptest: goroutine leak: 1 goroutine(s) started by the connection"), "%s", out)
	assert.NotContains(t, string(out), "a test that has ended")
}

// Without the collector (a runtime that failed the self-check), connections
// are cleared by profile reads alone.
func TestCensusWithoutTheCollectorReads(t *testing.T) {
	t.Parallel()
	cs := deferredCensus()
	cs.MaxDelay = time.Millisecond
	cs.Collector = func(bool) bool { return false }
	withCensus := func(c *config) { c.knobs.census = cs }
	runFake(t, func(tb testing.TB) { echoes(tb, Connect(tb, probeServer(), withCensus), "first") }).expectPass(t)
	first := onlyWaiting(t, cs)
	runtime.GC()
	runtime.GC()
	require.Eventually(t, func() bool {
		return time.Now().After(first.Due) && len(leak.Running(first.Label, nil)) == 0
	}, 10*time.Second, time.Millisecond)
	assert.True(t, waiting(cs, first.ID), "cleared without the collector or a read")
	runFake(t, func(tb testing.TB) { Connect(tb, probeServer(), withCensus) }).expectPass(t)
	assert.False(t, waiting(cs, first.ID))
	reads, collected := cs.Counts()
	assert.Equal(t, 1, reads)
	assert.Equal(t, 0, collected)
}

// Where reading is cheap, a connection that closes while another is open
// is not read for at once: the read made once none is open reads for every
// connection waiting, waiting out a leak, so that no leak is left unread
// when a suite of parallel tests ends. The leak is reported by the test
// that made the read, naming the test that leaked.
func TestLeakLeftWaitingIsReadOnceNoConnectionIsOpen(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	srv := spawnServer(release)
	cs := testCensus()
	scriptedCount(cs, 10, 10)
	withCensus := func(c *config) { c.knobs.census, c.leakWait = cs, 200*time.Millisecond }
	open, leaked := make(chan struct{}), make(chan *fakeTB)
	go func() {
		<-open
		leaked <- leakyTest(t, srv, withCensus)
	}()
	var leaky *fakeTB
	last := runFake(t, func(tb testing.TB) {
		Connect(tb, probeServer(), withCensus)
		close(open)
		leaky = <-leaked
		assert.Len(t, cs.Pending(), 1, "the leaky connection waits: another was open when it closed")
	})
	leaky.expectPass(t)
	last.expectFailure(t, "goroutine leak in a connection of "+leaky.Name()+", a test that has ended", "mcptest.blockForever")
	assert.Empty(t, cs.Pending())
}
