//go:build unix

package transport_test

import (
	"fmt"
	"os/exec"
	"testing"

	"github.com/mcptestkit/mcptestkit/client/transport"
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

// BenchmarkStdioStartClose is a server's whole life: start the process,
// initialize, close (stdin EOF, exit, reap).
func BenchmarkStdioStartClose(b *testing.B) {
	bin, err := stdioServerBuild()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		tr, err := transport.Command(exec.Command(bin))
		if err != nil {
			b.Fatal(err)
		}
		legacyHandshake(b, tr, "2025-11-25")
		if err := tr.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
