package mcpgotest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcpgo/internal/adaptertest"
	"github.com/mcptestkit/mcptestkit/mcpgo/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// connect connects the test kit's client to a through the harness, at
// version ("" negotiates), with the harness's options. The harness fails
// the test if the adapter's last-resort recovery reports a panic.
func connect(t *testing.T, a *mcpgotest.Adapter, version string, opts ...mcptest.Option) *client.Client {
	t.Helper()
	return mcptest.Connect(t, a, append([]mcptest.Option{mcptest.WithProtocolVersion(version)}, opts...)...)
}

func TestCallToolInBothEras(t *testing.T) {
	t.Parallel()
	sdktest.EachEra(t, func(t *testing.T, era adaptertest.Era) {
		c := connect(t, mcpgotest.Server(newServer("probe")), era.Version)
		assert.Equal(t, era.Want, c.ProtocolVersion())
		res := adaptertest.Call(t, c, "echo", map[string]any{"text": "hi"})
		assert.False(t, res.IsError)
		assert.Equal(t, "hi", adaptertest.Text(t, res))
	})
}

// A client that lets the server choose gets the newest version the release
// speaks, the first ProtocolVersions lists: 2026-07-28 through
// server/discover from mcp-go v1.0.0; before, mcp-go answers server/discover
// "method not found" and the client falls back to the initialize handshake.
func TestNegotiatedVersionIsTheNewestTheReleaseSpeaks(t *testing.T) {
	t.Parallel()
	a := mcpgotest.Server(newServer("probe"))
	c := connect(t, a, "")
	require.NotEmpty(t, a.ProtocolVersions())
	assert.Equal(t, a.ProtocolVersions()[0], c.ProtocolVersion(), "on %s", sdktest.Release())
	assert.Equal(t, "hi", adaptertest.Text(t, adaptertest.Call(t, c, "echo", map[string]any{"text": "hi"})))
}

// ProtocolVersions lists what the linked release speaks, newest first: the
// versions mcp-go itself lists, 2026-07-28 among them from v1.0.0 only, and
// narrowed by WithProtocolVersions.
func TestProtocolVersionsListWhatTheReleaseSpeaks(t *testing.T) {
	t.Parallel()
	got := mcpgotest.Server(newServer("probe")).ProtocolVersions()
	assert.ElementsMatch(t, mcp.ValidProtocolVersions, got)
	assert.IsNonIncreasing(t, got, "newest first")
	assert.Equal(t, sdktest.ReleaseAtLeast("v1.0.0"), slices.Contains(got, "2026-07-28"), "2026-07-28 on %s", sdktest.Release())
	assert.Contains(t, got, "2025-06-18")
	assert.Contains(t, got, "2024-11-05")
	got[0] = "changed"
	assert.NotContains(t, mcpgotest.Server(newServer("probe")).ProtocolVersions(), "changed", "a copy")

	restricted := mcpgotest.Server(newServer("probe"), mcpgotest.WithProtocolVersions("2024-11-05", "2026-07-28", "2025-06-18", "1999-01-01"))
	want := []string{"2025-06-18", "2024-11-05"}
	if sdktest.SpeaksModern() {
		want = append([]string{"2026-07-28"}, want...)
	}
	assert.Equal(t, want, restricted.ProtocolVersions(), "only versions the release speaks, newest first")
	assert.Nil(t, mcpgotest.Server(newServer("probe"), mcpgotest.WithProtocolVersions("1999-01-01")).ProtocolVersions())
}

// The ordering mcp-go's StdioServer gets wrong (297 of 300 late): a
// notification sent by a handler before it returns must precede its response.
func TestProgressIsWrittenBeforeResponse(t *testing.T) {
	t.Parallel()
	sdktest.EachEra(t, func(t *testing.T, era adaptertest.Era) {
		var tr mcptest.Transcript
		c := connect(t, mcpgotest.Server(newServer("probe")), era.Version, mcptest.WithTranscript(&tr))
		adaptertest.CallWithProgress(t, c, "progress", "tok-", 200)
		calls, late := adaptertest.ProgressOrder(t, tr.Snapshot())
		assert.Equal(t, 200, calls)
		assert.Zero(t, late, "responses written before their progress notification")
	})
}

