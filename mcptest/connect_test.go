package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/faketb"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

func TestConnectCallsTheServer(t *testing.T) {
	t.Parallel()
	c := Connect(t, probeServer())
	assert.Equal(t, client.LatestVersion, c.ProtocolVersion(), "era-neutral start lands on the modern protocol")

	res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": "hello"})
	require.NoError(t, err)
	Assert(t).ToolSuccess(res)
	Assert(t).Text(res, "hello")
}

func TestEachVersionPinsEveryVersion(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		c := Connect(t, probeServer(), WithProtocolVersion(version))
		assert.Equal(t, version, c.ProtocolVersion())
		res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": version})
		require.NoError(t, err)
		Assert(t).Text(res, version)
		mu.Lock()
		seen = append(seen, version)
		mu.Unlock()
	})
	t.Cleanup(func() { assert.ElementsMatch(t, client.SupportedVersions(), seen) })
}

// Hundreds of connections at once, each with its own leak check: none may
// see another's goroutines.
func TestConnectManyInParallel(t *testing.T) {
	t.Parallel()
	n := 200
	if testing.Short() {
		n = 20
	}
	srv := probeServer() // one server, many sessions
	for i := range n {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			opts := []Option{WithProtocolVersion(client.LatestVersion)}
			if i%2 == 1 {
				opts = []Option{WithProtocolVersion(client.LatestLegacyVersion)}
			}
			c := Connect(t, srv, opts...)
			assert.Equal(t, i%2 == 0, c.IsModern())
			want := fmt.Sprintf("call %d", i)
			res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": want})
			require.NoError(t, err)
			Assert(t).Text(res, want)
		})
	}
}

