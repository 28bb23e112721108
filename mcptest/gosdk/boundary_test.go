package gosdk_test

import (
	"context"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/mcptest/gosdk"
)

// assertServedAsAlways checks what every connection to newServer gets,
// however often the server was served before: one crash report and a
// -32603 answer for the panicking tool, and a working tool after it.
func assertServedAsAlways(t *testing.T, sv *sdktest.Served, version string) {
	t.Helper()
	cs := sv.Connect(t, version, nil)
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "boom", Arguments: map[string]any{}})
	assert.Equal(t, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: `panic in tool "boom": kaboom`}, sdktest.WireError(t, err))
	r := <-sv.Reports
	assert.Equal(t, "boom", r.Name)
	res := sdktest.Call(t, cs, "echo", map[string]any{"text": "hi"})
	assert.Equal(t, map[string]any{"echo": "hi"}, res.StructuredContent)
	assert.True(t, sv.AssertNoPanic(t), "one panic, one report")
}

// Serving a server, again and again, through one Adapter or several, one
// after another or at once, gives each connection the same behaviour; and
// afterwards the server, served by anything else, behaves as it did before
// it was ever served: a panic in it is not recovered by the adapter's layer.
func TestServingLeavesTheServerAlone(t *testing.T) {
	t.Parallel()
	s := newServer(nil)
	reused := gosdk.Server(s)
	adapters := []*gosdk.Adapter{reused, reused, gosdk.Server(s), gosdk.Server(s)}

	t.Run("one after another", func(t *testing.T) {
		for i, a := range adapters {
			t.Run(sdktest.Eras()[i%2].Name, func(t *testing.T) {
				assertServedAsAlways(t, sdktest.Serve(t, a), sdktest.Eras()[i%2].Version)
			})
		}
	})
	t.Run("at once", func(t *testing.T) {
		for i, a := range adapters {
			t.Run(sdktest.Eras()[i%2].Name, func(t *testing.T) {
				t.Parallel()
				assertServedAsAlways(t, sdktest.Serve(t, a), sdktest.Eras()[i%2].Version)
			})
		}
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
