package mcpgo_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/mcptest/mcpgo"
)

// assertServedAsAlways checks what every connection to newServer gets,
// however often the server was served before: one crash report and a
// -32603 answer for the panicking tool, and a working tool after it.
func assertServedAsAlways(t *testing.T, sv *sdktest.Served, version string) {
	t.Helper()
	cs := sv.Connect(t, version, nil)
	_, err := cs.CallTool(t.Context(), &gomcp.CallToolParams{Name: "boom", Arguments: map[string]any{}})
	assert.Equal(t, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: `panic in tool "boom": kaboom`}, sdktest.WireError(t, err))
	r := <-sv.Reports
	assert.Equal(t, "boom", r.Name)
	assert.Equal(t, "hi", sdktest.Text(t, sdktest.Call(t, cs, "echo", map[string]any{"text": "hi"})))
	assert.True(t, sv.AssertNoPanic(t), "one panic, one report")
}

// The adapter recovers on its own side of the boundary (each request's
// goroutine is the adapter's): serving a server, again and again, through
// one Adapter or several, one after another or at once, gives each
// connection the same behaviour, and afterwards the server is as it was: a
// panic in it, handled by mcp-go directly, is not recovered.
func TestServingLeavesTheServerAlone(t *testing.T) {
	t.Parallel()
	s := newServer("probe")
	reused := mcpgo.Server(s)
	adapters := []*mcpgo.Adapter{reused, reused, mcpgo.Server(s), mcpgo.Server(s)}

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

	panicked := func() (v any) {
		defer func() { v = recover() }()
		s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"v0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`))
		return nil
	}()
	assert.Equal(t, "kaboom", panicked, "the server has no recovery of the adapter's after serving")
}