func TestClientOptionsReachTheServer(t *testing.T) {
	t.Parallel()
	srv := probeServer(newTool("whoami", func(_ context.Context, c *fakeCall) (*fakeResult, error) {
		if c.answers == nil { // the legacy fake asks the client with requests of its own
			return &fakeResult{ask: map[string]fakeAsk{
				"roots":  {Method: "roots/list"},
				"sample": {Method: "sampling/createMessage", Params: map[string]any{"maxTokens": 10, "messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}}},
				"elicit": {Method: "elicitation/create", Params: map[string]any{"message": "name?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}},
			}}, nil
		}
		var roots struct{ Roots []struct{ URI string } }
		var msg struct{ Content struct{ Text string } }
		var el struct {
			Action  string
			Content struct{ Name string }
		}
		for key, v := range map[string]any{"roots": &roots, "sample": &msg, "elicit": &el} {
			if err := json.Unmarshal(c.answers[key], v); err != nil {
				return nil, err
			}
		}
		return fakeText(fmt.Sprintf("%s %s | %s | %s | %s %v", c.client.Name, c.client.Version, roots.Roots[0].URI, msg.Content.Text, el.Action, el.Content.Name)), nil
	}))
	c := Connect(t, srv,
		WithProtocolVersion(client.LatestLegacyVersion), // server-to-client requests are a legacy feature
		WithClient(client.Options{
			ClientInfo: client.Implementation{Name: "probe-client", Version: "v7"},
			ListRoots: func(context.Context) ([]*client.Root, error) {
				return []*client.Root{{URI: "file:///work", Name: "work"}}, nil
			},
			CreateMessage: func(context.Context, *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
				return &client.CreateMessageResult{Role: "assistant", Model: "m", Content: []client.Content{&client.TextContent{Text: "sampled"}}}, nil
			},
			Elicit: func(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
				return &client.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
			},
		}),
	)
	res, err := c.CallTool(t.Context(), "whoami", nil)
	require.NoError(t, err)
	Assert(t).Text(res, "probe-client v7 | file:///work | sampled | accept Ada")
}

// A later WithClient replaces an earlier one; its zero Timeout is
// 10 s, a negative one no bound; its ProtocolVersion pins.
func TestWithClient(t *testing.T) {
	t.Parallel()
	cfg := newConfig([]Option{
		WithClient(client.Options{ClientInfo: client.Implementation{Name: "a"}, Timeout: 3 * time.Second}),
		WithClient(client.Options{ClientInfo: client.Implementation{Name: "b"}}),
	})
	assert.Equal(t, "b", cfg.client.ClientInfo.Name)
	assert.Equal(t, servercheck.DefaultTimeout, cfg.timeout, "the later WithClient replaced the Timeout too")
	assert.Equal(t, time.Duration(0), newConfig([]Option{WithClient(client.Options{Timeout: -1})}).timeout)
	assert.Equal(t, time.Second, newConfig([]Option{WithClient(client.Options{Timeout: time.Second})}).client.Timeout)

	// The client's ProtocolVersion pins, as WithProtocolVersion does; two
	// different pins fail.
	c := Connect(t, probeServer(), WithClient(client.Options{ProtocolVersion: client.Version20250618}))
	assert.Equal(t, client.Version20250618, c.ProtocolVersion())
	runFake(t, func(tb testing.TB) {
		Connect(tb, probeServer(), WithProtocolVersion(client.Version20250326), WithClient(client.Options{ProtocolVersion: client.LatestLegacyVersion}))
	}).expectFailure(t, `mcptest.Connect: WithProtocolVersion("2025-03-26") and client.Options.ProtocolVersion "2025-11-25" pin two versions`)
}

func TestConnectNilServerFails(t *testing.T) {
	t.Parallel()
	runFake(t, func(tb testing.TB) { Connect(tb, nil) }).expectFailure(t, "the server is nil")
}

// A server that never answers: the handshake fails within the timeout with
// a message that says so, instead of hanging the test.
func TestHandshakeTimeoutFailsTheTest(t *testing.T) {
	t.Parallel()
	silent := ServerFunc(func(ctx context.Context, conn *memtransport.Conn) error {
		for {
			if _, err := conn.Receive(ctx); err != nil {
				return nil
			}
		}
	})
	f := runFake(t, func(tb testing.TB) { Connect(tb, silent, WithClient(client.Options{Timeout: 200 * time.Millisecond})) })
	f.expectFailure(t, "did not complete the handshake within 200ms", "server/discover", "transcript of the connection", "no response to server/discover")
}

// A tool that never answers: the call fails with an error naming the method
// once the default per-call timeout (here shortened) expires, and the
// transcript points at the request that got no response.
func TestHungToolFailsTheTestNamingTheMethod(t *testing.T) {
	t.Parallel()
	srv := probeServer(hangingTool())
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, srv, WithClient(client.Options{Timeout: time.Second}))
		_, err := c.CallTool(tb.Context(), "hang", nil)
		require.NoError(tb, err)
	})
	f.expectFailure(t, `tools/call "hang": no response within 1s`, `the client cancelled tools/call "hang" (id 2, message #3)`)
}

// hangingTool answers only when its request is cancelled.
func hangingTool() *fakeTool {
	return newTool("hang", func(ctx context.Context, _ *fakeCall) (*fakeResult, error) {
		<-ctx.Done() // answers only when the client gives up
		return nil, ctx.Err()
	})
}

// boomTool panics.
func boomTool() *fakeTool {
	return newTool("boom", func(context.Context, *fakeCall) (*fakeResult, error) {
		explode()
		return nil, nil
	})
}

func TestPanicWithoutRecoveryFailsTheTest(t *testing.T) {
	t.Parallel()
	srv := probeServer(boomTool())
	var callErr error
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, srv)
		_, callErr = c.CallTool(tb.Context(), "boom", nil)
		// The server is still alive afterwards.
		res, err := c.CallTool(tb.Context(), "echo", map[string]any{"text": "still here"})
		require.NoError(tb, err)
		Assert(tb).Text(res, "still here")
	})
	f.expectFailure(t,
		`the server panicked in tools/call "boom": kaboom`,
		"Install the crash guard",
		"srv.AddReceivingMiddleware(gosdk.Guard(logger))",
		"mcptest.explode", // the stack names the panicking function
	)
	Assert(t).ProtocolError(callErr, client.CodeInternalError)
}

func explode() { panic("kaboom") }

func TestPanicReportsCanBeTurnedOff(t *testing.T) {
	t.Parallel()
	srv := probeServer(boomTool())
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, srv, WithoutCrashReports())
		_, err := c.CallTool(tb.Context(), "boom", nil)
		Assert(tb).ProtocolError(err, client.CodeInternalError)
	})
	f.expectPass(t)
	assert.Contains(t, f.output(), "kaboom", "the panic is still logged")
}

