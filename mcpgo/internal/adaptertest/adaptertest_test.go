package adaptertest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/internal/faketb"
	"github.com/mcptestkit/mcptestkit/mcpgo/internal/adaptertest"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// AssertNoPanic reads what the server's last-resort recovery reported
// through the reporter Serve gave it: nothing passes, a report fails once.
func TestAssertNoPanic(t *testing.T) {
	t.Parallel()
	panicked := make(chan struct{})
	sv := adaptertest.Serve(t, mcptest.ServerFunc(func(ctx context.Context, conn *memtransport.Conn) error {
		<-panicked
		crash.Deliver(ctx, crash.Report{Method: "tools/call", Name: "boom", Value: "kaboom"})
		<-conn.Done() // the client end closed
		return nil
	}))

	faketb.Run(t, func(tb testing.TB) { assert.True(t, sv.AssertNoPanic(tb)) }).ExpectPass(t)

	close(panicked)
	r := <-sv.Reports
	sv.Reports <- r // as if not yet read
	faketb.Run(t, func(tb testing.TB) { assert.False(t, sv.AssertNoPanic(tb)) }).
		ExpectFailure(t, `the adapter's last-resort recovery reported a panic in tools/call "boom": kaboom`)
	faketb.Run(t, func(tb testing.TB) { assert.True(t, sv.AssertNoPanic(tb)) }).ExpectPass(t)
}

func TestProgressOrder(t *testing.T) {
	t.Parallel()
	c, s := memtransport.Pair()
	defer c.Close()
	frames := []struct {
		from *memtransport.Conn
		msg  string
	}{
		{c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"p","_meta":{"progressToken":"a"}}}`},
		{c, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"p","_meta":{"progressToken":"b"}}}`},
		{c, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no-token"}}`},
		{s, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a","progress":1}}`},
		{s, `{"jsonrpc":"2.0","id":1,"result":{}}`}, // after its notification
		{s, `{"jsonrpc":"2.0","id":2,"result":{}}`}, // before its notification: late
		{s, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"b","progress":1}}`},
		{s, `{"jsonrpc":"2.0","id":3,"result":{}}`}, // no token: not counted
	}
	for _, f := range frames {
		require.NoError(t, f.from.Send(t.Context(), []byte(f.msg)))
	}
	calls, late := adaptertest.ProgressOrder(t, c.Transcript())
	assert.Equal(t, 2, calls)
	assert.Equal(t, 1, late)
}

// EraOf alternates the eras only when the release speaks 2026-07-28.
func TestEraOf(t *testing.T) {
	t.Parallel()
	legacy, modern := adaptertest.Eras()[0], adaptertest.Eras()[1]
	assert.False(t, legacy.Modern())
	assert.True(t, modern.Modern())
	assert.Equal(t, []adaptertest.Era{legacy, modern, legacy}, []adaptertest.Era{adaptertest.EraOf(0, true), adaptertest.EraOf(1, true), adaptertest.EraOf(2, true)})
	assert.Equal(t, []adaptertest.Era{legacy, legacy}, []adaptertest.Era{adaptertest.EraOf(0, false), adaptertest.EraOf(1, false)})
}
