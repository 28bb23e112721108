package gosdktest_test

import (
	"context"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/adaptertest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// Serving a server, again and again, through one Adapter or several, one
// after another or at once, gives each connection the same behaviour; and
// afterwards the server, served by anything else, behaves as it did before
// it was ever served: a panic in it is not recovered by the adapter's layer.
func TestServingLeavesTheServerAlone(t *testing.T) {
	t.Parallel()
	s := newServer(nil)
	reused := gosdktest.Server(s)
	adaptertest.ServeRepeatedly(t, []mcptest.Server{reused, reused, gosdktest.Server(s), gosdktest.Server(s)}, sdktest.SpeaksModern(), func(t *testing.T, sv *adaptertest.Served, era adaptertest.Era) {
		c := sv.Connect(t, era.Version)
		adaptertest.AssertPanicAnswered(t, c, sv)
		assert.JSONEq(t, `{"echo":"hi"}`, string(adaptertest.Call(t, c, "echo", map[string]any{"text": "hi"}).StructuredContent))
	})

	// Now serve it as production would, with no adapter, and watch from an
	// outermost middleware: the panic reaches it untouched.
	var mu sync.Mutex
	var panics []any
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if v := recover(); v != nil {
					mu.Lock()
					panics = append(panics, v)
					mu.Unlock()
					err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "seen outside"}
				}
			}()
			return next(ctx, method, req)
		}
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(t.Context(), ct, nil)
	require.NoError(t, err)
	_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "boom", Arguments: map[string]any{}})
	assert.Equal(t, "seen outside", sdktest.WireError(t, err).Message, "the adapter's layer recovered a panic outside its sessions")
	require.NoError(t, cs.Close())
	require.NoError(t, ss.Wait())
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []any{"kaboom"}, panics)
}
