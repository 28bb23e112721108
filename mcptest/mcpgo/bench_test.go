package mcpgo_test

import (
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/mcptest/mcpgo"
)

// BenchmarkCallTool measures one tools/call round trip through the adapter
// and the SDK, from raw frames on the client end (the same frames as
// mcptest/gosdk's benchmark, so the two compare).
func BenchmarkCallTool(b *testing.B) {
	sdktest.BenchCallTool(b, mcpgo.Server(newServer("bench")))
}
