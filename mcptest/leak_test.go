package mcptest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/gosdk"
)

// deferredCensus never reads unless a check asks for it: what the test
// binary's census does when the process has many goroutines.
func deferredCensus() *census {
	c := newCensus()
	c.cheap, c.creditPerCheck, c.maxDelay = 0, 0, time.Hour
	return c
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
	withCensus := func(c *config) { c.census = cs }

	leaky := runFake(t, func(tb testing.TB) {
		c := Connect(tb, gosdk.Server(srv), withCensus, func(c *config) { c.leakWait = time.Millisecond })
		_, err := c.CallTool(tb.Context(), "spawn", nil)
		require.NoError(tb, err)
	})
	leaky.expectPass(t) // its check is still to come
	cs.mu.Lock()
	require.Len(t, cs.pending, 1)
	var label string
	for label = range cs.pending {
	}
	cs.mu.Unlock()
	// Let the connection's own goroutines end, so that the report is only
	// the leaked one's.
	require.Eventually(t, func() bool {
		groups := labelledGoroutines(label, nil)
		return len(groups) == 1 && groups[0].count == 1
	}, 10*time.Second, time.Millisecond)

	later := runFake(t, func(tb testing.TB) {
		Connect(tb, gosdk.Server(probeServer(nil)), withCensus, withLeakWait(leakedWait))
	})
	later.expectFailure(t,
		"goroutine leak in a connection of "+leaky.Name()+", a test that has ended",
		"1 goroutine(s) started by the connection", "mcptest.blockForever",
		"Run "+leaky.Name()+" on its own", "mcptest.IgnoreLeaks")
	cs.mu.Lock()
	assert.Empty(t, cs.pending, "every connection waiting was checked")
	cs.mu.Unlock()
}

// Clean connections leave nothing behind in the census, read or not.
func TestCensusForgetsCleanConnections(t *testing.T) {
	t.Parallel()
	cs := deferredCensus()
	withCensus := func(c *config) { c.census = cs }
	for range 3 {
		runFake(t, func(tb testing.TB) { Connect(tb, goSDKEcho(), withCensus) }).expectPass(t)
	}
	runFake(t, func(tb testing.TB) { Connect(tb, goSDKEcho(), withCensus, withLeakWait(defaultLeakWait)) }).expectPass(t)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	assert.Empty(t, cs.pending)
}

// labelledGoroutines returns the goroutines carrying the connection label
// value, except those with an ignored function anywhere in their stack.
func labelledGoroutines(value string, ignore []string) []goroutineGroup {
	return filterIgnored(readLabelled()[value], ignore)
}

// waitForLeaks polls until no goroutine carrying the label value is left or
// the time is up, and returns a report of what was left ("" when nothing).
// The wait is not a timing assertion: it only bounds how long a correct
// program may take to let its goroutines finish after Close.
func waitForLeaks(ctx context.Context, value string, ignore []string, limit time.Duration) string {
	c := newCensus()
	own, _ := c.check(ctx, leakCheck{label: value, ignore: ignore, wait: limit}, true)
	return own
}
