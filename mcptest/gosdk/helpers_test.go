package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/crash"
	"github.com/mcptestkit/mcptestkit/mcptest/gosdk"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// eras are the two protocol generations a test runs in: the go-sdk client
// negotiates 2026-07-28 through server/discover when no version is pinned.
var eras = []struct{ name, version, want string }{
	{"legacy", "2025-06-18", "2025-06-18"},
	{"2026-07-28", "", "2026-07-28"},
}

// clientTransport is a test-only go-sdk client Transport over a
// memtransport end.
type clientTransport struct{ conn *memtransport.Conn }

func (t clientTransport) Connect(context.Context) (mcp.Connection, error) {
	return clientConn(t), nil
}

type clientConn struct{ conn *memtransport.Conn }

func (c clientConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	data, err := c.conn.Receive(ctx)
	if errors.Is(err, memtransport.ErrClosed) {
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	return jsonrpc.DecodeMessage(data)
}

func (c clientConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.conn.Send(ctx, data)
}

func (c clientConn) Close() error      { return c.conn.Close() }
func (c clientConn) SessionID() string { return "" }

// served is one connection to an adapter, with what Serve returned and the
// panics it reported.
type served struct {
	client  *memtransport.Conn
	result  chan error
	reports chan crash.Report
}

// serve runs a.Serve on a fresh pair for the length of the test.
func serve(t *testing.T, a *gosdk.Adapter, opts ...memtransport.Option) *served {
	t.Helper()
	c, s := memtransport.Pair(opts...)
	sv := &served{client: c, result: make(chan error, 1), reports: make(chan crash.Report, 16)}
	ctx := crash.WithReporter(t.Context(), func(r crash.Report) { sv.reports <- r })
	go func() { sv.result <- a.Serve(ctx, s) }()
	t.Cleanup(func() {
		c.Close()
		if err := <-sv.result; err != nil {
			t.Errorf("Serve: %v", err)
		}
		if t.Failed() {
			t.Logf("transcript:\n%s", c.Transcript())
		}
	})
	return sv
}

// connect runs the go-sdk client's handshake over sv's client end.
func connect(t *testing.T, sv *served, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cl := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
	cs, err := cl.Connect(t.Context(), clientTransport{sv.client}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// errorLog counts a server's ERROR records, to show that shutting down
// logs none.
type errorLog struct {
	mu   sync.Mutex
	msgs []string
}

func (h *errorLog) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }
func (h *errorLog) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, r.Message)
	return nil
}
func (h *errorLog) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *errorLog) WithGroup(string) slog.Handler      { return h }
func (h *errorLog) errors() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.msgs...)
}

type echoIn struct {
	Text string `json:"text"`
}

type echoOut struct {
	Echo string `json:"echo"`
}

// newServer builds a go-sdk server with the tools the tests use.
func newServer(logger *slog.Logger) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "v0"}, &mcp.ServerOptions{Logger: logger})
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
		return nil, echoOut{Echo: in.Text}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "progress"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, echoOut, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 1, Message: "done"}); err != nil {
				return nil, echoOut{}, err
			}
		}
		return nil, echoOut{Echo: "finished"}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "boom"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, echoOut, error) {
		panic("kaboom")
	})
	mcp.AddTool(s, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, echoOut, error) {
		extra := req.GetExtra()
		if extra == nil || extra.TokenInfo == nil {
			return nil, echoOut{Echo: "anonymous"}, nil
		}
		return nil, echoOut{Echo: fmt.Sprintf("%s via %s", extra.TokenInfo.UserID, extra.Header.Get("X-Test"))}, nil
	})
	s.AddResource(&mcp.Resource{URI: "file:///crash", Name: "crash"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		panic(errors.New("resource kaboom"))
	})
	return s
}

// text returns the first text content of a result.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, res.Content)
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "content is %T", res.Content[0])
	return tc.Text
}

// progressOrder reads a transcript and counts the tools/call requests that
// carried a progress token and got a response, and how many of those
// responses went out before the progress notification for their token.
func progressOrder(t *testing.T, tr memtransport.Transcript) (calls, late int) {
	t.Helper()
	type frame struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta struct {
				ProgressToken any `json:"progressToken"`
			} `json:"_meta"`
			ProgressToken any `json:"progressToken"`
		} `json:"params"`
	}
	tokenOf := map[string]any{} // request id -> progress token
	notified := map[any]bool{}
	for _, e := range tr.Entries {
		var f frame
		require.NoError(t, json.Unmarshal(e.Data, &f), "frame %d", e.Seq)
		switch {
		case e.Dir == memtransport.ClientToServer && f.Method == "tools/call" && f.Params.Meta.ProgressToken != nil:
			tokenOf[string(f.ID)] = f.Params.Meta.ProgressToken
		case e.Dir == memtransport.ServerToClient && f.Method == "notifications/progress":
			notified[f.Params.ProgressToken] = true
		case e.Dir == memtransport.ServerToClient && f.Method == "":
			if tok, ok := tokenOf[string(f.ID)]; ok {
				calls++
				if !notified[tok] {
					late++
				}
			}
		}
	}
	return calls, late
}
