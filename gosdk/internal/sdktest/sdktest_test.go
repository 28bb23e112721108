package sdktest_test

import (
	"context"
	"io"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/adaptertest"
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
	return s
}

func TestEachEraNegotiatesItsVersion(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var ran []string
	t.Run("eras", func(t *testing.T) {
		sdktest.EachEra(t, func(t *testing.T, era adaptertest.Era) {
			mu.Lock()
			ran = append(ran, era.Name)
			mu.Unlock()
			c := sdktest.Serve(t, gosdktest.Server(newServer())).Connect(t, era.Version)
			assert.Equal(t, era.Want, c.ProtocolVersion())
			assert.Equal(t, "hi "+era.Name, adaptertest.Text(t, adaptertest.Call(t, c, "echo", map[string]any{"text": "hi " + era.Name})))
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
