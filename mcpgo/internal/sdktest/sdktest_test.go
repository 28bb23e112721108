package sdktest_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcpgo/internal/adaptertest"
	"github.com/mcptestkit/mcptestkit/mcpgo/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
)

func newServer() *server.MCPServer {
	s := server.NewMCPServer("probe", "v0")
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
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
			c := adaptertest.Serve(t, mcpgotest.Server(newServer())).Connect(t, era.Version)
			assert.Equal(t, era.Want, c.ProtocolVersion())
			assert.Equal(t, "hi "+era.Name, adaptertest.Text(t, adaptertest.Call(t, c, "echo", map[string]any{"text": "hi " + era.Name})))
		})
	})
	want := []string{"legacy"}
	if sdktest.SpeaksModern() {
		want = append(want, "2026-07-28")
	}
	assert.ElementsMatch(t, want, ran, "2026-07-28 runs exactly when %s speaks it", sdktest.Release())
}

// The test binary knows which mcp-go it is linked with, and the release
// speaks 2026-07-28 exactly from v1.0.0.
func TestRelease(t *testing.T) {
	t.Parallel()
	v := sdktest.ReleaseVersion()
	require.NotEmpty(t, v, "the build info names mcp-go")
	assert.Equal(t, "mark3labs/mcp-go "+v, sdktest.Release())
	assert.Equal(t, !strings.HasPrefix(v, "v0."), sdktest.SpeaksModern(), "%s", v)
}