// A server that recovers its own panics is left alone: the harness sees no
// panic, and the test decides what the outcome means.
func TestServerWithOwnRecoveryIsLeftAlone(t *testing.T) {
	t.Parallel()
	srv := probeServer(boomTool())
	srv.guard = true // recovers the panic itself: "Error executing tool boom"
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, srv)
		res, err := c.CallTool(tb.Context(), "boom", nil)
		require.NoError(tb, err)
		Assert(tb).ToolError(res, "Error executing tool boom")
	})
	f.expectPass(t)
}

// blockForever is what a leaked goroutine runs.
func blockForever(release <-chan struct{}) { <-release }

// spawnServer has a tool, spawn, that starts a goroutine which outlives the
// connection: it runs until release is closed.
func spawnServer(release <-chan struct{}) *fakeServer {
	return probeServer(newTool("spawn", func(context.Context, *fakeCall) (*fakeResult, error) {
		go blockForever(release)
		return fakeText("started"), nil
	}))
}

// leakedWait is the leak wait of the tests that expect a leak, which wait it
// out in full. After Close, the connection's own goroutines (the client's
// reader, the harness's serve goroutine, the server's handlers) take a moment to end,
// and on a loaded machine that moment passed 50ms; a report that still
// listed them would not be the exact one these tests expect. The tests that
// expect no leak keep defaultLeakWait: the check returns as soon as the
// goroutines are gone, so a long bound costs them nothing.
const leakedWait = 2 * time.Second

func TestLeakedGoroutineFailsTheTest(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release) // let the leaked goroutine go once the check has seen it

	srv := spawnServer(release)
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, srv, withLeakWait(leakedWait))
		_, err := c.CallTool(tb.Context(), "spawn", nil)
		require.NoError(tb, err)
	})
	f.expectFailure(t, "goroutine leak", "1 goroutine(s) started by the connection", "mcptest.blockForever", "mcptest.IgnoreLeaks")
	assert.Contains(t, f.output(), "transcript of the connection", "a failed test prints its transcript")
}

func TestIgnoredOrUncheckedLeaksPass(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	srv := spawnServer(release)
	for name, opt := range map[string]Option{
		"IgnoreLeaks":      IgnoreLeaks("github.com/mcptestkit/mcptestkit/mcptest.blockForever"),
		"WithoutLeakCheck": WithoutLeakCheck(),
	} {
		f := runFake(t, func(tb testing.TB) {
			c := Connect(tb, srv, opt)
			_, err := c.CallTool(tb.Context(), "spawn", nil)
			require.NoError(tb, err)
		})
		if f.Failed() {
			t.Errorf("%s: the fake test failed:\n%s", name, f.output())
		}
	}
}

// Another test's goroutines, started while this connection is open, are not
// this connection's leaks.
func TestLeakCheckIgnoresOtherGoroutines(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, probeServer())
		go blockForever(release) // started by the test, not by the connection
		_, err := c.CallTool(tb.Context(), "echo", map[string]any{"text": "x"})
		require.NoError(tb, err)
	})
	f.expectPass(t)
}

func TestTranscriptOnlyOnFailure(t *testing.T) {
	t.Parallel()
	srv := probeServer()
	call := func(tb testing.TB, fail bool, opts ...Option) {
		c := Connect(tb, srv, opts...)
		_, err := c.CallTool(tb.Context(), "echo", map[string]any{"text": "marker-text"})
		require.NoError(tb, err)
		if fail {
			tb.Errorf("the test's own failure")
		}
	}
	f := runFake(t, func(tb testing.TB) { call(tb, false) })
	f.expectPass(t)
	assert.NotContains(t, f.output(), "transcript")

	f = runFake(t, func(tb testing.TB) { call(tb, true) })
	f.expectFailure(t, "the test's own failure", "transcript of the connection", "client→server", "server→client", `"method":"tools/call"`, "marker-text")
	assert.NotContains(t, f.output(), "no response to", "every request was answered")

}

