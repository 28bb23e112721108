package mcpgotest_test

import (
	"testing"

	"github.com/mcptestkit/mcptestkit/mcpgo/internal/adaptertest"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
)

// BenchmarkCallTool measures one tools/call round trip through the adapter
// and the SDK, from raw frames on the client end (the same frames as
// gosdk/gosdktest's benchmark, so the two compare).
func BenchmarkCallTool(b *testing.B) {
	adaptertest.BenchCallTool(b, mcpgotest.Server(newServer("bench")))
}
