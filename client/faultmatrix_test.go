package client

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// The fault matrix: scripted peers doing what a hostile or broken server
// would, each cell bounded by hangGuard. The other cells are in
// fault_test.go, callback_test.go and fake_test.go.

// textCall starts a tools/call "t" and returns its outcome, text or error.
func textCall(ctx context.Context, c *Client, opts ...CallOption) <-chan string {
	out := make(chan string, 1)
	go func() {
		res, err := c.CallTool(ctx, "t", nil, opts...)
		if err != nil {
			out <- "error: " + err.Error()
			return
		}
		out <- res.Text()
	}()
	return out
}

func answer(text string) string {
	return `{"content":[{"type":"text","text":"` + text + `"}]}`
}

// The peer crashes while the request is on its way: the call ends with
// ErrClosed, naming the cause.
func TestFaultPeerClosesMidCall(t *testing.T) {
	var crash sync.Once
	c, _ := faultFake(t, nil, nil, memtransport.WithFault(func(f memtransport.Frame) memtransport.Action {
		act := memtransport.Action{}
		if f.Dir == memtransport.ClientToServer && strings.Contains(string(f.Data), `"tools/call"`) {
			crash.Do(func() { act.Close = true })
		}
		return act
	}))
	got := returns(t, "CallTool", func() string { return <-textCall(t.Context(), c) })
	// Which comes first, the Send's failure or the reader seeing the end,
	// is a race; either way the error says what happened.
	assert.Contains(t, []string{
		`error: tools/call "t": sending: memtransport: io: read/write on closed pipe (closed by a fault hook on client→server frame 3)`,
		`error: tools/call "t": client: connection closed: transport: memtransport: io: read/write on closed pipe (closed by a fault hook on client→server frame 3)`,
	}, got)
	<-c.Done()
	require.ErrorIs(t, c.Err(), ErrClosed)
	_, err := c.ListTools(t.Context(), "")
	require.EqualError(t, err, `tools/list: client: connection closed: transport: memtransport: io: read/write on closed pipe (closed by a fault hook on client→server frame 3)`)
}

// Frames that are not JSON-RPC (malformed, truncated, batches, wrong
// version, fractional, null, string and huge ids) arrive while a call
// waits: each is logged and ignored, and the call gets its own answer.
func TestFaultBadFramesAroundACall(t *testing.T) {
	var logs logBuffer
	c, f := faultFake(t, &Options{Logger: logs.logger()}, nil)
	out := textCall(t.Context(), c)
	m := f.expect("tools/call")
	id := m.ID.String()
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"te`, // truncated
		`not json at all`,
		`[{"jsonrpc":"2.0","id":` + id + `,"result":` + answer("batch") + `}]`,
		`{"jsonrpc":"1.0","id":` + id + `,"result":` + answer("v1") + `}`,
		`{"id":` + id + `,"result":` + answer("no version") + `}`,
		`{"jsonrpc":"2.0","id":` + id + `.0,"result":` + answer("fraction") + `}`,
		`{"jsonrpc":"2.0","id":"` + id + `","result":` + answer("string id") + `}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
		`{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":` + answer("huge") + `}`,
		`{"jsonrpc":"2.0","id":` + id + `}`, // neither result nor error
		`{"jsonrpc":"2.0","method":""}`,
		``,
	} {
		f.send(frame)
	}
	f.reply(m.ID, answer("right"))
	assert.Equal(t, "right", returns(t, "CallTool", func() string { return <-out }))
	logged := logs.String()
	assert.Equal(t, 10, strings.Count(logged, "not JSON-RPC"), logged)
	assert.Equal(t, 2, strings.Count(logged, "unknown request"), logged) // the string and the null id
}

// Two answers to one request: the first is the call's, the second is
// dropped, and the next call is not given it.
func TestFaultDuplicateResponse(t *testing.T) {
	c, f := faultFake(t, nil, nil)
	out := textCall(t.Context(), c)
	m := f.expect("tools/call")
	f.reply(m.ID, answer("first"))
	f.reply(m.ID, answer("second"))
	assert.Equal(t, "first", returns(t, "CallTool", func() string { return <-out }))
	out = textCall(t.Context(), c)
	m2 := f.expect("tools/call")
	f.reply(m.ID, answer("third, for the old id"))
	f.reply(m2.ID, answer("mine"))
	assert.Equal(t, "mine", returns(t, "CallTool", func() string { return <-out }))
}

// A response that comes after its call gave up (the call timed out and
// said so) goes to no one, and in particular not to the next call.
func TestFaultLateResponseAfterCancel(t *testing.T) {
	c, f := faultFake(t, nil, nil)
	out := textCall(t.Context(), c, WithTimeout(50*time.Millisecond))
	m := f.expect("tools/call")
	assert.Equal(t, `error: tools/call "t": no response within 50ms`, returns(t, "CallTool", func() string { return <-out }))
	f.expect("notifications/cancelled")
	out = textCall(t.Context(), c)
	m2 := f.expect("tools/call")
	f.reply(m.ID, answer("late"))
	f.reply(m2.ID, answer("on time"))
	assert.Equal(t, "on time", returns(t, "CallTool", func() string { return <-out }))
}

