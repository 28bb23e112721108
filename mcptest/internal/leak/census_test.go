package leak

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// scriptedCount makes a census count n goroutines when a connection is made
// and m after it has closed.
func scriptedCount(cs *Census, n, m int) {
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

// The census's use of the collector rests on this runtime keeping a label's
// value reachable from the goroutines that carry it, and only from them:
// the self-check the census makes once per process must find that so.
func TestRuntimeKeepsLabelValuesOnlyWhileGoroutinesRun(t *testing.T) {
	t.Parallel()
	require.True(t, theSelfCheck.wait(), "the collector cleared a label still carried by a running goroutine, or never cleared it after the goroutine ended: the census cannot use the collector in this runtime")
}

// The self-check starts only once a leak check finds the process busy:
// more goroutines, or more connections waiting, than reading cheaply
// allows. A small test binary does without the collector and never pays
// for the check's forced collections, which goleak.VerifyTestMain waited
// out at exit. Once passed, the collector serves every check.
func TestSelfCheckWaitsForABusyProcess(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) (*selfCheck, *Census, func()) {
		sc := &selfCheck{done: make(chan struct{})}
		cs := New()
		cs.Cheap, cs.Collector = 4, sc.usable
		// No connection falls due for a read however slow the machine: a
		// read would empty the waiting list the test fills.
		cs.MaxDelay = time.Hour
		return sc, cs, func() {
			// A connection that started nothing, whose wait is not over.
			start := cs.Connecting()
			own, others := cs.Check(t.Context(), NewLabel(), Check{Test: t.Name(), Wait: time.Hour, Start: start}, false)
			assert.Empty(t, own.Text)
			assert.Empty(t, others)
		}
	}
	t.Run("goroutines", func(t *testing.T) {
		t.Parallel()
		sc, cs, connect := setup(t)
		scriptedCount(cs, 3, 3)
		connect()
		assert.False(t, closedWithin(sc.done, 100*time.Millisecond), "a check with few goroutines in the process started the self-check")
		scriptedCount(cs, cs.Cheap+1, cs.Cheap+1)
		connect()
		require.True(t, closedWithin(sc.done, 10*time.Second), "a check in a process with many goroutines did not start the self-check")
		assert.True(t, sc.ok)
		assert.True(t, sc.usable(false), "a passed self-check serves checks in a quiet process too")
	})
	t.Run("waiting", func(t *testing.T) {
		t.Parallel()
		sc, cs, connect := setup(t)
		scriptedCount(cs, 3, 3) // tests one after another, each leaving nothing: no read
		for range cs.Cheap {
			connect()
		}
		assert.False(t, closedWithin(sc.done, 100*time.Millisecond), "a check with few connections waiting started the self-check")
		connect()
		require.True(t, closedWithin(sc.done, 10*time.Second), "a check with many connections waiting did not start the self-check")
	})
}
