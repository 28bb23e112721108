package sdktest_test

import (
	"context"
	"github.com/mcptestkit/mcptestkit/internal/faketb"
	"io"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/mcpgo/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

type echoIn struct {
	Text string `json:"text"`
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "boom"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		panic("kaboom")
	})
	return s
}

func TestEachEraNegotiatesItsVersion(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var ran []string
	t.Run("eras", func(t *testing.T) {
		sdktest.EachEra(t, func(t *testing.T, era sdktest.Era) {
			mu.Lock()
			ran = append(ran, era.Name)
			mu.Unlock()
			cs := sdktest.Serve(t, gosdktest.Server(newServer())).Connect(t, era.Version, nil)
			assert.Equal(t, era.Want, cs.InitializeResult().ProtocolVersion)
			assert.Equal(t, "hi "+era.Name, sdktest.Text(t, sdktest.Call(t, cs, "echo", map[string]any{"text": "hi " + era.Name})))
		})
	})
	assert.ElementsMatch(t, []string{"legacy", "2026-07-28"}, ran)
}

func TestTransportReadsEOFWhenClosed(t *testing.T) {
	t.Parallel()
	c, s := memtransport.Pair()
	conn, err := sdktest.Transport{Conn: c}.Connect(t.Context())
	require.NoError(t, err)
	require.NoError(t, s.SendRaw(t.Context(), []byte(`{"jsonrpc":`)))
	_, err = conn.Read(t.Context())
	require.Error(t, err, "a malformed frame is an error, not a message")
	require.NoError(t, s.Close())
	_, err = conn.Read(t.Context())
	assert.ErrorIs(t, err, io.EOF)
}

func TestAssertNoPanic(t *testing.T) {
	t.Parallel()
	sv := sdktest.Serve(t, gosdktest.Server(newServer()))
	cs := sv.Connect(t, "2025-06-18", nil)

	faketb.Run(t, func(tb testing.TB) { assert.True(t, sv.AssertNoPanic(tb)) }).ExpectPass(t)

	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "boom", Arguments: map[string]any{}})
	require.Error(t, err, "the adapter answers the panic with an error")
	// The report is sent before the answer, so it is there by now.
	faketb.Run(t, func(tb testing.TB) { assert.False(t, sv.AssertNoPanic(tb)) }).ExpectFailure(t, `panic in tools/call "boom": kaboom`)
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
	calls, late := sdktest.ProgressOrder(t, c.Transcript())
	assert.Equal(t, 2, calls)
	assert.Equal(t, 1, late)
}
