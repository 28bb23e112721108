package gosdktest_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/adaptertest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/release"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

func TestCallToolInBothEras(t *testing.T) {
	t.Parallel()
	sdktest.EachEra(t, func(t *testing.T, era adaptertest.Era) {
		sv := sdktest.Serve(t, gosdktest.Server(newServer(nil)))
		c := sv.Connect(t, era.Version)
		assert.Equal(t, era.Want, c.ProtocolVersion())

		res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": "hi"})
		require.NoError(t, err)
		assert.False(t, res.IsError)
		assert.JSONEq(t, `{"echo":"hi"}`, string(res.StructuredContent))

		// The bytes on the wire are the SDK's own encoding, visible in
		// the transcript.
		tr := sv.Client.Transcript().String()
		assert.Contains(t, tr, `client→server {"jsonrpc":"2.0","id":`)
		assert.Contains(t, tr, `"method":"tools/call","params":{`)
		assert.Contains(t, tr, `"structuredContent":{"echo":"hi"}`)
	})
}

// A notification a handler sends before it returns goes on the wire before
// the response, every time. (The go-sdk client runs notification handlers on
// their own goroutine, so the order is checked where the adapter controls
// it: in the transcript.)
func TestProgressIsWrittenBeforeResponse(t *testing.T) {
	t.Parallel()
	sdktest.EachEra(t, func(t *testing.T, era adaptertest.Era) {
		sv := sdktest.Serve(t, gosdktest.Server(newServer(nil)))
		c := sv.Connect(t, era.Version)
		adaptertest.CallWithProgress(t, c, "progress", "tok-", 200)
		calls, late := adaptertest.ProgressOrder(t, sv.Client.Transcript())
		assert.Equal(t, 200, calls)
		assert.Zero(t, late, "responses written before their progress notification")
	})
}

func TestPanicIsReportedAndAnsweredAndServingGoesOn(t *testing.T) {
	t.Parallel()
	sdktest.EachEra(t, func(t *testing.T, era adaptertest.Era) {
		sv := sdktest.Serve(t, gosdktest.Server(newServer(nil)))
		c := sv.Connect(t, era.Version)

		_, err := c.CallTool(t.Context(), "boom", map[string]any{})
		assert.Equal(t, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: `panic in tool "boom": kaboom`}, sdktest.WireError(t, err))

		r := <-sv.Reports
		assert.Equal(t, "tools/call", r.Method)
		assert.Equal(t, "boom", r.Name)
		assert.Equal(t, "kaboom", r.Value)
		assert.Contains(t, string(r.Stack), "helpers_test.go", "the stack reaches the panicking handler")
		assert.Contains(t, string(r.Stack), "newServer", "the stack reaches the panicking handler")

		_, err = c.ReadResource(t.Context(), "file:///crash")
		assert.Equal(t, `panic handling resources/read "file:///crash": resource kaboom`, sdktest.WireError(t, err).Message)
		r = <-sv.Reports
		assert.Equal(t, crash.Report{Method: "resources/read", Name: "file:///crash", Value: r.Value, Stack: r.Stack}, r)
		assert.EqualError(t, r.Value.(error), "resource kaboom")

		res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": "still here"})
		require.NoError(t, err)
		assert.JSONEq(t, `{"echo":"still here"}`, string(res.StructuredContent))
	})
}

// A server's own recovery middleware, added before serving, handles the
// panic itself; the adapter's last resort stays out of the way.
func TestOwnRecoveryMiddlewareRunsFirst(t *testing.T) {
	t.Parallel()
	s := newServer(nil)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if v := recover(); v != nil {
					res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "recovered by the server"}}}
				}
			}()
			return next(ctx, method, req)
		}
	})
	sv := sdktest.Serve(t, gosdktest.Server(s))
	c := sv.Connect(t, "2025-06-18")
	res, err := c.CallTool(t.Context(), "boom", map[string]any{})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, "recovered by the server", adaptertest.Text(t, res))
	sv.AssertNoPanic(t)
}

// A panic in a server served without a reporter still gets an answer.
func TestPanicWithoutReporterIsStillAnswered(t *testing.T) {
	t.Parallel()
	c, s := memtransport.Pair()
	done := make(chan error, 1)
	go func() { done <- gosdktest.Server(newServer(nil)).Serve(t.Context(), s) }()
	cl, err := client.Connect(t.Context(), c, &client.Options{ProtocolVersion: "2025-06-18"})
	require.NoError(t, err)
	_, err = cl.CallTool(t.Context(), "boom", map[string]any{})
	assert.Equal(t, int64(jsonrpc.CodeInternalError), sdktest.WireError(t, err).Code)
	require.NoError(t, cl.Close())
	require.NoError(t, <-done)
}

