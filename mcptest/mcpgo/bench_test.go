package mcpgo_test

import (
	"context"
	"testing"

	"github.com/mcptestkit/mcptestkit/mcptest/mcpgo"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// BenchmarkCallTool measures one tools/call round trip through the adapter
// and the SDK, from raw frames on the client end.
func BenchmarkCallTool(b *testing.B) {
	ctx := context.Background()
	c, s := memtransport.Pair(memtransport.WithTranscriptLimit(0))
	done := make(chan error, 1)
	go func() { done <- mcpgo.Server(newServer("bench")).Serve(ctx, s) }()
	roundTrip := func(msg string) {
		if err := c.Send(ctx, []byte(msg)); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Receive(ctx); err != nil {
			b.Fatal(err)
		}
	}
	roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"v0"}}}`)
	if err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	}
	b.StopTimer()
	c.Close()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
