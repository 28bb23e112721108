package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/crash"
	"github.com/mcptestkit/mcptestkit/mcptest/mcpgo"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// eras are the two protocol generations a test runs in: the go-sdk client
// negotiates 2026-07-28 through server/discover when no version is pinned.
var eras = []struct{ name, version, want string }{
	{"legacy", "2025-06-18", "2025-06-18"},
	{"2026-07-28", "", "2026-07-28"},
}

// clientTransport is a test-only go-sdk client Transport over a
// memtransport end: the go-sdk client drives the mcp-go server.
type clientTransport struct{ conn *memtransport.Conn }

func (t clientTransport) Connect(context.Context) (gomcp.Connection, error) {
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
func serve(t *testing.T, a *mcpgo.Adapter, opts ...memtransport.Option) *served {
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
func connect(t *testing.T, sv *served, version string, opts *gomcp.ClientOptions) *gomcp.ClientSession {
	t.Helper()
	cl := gomcp.NewClient(&gomcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
	cs, err := cl.Connect(t.Context(), clientTransport{sv.client}, &gomcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// newServer builds an mcp-go server named name with the tools the tests use.
func newServer(name string, opts ...server.ServerOption) *server.MCPServer {
	opts = append([]server.ServerOption{server.WithToolCapabilities(true), server.WithLogging()}, opts...)
	s := server.NewMCPServer(name, "v0", opts...)
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	s.AddTool(mcp.NewTool("progress"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
			err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/progress", map[string]any{
				"progressToken": req.Params.Meta.ProgressToken, "progress": 1, "total": 1, "message": name,
			})
			if err != nil {
				return nil, err
			}
		}
		return mcp.NewToolResultText("finished by " + name), nil
	})
	s.AddTool(mcp.NewTool("session"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(server.ClientSessionFromContext(ctx).SessionID()), nil
	})
	s.AddTool(mcp.NewTool("boom"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("kaboom")
	})
	s.AddTool(mcp.NewTool("big"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.Repeat("x", 4096)), nil
	})
	s.AddTool(mcp.NewTool("sample"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := server.ServerFromContext(ctx).RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("say hi")}},
			MaxTokens: 10,
		}})
		if err != nil {
			return mcp.NewToolResultError("sampling failed: " + err.Error()), nil
		}
		text, _ := res.Content.(mcp.TextContent)
		return mcp.NewToolResultText(fmt.Sprintf("%s said %q", res.Model, text.Text)), nil
	})
	s.AddTool(mcp.NewTool("ask"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := server.ServerFromContext(ctx).RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
			Message:         "Your name?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		}})
		if err != nil {
			return mcp.NewToolResultError("elicitation failed: " + err.Error()), nil
		}
		return mcp.NewToolResultText(fmt.Sprintf("%s: %v", res.Action, res.Content)), nil
	})
	s.AddTool(mcp.NewTool("roots"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := server.ServerFromContext(ctx).RequestRoots(ctx, mcp.ListRootsRequest{})
		if err != nil {
			return mcp.NewToolResultError("roots failed: " + err.Error()), nil
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return mcp.NewToolResultText(strings.Join(uris, ",")), nil
	})
	s.AddPrompt(mcp.NewPrompt("crash"), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		panic(errors.New("prompt kaboom"))
	})
	return s
}

// text returns the first text content of a go-sdk client result.
func text(t *testing.T, res *gomcp.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, res.Content)
	tc, ok := res.Content[0].(*gomcp.TextContent)
	require.True(t, ok, "content is %T", res.Content[0])
	return tc.Text
}

func call(t *testing.T, cs *gomcp.ClientSession, name string, args map[string]any) *gomcp.CallToolResult {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(t.Context(), &gomcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	return res
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

// rawSession sends raw frames and reads raw answers, for exact wire tests.
type rawSession struct {
	t    *testing.T
	conn *memtransport.Conn
}

func (r rawSession) send(msg string) {
	r.t.Helper()
	require.NoError(r.t, r.conn.SendRaw(r.t.Context(), []byte(msg)))
}

func (r rawSession) receive() string {
	r.t.Helper()
	b, err := r.conn.Receive(r.t.Context())
	require.NoError(r.t, err)
	return string(b)
}