func TestShutdownIsCleanAndQuiet(t *testing.T) {
	t.Parallel()
	t.Run("client closes", func(t *testing.T) {
		t.Parallel()
		logs := logcapture.New(t)
		a := gosdktest.Server(newServer(logs.Logger()))
		c, s := memtransport.Pair()
		done := make(chan error, 1)
		go func() { done <- a.Serve(t.Context(), s) }()
		cl, err := client.Connect(t.Context(), c, &client.Options{ProtocolVersion: sdktest.StartVersion("")})
		require.NoError(t, err)
		require.NoError(t, cl.Close())
		require.NoError(t, <-done, "a normal close is not an error")
		logs.AssertNone(t, logcapture.AtLeast(slog.LevelError))
	})
	t.Run("context cancelled", func(t *testing.T) {
		t.Parallel()
		logs := logcapture.New(t)
		a := gosdktest.Server(newServer(logs.Logger()))
		c, s := memtransport.Pair()
		defer c.Close()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- a.Serve(ctx, s) }()
		cl, err := client.Connect(t.Context(), c, &client.Options{ProtocolVersion: sdktest.StartVersion("")})
		require.NoError(t, err)
		defer cl.Close()
		cancel()
		require.NoError(t, <-done)
		logs.AssertNone(t, logcapture.AtLeast(slog.LevelError)) // no spurious "server run cancelled"
		_, err = c.Receive(t.Context())
		require.ErrorIs(t, err, io.ErrClosedPipe, "the client sees the connection end")
	})
	t.Run("before any message", func(t *testing.T) {
		t.Parallel()
		c, s := memtransport.Pair()
		done := make(chan error, 1)
		go func() { done <- gosdktest.Server(newServer(nil)).Serve(t.Context(), s) }()
		require.NoError(t, c.Close())
		require.NoError(t, <-done)
	})
}

func TestOneAdapterManyConnections(t *testing.T) {
	t.Parallel()
	a := gosdktest.Server(newServer(nil))
	for i := range 20 {
		want := "conn-" + strconv.Itoa(i)
		t.Run(want, func(t *testing.T) {
			t.Parallel() // the 20 connections are served at once
			era := adaptertest.EraOf(i, sdktest.SpeaksModern())
			c := sdktest.Serve(t, a).Connect(t, era.Version)
			res := adaptertest.Call(t, c, "echo", map[string]any{"text": want})
			assert.JSONEq(t, `{"echo":"`+want+`"}`, string(res.StructuredContent))
		})
	}
}

// The go-sdk ends a session on malformed JSON instead of answering -32700;
// the adapter keeps that behaviour (it is what a real transport does) and
// Serve says why the session ended.
func TestMalformedJSONEndsTheSession(t *testing.T) {
	t.Parallel()
	c, s := memtransport.Pair()
	defer c.Close()
	done := make(chan error, 1)
	go func() { done <- gosdktest.Server(newServer(nil)).Serve(t.Context(), s) }()
	require.NoError(t, c.SendRaw(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":`)))
	err := <-done
	require.Error(t, err)
	assert.Contains(t, err.Error(), "decoding a message from the client")
	assert.Contains(t, err.Error(), `"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"`)
	_, err = c.Receive(t.Context())
	require.ErrorIs(t, err, io.ErrClosedPipe)
}

func TestRequestExtraReachesHandlers(t *testing.T) {
	t.Parallel()
	a := gosdktest.Server(newServer(nil), gosdktest.WithRequestExtra(func(req *jsonrpc.Request) *mcp.RequestExtra {
		return &mcp.RequestExtra{
			TokenInfo: &auth.TokenInfo{UserID: "alice", Scopes: []string{"read"}},
			Header:    http.Header{"X-Test": {req.Method}},
		}
	}))
	sv := sdktest.Serve(t, a)
	c := sv.Connect(t, "")
	res, err := c.CallTool(t.Context(), "whoami", map[string]any{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"echo":"alice via tools/call"}`, string(res.StructuredContent))
}

// The adapter serves the server as it is: a server built with the SDK's
// SupportedProtocolVersions offers, negotiates and refuses versions as the
// SDK does, over the adapter as over any transport.
func TestServerOptionsRestrictVersions(t *testing.T) {
	t.Parallel()
	restricted := func(t *testing.T, versions ...string) *mcp.Server {
		opts := &mcp.ServerOptions{}
		if !sdktest.SetField(opts, "SupportedProtocolVersions", versions) {
			t.Skipf("go-sdk %s has no ServerOptions.SupportedProtocolVersions (first in go-sdk v1.8.0-pre.1)", release.Linked())
		}
		return mcp.NewServer(&mcp.Implementation{Name: "restricted", Version: "v0"}, opts)
	}
	t.Run("client tries 2026-07-28 first", func(t *testing.T) {
		t.Parallel()
		sv := sdktest.Serve(t, gosdktest.Server(restricted(t, "2025-06-18", "2025-03-26")))
		c := sv.Connect(t, "")
		assert.Equal(t, "2025-06-18", c.ProtocolVersion())
		tr := sv.Client.Transcript()
		require.GreaterOrEqual(t, len(tr.Entries), 2)
		assert.Contains(t, string(tr.Entries[0].Data), `"method":"server/discover"`)
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported protocol version","data":{"supported":["2025-06-18","2025-03-26"],"requested":"2026-07-28"}}}`,
			string(tr.Entries[1].Data))
	})
	t.Run("client asks for a newer legacy version", func(t *testing.T) {
		t.Parallel()
		c := sdktest.Serve(t, gosdktest.Server(restricted(t, "2025-06-18", "2025-03-26"))).Connect(t, "2025-11-25")
		assert.Equal(t, "2025-06-18", c.ProtocolVersion())
	})
	t.Run("modern only", func(t *testing.T) {
		t.Parallel()
		sv := sdktest.Serve(t, gosdktest.Server(restricted(t, "2026-07-28")))
		c := sv.Connect(t, "")
		assert.Equal(t, "2026-07-28", c.ProtocolVersion())
		assert.Contains(t, sv.Client.Transcript().String(), `"supportedVersions":["2026-07-28"]`)
	})
}

func TestServeRejectsNilConnection(t *testing.T) {
	t.Parallel()
	err := gosdktest.Server(newServer(nil)).Serve(t.Context(), nil)
	require.ErrorContains(t, err, "nil connection")
	assert.NotErrorIs(t, err, io.ErrClosedPipe)
}