// Two servers, and two connections to one server, in parallel subtests:
// each client sees only its own notifications (mcp-go's StdioServer shares
// one session per process and cross-delivers them).
func TestParallelConnectionsDoNotCrossTalk(t *testing.T) {
	t.Parallel()
	shared := newServer("shared")
	adapters := map[string]*mcpgotest.Adapter{
		"alpha":    mcpgotest.Server(newServer("alpha")),
		"beta":     mcpgotest.Server(newServer("beta")),
		"shared-1": mcpgotest.Server(shared),
		"shared-2": mcpgotest.Server(shared),
	}
	for name, a := range adapters {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var tr mcptest.Transcript
			c := connect(t, a, "2025-06-18", mcptest.WithTranscript(&tr))
			adaptertest.CallWithProgress(t, c, "progress", name+"-", 50)
			calls, late := adaptertest.ProgressOrder(t, tr.Snapshot())
			assert.Equal(t, 50, calls, name)
			assert.Zero(t, late, name)
			notes := 0
			for _, e := range tr.Snapshot().Entries {
				var n struct {
					Method string `json:"method"`
					Params struct {
						Token string `json:"progressToken"`
					} `json:"params"`
				}
				require.NoError(t, json.Unmarshal(e.Data, &n))
				if e.Dir == memtransport.ServerToClient && n.Method == "notifications/progress" {
					notes++
					assert.True(t, strings.HasPrefix(n.Params.Token, name+"-"), "%s got %s's notification", name, n.Params.Token)
				}
			}
			assert.Equal(t, 50, notes, "%s got exactly its own notifications", name)
		})
	}
}

func TestSessionsAreUniqueAndUnregistered(t *testing.T) {
	t.Parallel()
	s := newServer("probe")
	a := mcpgotest.Server(s)
	ids := map[string]bool{}
	for range 3 {
		end, srvEnd := memtransport.Pair()
		done := make(chan error, 1)
		go func() { done <- a.Serve(t.Context(), srvEnd) }()
		c, err := client.Connect(t.Context(), end, &client.Options{ProtocolVersion: "2025-06-18"})
		require.NoError(t, err)
		id := adaptertest.Text(t, adaptertest.Call(t, c, "session", nil))
		assert.Regexp(t, `^mcptest-`, id)
		assert.False(t, ids[id], "session id %s reused", id)
		ids[id] = true

		require.NoError(t, s.SendNotificationToSpecificClient(id, "notifications/message", map[string]any{"level": "info", "data": "x"}))
		require.NoError(t, c.Close())
		require.NoError(t, <-done)
		assert.Error(t, s.SendNotificationToSpecificClient(id, "notifications/message", map[string]any{"level": "info", "data": "x"}),
			"the session is unregistered when Serve returns")
	}
}

