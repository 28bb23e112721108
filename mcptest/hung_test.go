package mcptest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
)

// hungServer has a tool whose handler ignores its context and blocks until
// release is closed.
func hungServer(release <-chan struct{}) Server {
	return probeServer(newTool("hang", func(context.Context, *fakeCall) (*fakeResult, error) {
		blockForever(release)
		return nil, nil
	}))
}

// A handler that hangs costs its test about the connection's timeout: the
// call's, then one more for Serve (not a fixed 10s), and the leak check
// lists at once where the handler is stuck instead of waiting again.
func TestHungHandlerCostsAboutItsTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	start := time.Now()
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, hungServer(release), WithClient(client.Options{Timeout: time.Second}))
		_, err := c.CallTool(tb.Context(), "hang", nil)
		require.NoError(tb, err)
	})
	t.Logf("the fake test took %v", time.Since(start))
	f.expectFailure(t,
		`tools/call "hang": no response within 1s`,
		"Serve did not return within 1s after the connection closed, nor 500ms after its context was cancelled",
		"goroutine leak", "mcptest.blockForever", "hungServer", // the handler's closure, wherever inlined
		"transcript of the connection", `no response to tools/call "hang"`)
}

// A test still waiting shortly before go test -timeout ends the binary is
// stopped by the harness, so that it prints its report (the testing package
// prints nothing of a test the timeout kills).
func TestDeadlineStopsTheConnectionAndReports(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	start := time.Now()
	deadline := func(c *config) { c.knobs.deadline = start.Add(4 * time.Second) }
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, hungServer(release), deadline) // the default timeout: 10s, past the deadline
		_, err := c.CallTool(tb.Context(), "hang", nil)
		require.NoError(tb, err)
	})
	took := time.Since(start)
	t.Logf("the fake test took %v", took)
	f.expectFailure(t,
		"go test -timeout ends the test binary in",
		"the harness closes the connection now",
		`tools/call "hang"`,
		"mcptest.blockForever",
		"transcript of the connection")
	require.Less(t, took, 4*time.Second, "the report is out before the deadline")
}
