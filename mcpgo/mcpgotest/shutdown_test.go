package mcpgotest_test

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// The tests in this file hold a handler until Serve is waiting for the
// handlers still running, then let it answer: the moment at which the
// go-sdk adapter's Serve used to fail with "server is closing". They are not
// parallel because awaitServeWaiting looks at every goroutine in the binary
// and must find this test's Serve (parallel tests do not run beside them).

// heldTool is an mcp-go server with one tool, "hang", that runs until its
// context ends and then returns its context's error, but only once Serve is
// waiting for the handlers still running.
type heldTool struct {
	server  *server.MCPServer
	started chan struct{} // closed when the tool starts
	// held reports that the tool answered while Serve waited for it; without
	// it a test would pass without testing anything.
	held atomic.Bool
}

func newHeldTool() *heldTool {
	h := &heldTool{started: make(chan struct{})}
	h.server = server.NewMCPServer("held", "v0", server.WithToolCapabilities(true))
	h.server.AddTool(mcp.NewTool("hang"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(h.started)
		<-ctx.Done() // the client's notifications/cancelled, or the end of the connection
		h.held.Store(awaitServeWaiting())
		return nil, ctx.Err()
	})
	return h
}

// awaitServeWaiting waits until a goroutine is in Adapter.Serve, waiting for
// the handlers still running, and reports whether one got there.
func awaitServeWaiting() bool {
	return awaitGoroutine("mcpgo/mcpgotest.(*Adapter).Serve(", "sync.(*WaitGroup).Wait(")
}

// awaitGoroutine waits until some goroutine's stack holds all of frames and
// reports whether one did. Nothing signals the moment the tests need, so it
// is looked for in the goroutine dump: a wait for a condition, not for a
// time. The bound only keeps a broken Serve from hanging the test.
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

// The go-sdk bug report's test against mcp-go: the call times out on the
// client side and the test ends at once, while the handler is still
// returning.
func TestBugReportCallTimedOutThenTestEnds(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("hang", "v0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("hang"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	c := mcptest.Connect(t, mcpgotest.Server(s))
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err := c.CallTool(ctx, "hang", nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// The bug report's test, made deterministic: a call the client gave up on,
// whose handler answers only once the test has ended and Serve is waiting
// for it. The user's test must not fail.
func TestHandlerAnsweringDuringShutdownIsNoError(t *testing.T) {
	h := newHeldTool()
	t.Run("user test", func(t *testing.T) {
		c := mcptest.Connect(t, mcpgotest.Server(h.server))
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
	})
	assert.True(t, h.held.Load(), "the handler answered while Serve was waiting for it")
}

// When Serve's context ends, Serve ends the connection itself; a handler
// that answers after that is part of a normal end too.
func TestContextEndWithHandlerRunningIsNoError(t *testing.T) {
	h := newHeldTool()
	cliEnd, srvEnd := memtransport.Pair()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- mcpgotest.Server(h.server).Serve(ctx, srvEnd) }()
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
	assert.True(t, h.held.Load(), "the handler answered while Serve was waiting for it")
}