func TestServerToClientRequestsAtLegacyVersion(t *testing.T) {
	t.Parallel()
	c := connect(t, mcpgotest.Server(newServer("probe")), "2025-06-18", mcptest.WithClient(client.Options{
		CreateMessage: func(context.Context, *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
			return &client.CreateMessageResult{Model: "test-model", Role: "assistant", Content: []client.Content{&client.TextContent{Text: "hi there"}}}, nil
		},
		Elicit: func(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
			return &client.ElicitResult{Action: client.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
		ListRoots: func(context.Context) ([]*client.Root, error) {
			return []*client.Root{{URI: "file:///work", Name: "work"}}, nil
		},
	}))

	assert.Equal(t, `test-model said "hi there"`, adaptertest.Text(t, adaptertest.Call(t, c, "sample", nil)))
	assert.Equal(t, "accept: map[name:Ada]", adaptertest.Text(t, adaptertest.Call(t, c, "ask", nil)))
	assert.Equal(t, "file:///work", adaptertest.Text(t, adaptertest.Call(t, c, "roots", nil)))
}

// At 2026-07-28 server-initiated requests are gone; mcp-go refuses them and
// the session carries on.
func TestServerToClientRequestsRefusedAtModernVersion(t *testing.T) {
	t.Parallel()
	sdktest.SkipUnlessModern(t)
	c := connect(t, mcpgotest.Server(newServer("probe")), "", mcptest.WithClient(client.Options{
		CreateMessage: func(context.Context, *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
			return nil, errors.New("not reached")
		},
	}))
	res := adaptertest.Call(t, c, "sample", nil)
	assert.True(t, res.IsError)
	assert.Contains(t, adaptertest.Text(t, res), "server-initiated requests are not supported")
	assert.Equal(t, "ok", adaptertest.Text(t, adaptertest.Call(t, c, "echo", map[string]any{"text": "ok"})))
}

func TestClientErrorAnswerReachesTheHandler(t *testing.T) {
	t.Parallel()
	// The client declares sampling (a server must not ask otherwise) and refuses the request.
	c := connect(t, mcpgotest.Server(newServer("probe")), "2025-06-18", mcptest.WithClient(client.Options{
		CreateMessage: func(context.Context, *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
			return nil, errors.New("the user declined")
		},
	}))
	res := adaptertest.Call(t, c, "sample", nil)
	assert.True(t, res.IsError)
	assert.Contains(t, adaptertest.Text(t, res), "sampling failed: mcpgo: the client answered sampling/createMessage with error")
}

func TestPanicIsReportedAndAnsweredAndServingGoesOn(t *testing.T) {
	t.Parallel()
	sdktest.EachEra(t, func(t *testing.T, era adaptertest.Era) {
		sv := adaptertest.Serve(t, mcpgotest.Server(newServer("probe")))
		c := sv.Connect(t, era.Version)

		_, err := c.CallTool(t.Context(), "boom", map[string]any{})
		assert.Equal(t, sdktest.WireErr(client.CodeInternalError, `panic in tool "boom": kaboom`), adaptertest.WireError(t, err))
		r := <-sv.Reports
		assert.Equal(t, "tools/call", r.Method)
		assert.Equal(t, "boom", r.Name)
		assert.Equal(t, "kaboom", r.Value)
		assert.Contains(t, string(r.Stack), "helpers_test.go", "the stack reaches the panicking handler")

		_, err = c.GetPrompt(t.Context(), "crash", nil)
		assert.Equal(t, `panic in prompt "crash": prompt kaboom`, adaptertest.WireError(t, err).Message)
		r = <-sv.Reports
		assert.Equal(t, crash.Report{Method: "prompts/get", Name: "crash", Value: r.Value, Stack: r.Stack}, r)

		assert.Equal(t, "still here", adaptertest.Text(t, adaptertest.Call(t, c, "echo", map[string]any{"text": "still here"})))
	})
}

// With mcp-go's own WithRecovery the server turns the panic into an error
// itself, and the adapter's last resort stays out of the way (the harness
// would fail the test if it reported the panic).
func TestOwnRecoveryRunsFirst(t *testing.T) {
	t.Parallel()
	c := connect(t, mcpgotest.Server(newServer("probe", server.WithRecovery())), "2025-06-18")
	_, err := c.CallTool(t.Context(), "boom", map[string]any{})
	assert.Contains(t, adaptertest.WireError(t, err).Message, "panic recovered in boom tool handler: kaboom")
}

// Exact wire behaviour, with raw frames: malformed JSON gets -32700 and the
// session goes on; a batch gets mcp-go's own answer.
func TestMalformedInputOnTheWire(t *testing.T) {
	t.Parallel()
	sv := adaptertest.Serve(t, mcpgotest.Server(newServer("probe")))
	raw := rawSession{t, sv.Client}

	raw.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"v0"}}}`)
	assert.Contains(t, raw.receive(), `"protocolVersion":"2025-06-18"`)
	raw.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	raw.send(`{"jsonrpc":"2.0","id":2,"method":`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, raw.receive())
	raw.send(`not json at all`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, raw.receive())
	raw.send(`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Failed to parse message"}}`, raw.receive())

	raw.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"}}}`)
	assert.Equal(t, `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"after"}]}}`, raw.receive())
}