// The handshake answered with an error: Connect fails with the server's
// error as it came.
func TestFaultHandshakeAnsweredWithError(t *testing.T) {
	_, _, err := fakeConnect(t, &Options{ProtocolVersion: Version20251125}, func(f *fake) {
		m := f.expect("initialize")
		f.fail(m.ID, CodeInternalError, "database down", `{"retry":false}`)
	})
	require.EqualError(t, err, `client: Connect: initialize: error -32603: database down (data: {"retry":false})`)
	var e *Error
	require.ErrorAs(t, err, &e)
	_, _, err = fakeConnect(t, &Options{ProtocolVersion: Version20251125}, func(f *fake) {
		m := f.expect("initialize")
		f.reply(m.ID, `"not an object"`)
	})
	require.ErrorContains(t, err, "client: Connect: decoding initialize result: json: cannot unmarshal string")
}

// A 2026-07-28 server that answers input_required forever: the call ends
// after Options.MaxInputRounds, or at its deadline if that comes first.
func TestFaultEndlessInputRequired(t *testing.T) {
	c, f := faultFake(t, &Options{ProtocolVersion: Version20260728, MaxInputRounds: 1000,
		ListRoots: func(context.Context) ([]*Root, error) { return nil, nil }}, nil)
	stop := make(chan struct{})
	go func() {
		for {
			data, err := f.conn.Receive(context.Background())
			if err != nil {
				return
			}
			m, err := jsonrpc.Decode(data)
			if err != nil || m.Method != "tools/call" {
				continue
			}
			select {
			case <-stop:
				return
			default:
			}
			_ = f.conn.Send(context.Background(), jsonrpc.AppendResult(nil, m.ID, []byte(`{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}}`)))
		}
	}()
	defer close(stop)
	got := returns(t, "CallTool", func() string { return <-textCall(t.Context(), c, WithTimeout(200*time.Millisecond)) })
	assert.True(t, strings.HasPrefix(got, `error: tools/call "t": no response within 200ms`) ||
		strings.Contains(got, "input required"), got)
}

// A flood of notifications while a call waits: handled as they come (the
// buffer holds the server back), so memory stays bounded, and the call gets
// its answer after them.
func TestFaultNotificationFlood(t *testing.T) {
	var n int
	c, f := faultFake(t, &Options{OnNotification: func(string, json.RawMessage) { n++ }}, nil, memtransport.WithTranscriptLimit(0))
	out := textCall(t.Context(), c)
	m := f.expect("tools/call")
	const count, size = 20000, 2000 // 40 MB
	note := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("x", size) + `"}}`)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range count {
		require.NoError(t, f.conn.Send(t.Context(), note))
	}
	f.reply(m.ID, answer("after the flood"))
	assert.Equal(t, "after the flood", returns(t, "CallTool", func() string { return <-out }))
	runtime.ReadMemStats(&after)
	assert.Equal(t, count, n)
	grew := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("heap in use grew by %.1f MB while %d MB of notifications went through", float64(grew)/1e6, count*size/1_000_000)
	assert.Less(t, grew, int64(count*size/2), "the client held on to the notifications")
}

// Close while 1000 calls wait: every one ends with ErrClosed, and Close
// returns.
func TestFaultCloseDuring1000Calls(t *testing.T) {
	c, f := faultFake(t, nil, nil, memtransport.WithTranscriptLimit(0))
	const n = 1000
	outs := make([]<-chan string, n)
	for i := range outs {
		outs[i] = textCall(t.Context(), c)
	}
	for range n / 2 { // half of them reached the server, the rest may not have
		f.expect("tools/call")
	}
	require.NoError(t, returns(t, "Close", c.Close))
	for _, out := range outs {
		got := returns(t, "CallTool", func() string { return <-out })
		require.Equal(t, `error: tools/call "t": client: connection closed`, got)
	}
}

// Subscription.Close has no ctx: on a legacy connection whose server never
// answers resources/unsubscribe, it still returns, after a bounded wait.
func TestFaultUnsubscribeNeverAnswered(t *testing.T) {
	c, f, err := fakeConnect(t, &Options{ProtocolVersion: Version20251125}, func(f *fake) {
		m := f.expect("initialize")
		f.reply(m.ID, `{"protocolVersion":"2025-11-25","capabilities":{"resources":{"subscribe":true}},"serverInfo":{"name":"fake","version":"9"}}`)
		f.expect("notifications/initialized")
	})
	require.NoError(t, err)
	subc := make(chan *Subscription, 1)
	go func() {
		s, err := c.Listen(t.Context(), ListenFilter{ResourceSubscriptions: []string{"file:///a"}})
		assert.NoError(t, err)
		subc <- s
	}()
	m := f.expect("resources/subscribe")
	f.reply(m.ID, `{}`)
	s := <-subc
	require.NotNil(t, s)
	err = returns(t, "Subscription.Close", s.Close)
	f.expect("resources/unsubscribe") // never answered
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, `resources/unsubscribe "file:///a": context deadline exceeded`)
}