func TestServeThatDoesNotReturnFailsTheTest(t *testing.T) {
	t.Parallel()
	inner := probeServer()
	stubborn := ServerFunc(func(ctx context.Context, conn *memtransport.Conn) error {
		err := inner.Serve(context.WithoutCancel(ctx), conn)
		<-ctx.Done() // ignores the closed connection; only ctx ends it
		return err
	})
	// The grace bounds both waits: the one this Serve fails (waited out in
	// full) and its return once ctx is cancelled, which must not run out
	// (the report would then be a different one). 100ms left a descheduled
	// goroutine on a loaded machine too little room.
	shortGrace := func(c *config) { c.knobs.serveGrace = time.Second }
	f := runFake(t, func(tb testing.TB) { Connect(tb, stubborn, shortGrace) })
	f.expectFailure(t, "Serve did not return within 1s after the connection closed", "Serve must return when its connection closes")
}

func TestServeErrorFailsTheTest(t *testing.T) {
	t.Parallel()
	inner := probeServer()
	failing := ServerFunc(func(ctx context.Context, conn *memtransport.Conn) error {
		if err := inner.Serve(ctx, conn); err != nil {
			return err
		}
		return errors.New("the store could not be flushed")
	})
	f := runFake(t, func(tb testing.TB) { Connect(tb, failing) })
	f.expectFailure(t, "the server's Serve returned an error: the store could not be flushed")
}

func TestPanicInServeIsRecovered(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		Connect(tb, ServerFunc(func(context.Context, *memtransport.Conn) error { panic("serve blew up") }), WithClient(client.Options{Timeout: time.Second}))
	})
	f.expectFailure(t, "the server panicked in Serve: serve blew up")
	assert.False(t, strings.Contains(f.output(), "goroutine leak"), f.output())
}

// Transport options reach the connection: here a fault hook loses the
// server's answer to the first tool call.
func TestTransportOptionsReachTheConnection(t *testing.T) {
	t.Parallel()
	lose := memtransport.WithFault(func(f memtransport.Frame) memtransport.Action {
		return memtransport.Action{Drop: f.Dir == memtransport.ServerToClient && strings.Contains(string(f.Data), "lost-text")}
	})
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, probeServer(), WithTransportOptions(lose), WithClient(client.Options{Timeout: 500 * time.Millisecond}))
		_, err := c.CallTool(tb.Context(), "echo", map[string]any{"text": "lost-text"})
		require.NoError(tb, err)
	})
	f.expectFailure(t, `tools/call "echo": no response within 500ms`, "[dropped]", `no response to tools/call "echo"`)
}

// The testing package keeps a finished test's cleanups, and so all they
// reference, until its parent test ends: in a suite of parallel subtests,
// every test's at once. The fake test keeps them the same way; the
// connection's cleanup must let go of it once it has run.
func TestFinishedTestLetsGoOfItsConnection(t *testing.T) {
	t.Parallel()
	released := make(chan struct{})
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, probeServer())
		echoes(tb, c, "kept?")
		faketb.Watch(c, released)
	})
	f.expectPass(t)
	f.ExpectLetGo(t, released, "the client")
}

// An option that cannot apply to the kind of server given fails the test,
// naming the kind it applies to and the kind given, instead of doing
// nothing.
func TestOptionsThatCannotApplyFail(t *testing.T) {
	t.Parallel()
	runFake(t, func(tb testing.TB) {
		Connect(tb, probeServer(), LogStderr(), WithoutExitCheck())
	}).expectFailure(t, "mcptest.Connect: mcptest.LogStderr applies to a mcptest.Command server only; mcptest.WithoutExitCheck applies to a mcptest.Command server only, and this is a Server served in memory")
	runFake(t, func(tb testing.TB) {
		Connect(tb, Handler(http.NotFoundHandler()), WithTransportOptions(memtransport.WithBufferSize(1)))
	}).expectFailure(t, "mcptest.Connect: mcptest.WithTransportOptions applies to a Server served in memory only, and this is a mcptest.Handler server")
	runFake(t, func(tb testing.TB) {
		Connect(tb, URL("http://127.0.0.1:1/mcp"), WithoutExitCheck())
	}).expectFailure(t, "mcptest.Connect: mcptest.WithoutExitCheck applies to a mcptest.Command server only, and this is a mcptest.URL server")
	runFake(t, func(tb testing.TB) {
		Connect(tb, Command(exec.Command("true")), WithTransportOptions())
	}).expectFailure(t, "mcptest.Connect: mcptest.WithTransportOptions applies to a Server served in memory only, and this is a mcptest.Command server")
	// Options that apply pass.
	c := Connect(t, probeServer(), WithTransportOptions(), WithoutLeakCheck())
	assert.NotNil(t, c)
}
