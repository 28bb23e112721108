package surface_test

import (
	"context"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/surface"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// The cost of recording: the same tools/call round trip over an in-memory
// connection, observed and not, side by side.
func BenchmarkCallTool(b *testing.B) {
	for _, bc := range []struct {
		name    string
		observe bool
	}{{"recording=off", false}, {"recording=on", true}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			cl, sv := memtransport.Pair()
			done := make(chan struct{})
			go func() {
				defer close(done)
				_ = notes("bench").Serve(ctx, sv)
			}()
			var tr client.Transport = cl
			if bc.observe {
				tr = surface.Observe(cl, surface.Tests)
			}
			c, err := client.Connect(ctx, tr, &client.Options{ProtocolVersion: client.Version20251125})
			if err != nil {
				b.Fatal(err)
			}
			args := map[string]any{"text": "x", "tag": "home"}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := c.CallTool(ctx, "add", args); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			c.Close()
			cancel()
			<-done
		})
	}
}
