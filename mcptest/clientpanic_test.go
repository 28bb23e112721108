package mcptest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
)

// A panic in the test's own client callback fails the test with the panic
// and its stack; the process lives, the server hears -32603, and the test's
// own OnPanic still runs.
func TestClientCallbackPanicFailsTest(t *testing.T) {
	t.Parallel()
	var seen *client.PanicError
	var toolErr string
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, askingServer(), WithProtocolVersion(client.LatestLegacyVersion), WithClient(client.Options{
			ListRoots: func(context.Context) ([]*client.Root, error) { panic("roots on fire") },
			OnPanic:   func(p *client.PanicError) { seen = p },
		}))
		res, err := c.CallTool(tb.Context(), "where", nil)
		require.NoError(tb, err)
		toolErr = res.Text()
	})
	f.expectFailure(t,
		"mcptest: client callback ListRoots panicked: roots on fire",
		"answered the server with error -32603",
		"panic(",
		"TestClientCallbackPanicFailsTest",
	)
	require.NotNil(t, seen, "the test's own OnPanic ran")
	assert.Equal(t, "ListRoots", seen.Callback)
	assert.Contains(t, toolErr, "client callback ListRoots panicked: roots on fire", "the server got the client's error")

	// Under WithoutCrashReports: one line, and the test goes on.
	f = runFake(t, func(tb testing.TB) {
		c := Connect(tb, askingServer(), WithProtocolVersion(client.LatestLegacyVersion), WithoutCrashReports(), WithClient(client.Options{
			ListRoots: func(context.Context) ([]*client.Root, error) { panic("roots on fire") },
		}))
		_, err := c.CallTool(tb.Context(), "where", nil)
		require.NoError(tb, err)
	})
	f.expectPass(t)
	assert.Contains(t, f.output(), "the client's callback ListRoots panicked: roots on fire (recovered; the test goes on because of mcptest.WithoutCrashReports)")
}
