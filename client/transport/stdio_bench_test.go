//go:build unix

package transport_test

import (
	"fmt"
	"testing"
)

// BenchmarkStdioRoundTrip is one tools/call to a go-sdk server subprocess.
func BenchmarkStdioRoundTrip(b *testing.B) {
	tr := startStdio(b, stdioServer(b, ""))
	legacyHandshake(b, tr, "2025-11-25")
	roundTrips(b, tr, echoCall(false))
}

// BenchmarkStdioEcho is the transport alone: a line to a process that
// copies it back.
func BenchmarkStdioEcho(b *testing.B) {
	tr := startStdio(b, stdioServer(b, "echo"))
	roundTrips(b, tr, func(id int64) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"text":"bench"}}`, id)
	})
}
