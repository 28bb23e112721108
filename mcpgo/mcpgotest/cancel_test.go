package mcpgotest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcpgo/internal/adaptertest"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
)

// A notifications/cancelled that arrives while its request's goroutine has
// not yet reached the point where mcp-go registers the request still
// cancels it. mcp-go keeps a request's cancel func from inside
// HandleMessage, on the goroutine that handles it; the adapter reads the
// notification on its reading goroutine, so without its own bookkeeping the
// notification could come first, find nothing, and leave the handler
// running until the connection closed. A request hook holds the handler
// before that point here, which makes the order certain.
func TestCancelledBeforeTheHandlerRegisters(t *testing.T) {
	t.Parallel()
	entered, release := make(chan struct{}), make(chan struct{})
	hooks := &server.Hooks{}
	hooks.AddOnRequestInitialization(func(_ context.Context, _ any, message any) error {
		if strings.Contains(fmt.Sprintf("%s", message), `"wait"`) {
			close(entered)
			<-release
		}
		return nil
	})
	s := server.NewMCPServer("probe", "v0", server.WithToolCapabilities(true), server.WithHooks(hooks))
	ended := make(chan error, 1)
	s.AddTool(mcp.NewTool("wait"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	})
	sv := adaptertest.Serve(t, mcpgotest.Server(s))
	raw := rawSession{t, sv.Client}
	raw.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"v0"}}}`)
	assert.Contains(t, raw.receive(), `"protocolVersion":"2025-06-18"`)
	raw.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	raw.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	<-entered
	raw.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user gave up"}}`)
	// Notifications are handled in order on the reading goroutine, so once
	// the ping after it is answered the cancellation has been handled.
	raw.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"result":{}}`, raw.receive())
	close(release)

	// The bound only turns a lost cancellation into a failure instead of a
	// hang; a cancelled handler ends at once.
	select {
	case err := <-ended:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the handler was not cancelled: the cancellation was lost")
	}
}
