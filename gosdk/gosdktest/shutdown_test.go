package gosdktest_test

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// The tests in this file hold a handler (or the reading goroutine) until
// Serve is waiting for the session to end, then let it go: the moment at
// which a session shut down with ServerSession.Close turned the handler's
// answer into -32004 "server is closing" and Serve returned it. They are not
// parallel because awaitServeWaiting looks at every goroutine in the binary
// and must find this test's Serve (parallel tests do not run beside them).

// heldTool is a go-sdk server with one tool, "hang", that runs until its
// context ends and then returns its context's error, but only once await
// has returned (by default, once Serve is waiting for the session to end).
type heldTool struct {
	server  *mcp.Server
	started chan struct{} // closed when the tool starts
	// held reports that await saw the moment it waits for; without it a
	// test would pass without testing anything.
	held atomic.Bool
}

func newHeldTool(opts *mcp.ServerOptions, await func() bool) *heldTool {
	if await == nil {
		await = awaitServeWaiting
	}
	h := &heldTool{started: make(chan struct{})}
	h.server = mcp.NewServer(&mcp.Implementation{Name: "held", Version: "v0"}, opts)
	h.server.AddTool(&mcp.Tool{Name: "hang", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(h.started)
			<-ctx.Done() // the client's notifications/cancelled, or the end of the connection
			h.held.Store(await())
			return nil, ctx.Err()
		})
	return h
}

// giveUpOnHang is the user's test: it calls "hang", gives up on the call
// once the tool has started, and ends, closing the connection while the
// tool is still running.
func (h *heldTool) giveUpOnHang(t *testing.T) {
	c := mcptest.Connect(t, gosdktest.Server(h.server))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		select {
		case <-h.started:
			cancel()
		case <-ctx.Done():
		}
	}()
	_, err := c.CallTool(ctx, "hang", nil)
	assert.ErrorIs(t, err, context.Canceled)
}

// awaitServeWaiting waits until a goroutine is in Adapter.Serve, waiting for
// the go-sdk session to end (jsonrpc2's Connection.wait, reached through
// ServerSession.Wait or ServerSession.Close), and reports whether one got
// there.
func awaitServeWaiting() bool {
	return awaitGoroutine("gosdk/gosdktest.(*Adapter).Serve(", "jsonrpc2.(*Connection).wait(")
}