func TestOversizedResponseIsAnsweredWithAnError(t *testing.T) {
	t.Parallel()
	c := connect(t, mcpgotest.Server(newServer("probe")), "2025-06-18", mcptest.WithTransportOptions(memtransport.WithMaxMessageSize(2048)))
	_, err := c.CallTool(t.Context(), "big", map[string]any{})
	werr := adaptertest.WireError(t, err)
	assert.Equal(t, client.CodeInternalError, werr.Code)
	assert.Contains(t, werr.Message, "exceeds the maximum message size of 2048 bytes")
	assert.Equal(t, "ok", adaptertest.Text(t, adaptertest.Call(t, c, "echo", map[string]any{"text": "ok"})))
}

// The restriction is the adapter's own, so it holds on every release; only
// a 2026-07-28-only server needs a release that speaks it.
func TestProtocolVersionsRestrictWhatTheServerOffers(t *testing.T) {
	t.Parallel()
	legacyOnly := mcpgotest.WithProtocolVersions("2025-06-18", "2025-03-26")
	t.Run("the harness starts with initialize", func(t *testing.T) {
		t.Parallel()
		// ProtocolVersions lists no 2026-07-28, so mcptest.Connect does not
		// probe with server/discover.
		var tr mcptest.Transcript
		c := connect(t, mcpgotest.Server(newServer("probe"), legacyOnly), "", mcptest.WithTranscript(&tr))
		assert.Equal(t, "2025-06-18", c.ProtocolVersion())
		entries := tr.Snapshot().Entries
		require.GreaterOrEqual(t, len(entries), 2)
		assert.Contains(t, string(entries[0].Data), `"method":"initialize"`)
	})
	t.Run("a client that tries 2026-07-28 first is refused", func(t *testing.T) {
		t.Parallel()
		c, s := memtransport.Pair()
		done := make(chan error, 1)
		go func() { done <- mcpgotest.Server(newServer("probe"), legacyOnly).Serve(t.Context(), s) }()
		raw := rawSession{t, c}
		raw.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		answer := raw.receive()
		assert.Contains(t, answer, `"code":-32022`)
		assert.Contains(t, answer, `"data":{"supported":["2025-06-18","2025-03-26"],"requested":"2026-07-28"}`)
		require.NoError(t, c.Close())
		require.NoError(t, <-done)
	})
	t.Run("client asks for a newer legacy version", func(t *testing.T) {
		t.Parallel()
		c := connect(t, mcpgotest.Server(newServer("probe"), legacyOnly), "2025-11-25")
		assert.Equal(t, "2025-06-18", c.ProtocolVersion())
	})
	t.Run("modern only", func(t *testing.T) {
		t.Parallel()
		sdktest.SkipUnlessModern(t)
		var tr mcptest.Transcript
		c := connect(t, mcpgotest.Server(newServer("probe"), mcpgotest.WithProtocolVersions("2026-07-28")), "", mcptest.WithTranscript(&tr))
		assert.Equal(t, "2026-07-28", c.ProtocolVersion())
		assert.Equal(t, []string{"2026-07-28"}, c.ServerVersions())
		assert.Contains(t, tr.String(), `"supportedVersions":["2026-07-28"]`)
		assert.Equal(t, "new", adaptertest.Text(t, adaptertest.Call(t, c, "echo", map[string]any{"text": "new"})))
	})
}

