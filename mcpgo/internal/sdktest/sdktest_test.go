package sdktest_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcpgo/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

func newServer() *server.MCPServer {
	s := server.NewMCPServer("probe", "v0")
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	s.AddTool(mcp.NewTool("boom"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
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
			c := sdktest.Serve(t, mcpgotest.Server(newServer())).Connect(t, era.Version, nil)
			assert.Equal(t, era.Want, c.ProtocolVersion())
			assert.Equal(t, "hi "+era.Name, sdktest.Text(t, sdktest.Call(t, c, "echo", map[string]any{"text": "hi " + era.Name})))
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

func TestAssertNoPanic(t *testing.T) {
	t.Parallel()
	sv := sdktest.Serve(t, mcpgotest.Server(newServer()))
	c := sv.Connect(t, "2025-06-18", nil)

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
