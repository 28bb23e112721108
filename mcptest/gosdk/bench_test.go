package gosdk_test

import (
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/mcptest/gosdk"
)

// BenchmarkCallTool measures one tools/call round trip through the adapter
// and the SDK, from raw frames on the client end (the same frames as
// mcptest/mcpgo's benchmark, so the two compare).
func BenchmarkCallTool(b *testing.B) {
	sdktest.BenchCallTool(b, gosdk.Server(newServer(nil)))
}