func TestContextFuncReachesHandlers(t *testing.T) {
	t.Parallel()
	type userKey struct{}
	s := newServer("probe")
	s.AddTool(mcp.NewTool("whoami"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(ctx.Value(userKey{}).(string)), nil
	})
	c := connect(t, mcpgotest.Server(s, mcpgotest.WithContextFunc(func(ctx context.Context) context.Context {
		return context.WithValue(ctx, userKey{}, "alice")
	})), "")
	assert.Equal(t, "alice", adaptertest.Text(t, adaptertest.Call(t, c, "whoami", nil)))
}

func TestShutdownIsClean(t *testing.T) {
	t.Parallel()
	t.Run("client closes", func(t *testing.T) {
		t.Parallel()
		end, s := memtransport.Pair()
		done := make(chan error, 1)
		go func() { done <- mcpgotest.Server(newServer("probe")).Serve(t.Context(), s) }()
		c, err := client.Connect(t.Context(), end, nil)
		require.NoError(t, err)
		require.NoError(t, c.Close())
		require.NoError(t, <-done)
	})
	t.Run("context cancelled with a request waiting on the client", func(t *testing.T) {
		t.Parallel()
		c, s := memtransport.Pair()
		defer c.Close()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- mcpgotest.Server(newServer("probe")).Serve(ctx, s) }()
		raw := rawSession{t, c}
		raw.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"raw","version":"v0"}}}`)
		raw.receive()
		raw.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		raw.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{}}}`)
		assert.Contains(t, raw.receive(), `"method":"sampling/createMessage"`, "the handler now waits for an answer that never comes")
		cancel()
		require.NoError(t, <-done, "Serve ends the waiting handler and returns")
		b, err := c.Receive(t.Context())
		require.ErrorIs(t, err, io.ErrClosedPipe, "got %s", b)
	})
}

func TestServeRejectsNilConnection(t *testing.T) {
	t.Parallel()
	require.ErrorContains(t, mcpgotest.Server(newServer("probe")).Serve(t.Context(), nil), "nil connection")
}

// WithNotificationBuffer bounds how many notifications wait for the writer.
// With the writer held on a first notification, a buffer of 2 takes two
// more, and mcp-go refuses the rest with ErrNotificationChannelBlocked.
func TestNotificationBufferBoundsWhatWaits(t *testing.T) {
	t.Parallel()
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	holdNotifications := memtransport.WithFault(func(f memtransport.Frame) memtransport.Action {
		if f.Dir != memtransport.ServerToClient || !bytes.Contains(f.Data, []byte(`"notifications/message"`)) {
			return memtransport.Action{}
		}
		once.Do(func() { close(held) })
		return memtransport.Action{Hold: release}
	})

	s := server.NewMCPServer("flood", "v0", server.WithLogging())
	s.AddTool(mcp.NewTool("flood"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		defer close(release)
		notify := func() error {
			return server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": "x"})
		}
		if err := notify(); err != nil {
			return nil, err
		}
		select {
		case <-held: // the writer has taken the first: the buffer is empty
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		refused := 0
		for range 5 {
			if err := notify(); errors.Is(err, server.ErrNotificationChannelBlocked) {
				refused++
			} else if err != nil {
				return nil, err
			}
		}
		return mcp.NewToolResultText(strconv.Itoa(refused)), nil
	})

	c := connect(t, mcpgotest.Server(s, mcpgotest.WithNotificationBuffer(2)), "2025-06-18", mcptest.WithTransportOptions(holdNotifications))
	assert.Equal(t, "3", adaptertest.Text(t, adaptertest.Call(t, c, "flood", nil)))
}

func TestNotificationBufferMustHoldOne(t *testing.T) {
	t.Parallel()
	assert.PanicsWithValue(t, "mcpgotest.WithNotificationBuffer: n must be at least 1, got 0", func() { mcpgotest.WithNotificationBuffer(0) })
}
