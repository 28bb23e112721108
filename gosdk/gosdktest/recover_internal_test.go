package gosdktest

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/gosdk/internal/adaptertest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/sdktest"
)

// layersServer has a tool that answers with the number of last-resort
// layers its request passed through.
func layersServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "layers", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "layers"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		n := 0
		if p, ok := ctx.Value(layersKey{}).(*int); ok {
			n = *p
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(n)}}}, nil, nil
	})
	return s
}

func layers(t *testing.T, a *Adapter) string {
	t.Helper()
	return adaptertest.Text(t, adaptertest.Call(t, sdktest.Serve(t, a).Connect(t, ""), "layers", nil))
}

// However often a server is served, it has one last-resort layer.
func TestLastResortIsAddedOnce(t *testing.T) {
	t.Parallel()
	s := layersServer()
	a := Server(s)
	for range 3 {
		t.Run("sequential", func(t *testing.T) {
			assert.Equal(t, "1", layers(t, a))
			assert.Equal(t, "1", layers(t, Server(s)))
		})
	}
	t.Run("concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() { addLastResort(s) })
		}
		wg.Wait()
		for i := range 8 {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				assert.Equal(t, "1", layers(t, Server(s)))
			})
		}
	})
}

// Middleware added after the server was served sits outside the layer; the
// next Serve adds one outside it, and only that one acts.
func TestMiddlewareAddedAfterServingGetsALayerOutside(t *testing.T) {
	t.Parallel()
	s := layersServer()
	assert.Equal(t, "1", layers(t, Server(s)))
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		require.True(t, isLastResort(next), "the layer was outermost")
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			return next(ctx, method, req)
		}
	})
	assert.Equal(t, "2", layers(t, Server(s)))
	assert.Equal(t, "2", layers(t, Server(s)), "and no more")
}
