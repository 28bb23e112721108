package sdktest_test

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/release"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/sdktest"
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
			c := sdktest.Serve(t, gosdktest.Server(newServer())).Connect(t, era.Version)
			assert.Equal(t, era.Want, c.ProtocolVersion())
			assert.Equal(t, "hi "+era.Name, sdktest.Text(t, sdktest.Call(t, c, "echo", map[string]any{"text": "hi " + era.Name})))
		})
	})
	want := []string{"legacy", "2026-07-28"}
	if speaks, known := release.Speaks(release.Linked(), client.Version20260728); known && !speaks {
		want = want[:1] // skipped, naming the release
	}
	assert.ElementsMatch(t, want, ran)
}

// An era-neutral start with a release that has no 2026-07-28 goes straight
// to the initialize handshake: no server/discover for the server to log.
func TestStartVersionLeavesOutAProbeTheServerCannotAnswer(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "2025-06-18", sdktest.StartVersion("2025-06-18"))
	sv := sdktest.Serve(t, gosdktest.Server(newServer()))
	c := sv.Connect(t, "")
	switch speaks, known := release.Speaks(release.Linked(), client.Version20260728); {
	case !known:
		t.Skip("go-sdk's release is unknown here (replaced by a directory or a fork): the client probes")
	case speaks:
		assert.Equal(t, client.Version20260728, c.ProtocolVersion())
	default:
		assert.Equal(t, client.LatestLegacyVersion, sdktest.StartVersion(""))
		assert.NotContains(t, sv.Client.Transcript().String(), "server/discover")
		assert.Equal(t, client.Version20251125, c.ProtocolVersion())
	}
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
	c := sv.Connect(t, "2025-06-18")

	rec := &recorder{TB: t}
	assert.True(t, sv.AssertNoPanic(rec))
	assert.Empty(t, rec.errors)

	_, err := c.CallTool(t.Context(), "boom", map[string]any{})
	require.Error(t, err, "the adapter answers the panic with an error")
	// The report is sent before the answer, so it is there by now.
	rec = &recorder{TB: t}
	assert.False(t, sv.AssertNoPanic(rec))
	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], `panic in tools/call "boom": kaboom`)
}

func TestSetField(t *testing.T) {
	t.Parallel()
	var opts struct {
		KeepAlive int
		hidden    int
	}
	assert.True(t, sdktest.SetField(&opts, "KeepAlive", 3))
	assert.Equal(t, 3, opts.KeepAlive)
	assert.False(t, sdktest.SetField(&opts, "Missing", 1))
	assert.False(t, sdktest.SetField(&opts, "hidden", 1), "unexported")
	assert.Zero(t, opts.hidden)
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

// recorder is a test that records what it is told to report instead of
// failing: the root module's faketb is internal to it.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
