package mcpgotest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/mcpgo/internal/adaptertest"
	"github.com/mcptestkit/mcptestkit/mcpgo/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// The adapter recovers on its own side of the boundary (each request's
// goroutine is the adapter's): serving a server, again and again, through
// one Adapter or several, one after another or at once, gives each
// connection the same behaviour, and afterwards the server is as it was: a
// panic in it, handled by mcp-go directly, is not recovered.
func TestServingLeavesTheServerAlone(t *testing.T) {
	t.Parallel()
	s := newServer("probe")
	reused := mcpgotest.Server(s)
	adaptertest.ServeRepeatedly(t, []mcptest.Server{reused, reused, mcpgotest.Server(s), mcpgotest.Server(s)}, sdktest.SpeaksModern(), func(t *testing.T, sv *adaptertest.Served, era adaptertest.Era) {
		c := sv.Connect(t, era.Version)
		adaptertest.AssertPanicAnswered(t, c, sv)
		assert.Equal(t, "hi", adaptertest.Text(t, adaptertest.Call(t, c, "echo", map[string]any{"text": "hi"})))
	})

	panicked := func() (v any) {
		defer func() { v = recover() }()
		s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"v0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`))
		return nil
	}()
	assert.Equal(t, "kaboom", panicked, "the server has no recovery of the adapter's after serving")
}