// awaitGoroutine waits until some goroutine's stack holds all of frames and
// reports whether one did. The SDKs have no signal for the moments the tests
// need, so they are looked for in the goroutine dump: a wait for a
// condition, not for a time. The bound only keeps a broken Serve from
// hanging the test.
func awaitGoroutine(frames ...string) bool {
	giveUp := time.NewTimer(10 * time.Second)
	defer giveUp.Stop()
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n == len(buf) {
			buf = make([]byte, 2*len(buf))
			continue
		}
		for g := range strings.SplitSeq(string(buf[:n]), "\n\n") {
			if containsAll(g, frames) {
				return true
			}
		}
		select {
		case <-giveUp.C:
			return false
		default:
			runtime.Gosched()
		}
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// The test from the bug report, as the user wrote it: the call times out on
// the client side and the test ends at once, while the handler is still
// returning. It failed in about two runs of three.
func TestBugReportCallTimedOutThenTestEnds(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "hang", Version: "v0"}, nil)
	s.AddTool(&mcp.Tool{Name: "hang", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	c := mcptest.Connect(t, gosdktest.Server(s))
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err := c.CallTool(ctx, "hang", nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// The bug report's test, made deterministic: a call the client gave up on,
// whose handler answers only once the test has ended and Serve is waiting
// for the session to end. The user's test must not fail.
func TestHandlerAnsweringDuringShutdownIsNoError(t *testing.T) {
	h := newHeldTool(nil, nil)
	t.Run("user test", h.giveUpOnHang)
	assert.True(t, h.held.Load(), "the handler answered while Serve was waiting for the session to end")
}

// A request the client sent just before it closed is read only after Serve
// began to wait for the session to end. Answering it (into the closed
// connection) is part of a normal end, not an error.
func TestRequestReadDuringShutdownIsNoError(t *testing.T) {
	reading := make(chan struct{})
	var held atomic.Bool
	a := gosdktest.Server(newServer(nil), gosdktest.WithRequestExtra(func(req *jsonrpc.Request) *mcp.RequestExtra {
		if req.Method == "tools/call" {
			close(reading)
			held.Store(awaitServeWaiting())
		}
		return nil
	}))
	called := make(chan error, 1)
	t.Run("user test", func(t *testing.T) {
		c := mcptest.Connect(t, a)
		go func() {
			_, err := c.CallTool(context.WithoutCancel(t.Context()), "echo", map[string]any{"text": "late"})
			called <- err
		}()
		<-reading
	})
	assert.ErrorIs(t, <-called, client.ErrClosed, "the test ended before the answer")
	assert.True(t, held.Load(), "the request was read while Serve was waiting for the session to end")
}

// The SDK's keepalive closes the session (ServerSession.Close) when its ping
// meets the closed connection; a handler still answering then has its answer
// refused with -32004 "server is closing". That is the end of the connection
// seen twice, not a failure.
func TestKeepaliveCloseWithHandlerRunningIsNoError(t *testing.T) {
	// Pings during the test must succeed; several failures in a row, which
	// only the closed connection gives, close the session. Before go-sdk
	// v1.7.0 one failure closes it, and a ping gets half the interval to be
	// answered: there the interval is long enough for a loaded machine.
	opts := &mcp.ServerOptions{KeepAlive: 20 * time.Millisecond}
	if !sdktest.SetField(opts, "KeepAliveFailureThreshold", 3) {
		opts.KeepAlive = 500 * time.Millisecond
	}
	h := newHeldTool(opts, func() bool {
		return awaitGoroutine("mcp.startKeepalive", "(*ServerSession).Close(", "jsonrpc2.(*Connection).wait(")
	})
	t.Run("user test", h.giveUpOnHang)
	assert.True(t, h.held.Load(), "the handler answered while the keepalive was closing the session")
}

// When Serve's context ends, Serve ends the connection itself; a handler
// that answers after that is part of a normal end too.
func TestContextEndWithHandlerRunningIsNoError(t *testing.T) {
	h := newHeldTool(nil, nil)
	cliEnd, srvEnd := memtransport.Pair()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- gosdktest.Server(h.server).Serve(ctx, srvEnd) }()
	c, err := client.Connect(t.Context(), cliEnd, nil)
	require.NoError(t, err)
	defer c.Close()
	called := make(chan error, 1)
	go func() {
		_, err := c.CallTool(t.Context(), "hang", nil)
		called <- err
	}()
	<-h.started
	cancel()
	require.NoError(t, <-served)
	assert.ErrorIs(t, <-called, client.ErrClosed)
	assert.True(t, h.held.Load(), "the handler answered while Serve was waiting for the session to end")
}

// A write that fails mid-session (here: an answer larger than the
// connection carries) ends the session, and Serve says why.
func TestWriteFailureEndsTheSessionWithItsError(t *testing.T) {
	t.Parallel()
	const limit = 16 << 10
	s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "v0"}, nil)
	s.AddTool(&mcp.Tool{Name: "big", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 2*limit)}}}, nil
		})
	cliEnd, srvEnd := memtransport.Pair(memtransport.WithMaxMessageSize(limit))
	served := make(chan error, 1)
	go func() { served <- gosdktest.Server(s).Serve(t.Context(), srvEnd) }()
	c, err := client.Connect(t.Context(), cliEnd, nil)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.CallTool(t.Context(), "big", nil)
	require.ErrorIs(t, err, client.ErrClosed, "the session ended instead of answering")
	err = <-served
	require.ErrorIs(t, err, memtransport.ErrTooLarge)
	assert.ErrorContains(t, err, "gosdk: session ended: gosdk: sending a message to the client")
}

// When the connection ends, the handlers still running are cancelled and
// Serve returns once they have returned. go-sdk cancels them itself from
// v1.7.0 on; before, the adapter's layer does.
func TestConnectionEndCancelsHandlers(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	handlerErr := make(chan error, 1)
	s := mcp.NewServer(&mcp.Implementation{Name: "wait", Version: "v0"}, nil)
	s.AddTool(&mcp.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-ctx.Done()
			handlerErr <- ctx.Err()
			return nil, ctx.Err()
		})
	cliEnd, srvEnd := memtransport.Pair()
	served := make(chan error, 1)
	go func() { served <- gosdktest.Server(s).Serve(t.Context(), srvEnd) }()
	c, err := client.Connect(t.Context(), cliEnd, &client.Options{ProtocolVersion: sdktest.StartVersion("")})
	require.NoError(t, err)
	called := make(chan error, 1)
	go func() {
		_, err := c.CallTool(t.Context(), "wait", nil)
		called <- err
	}()
	<-started
	require.NoError(t, cliEnd.Close()) // the peer is gone: no notifications/cancelled
	require.NoError(t, <-served)
	assert.ErrorIs(t, <-handlerErr, context.Canceled)
	assert.ErrorIs(t, <-called, client.ErrClosed)
}
