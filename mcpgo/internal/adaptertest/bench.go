package adaptertest

import (
	"testing"

	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// BenchCallTool measures one tools/call round trip through s, from raw
// frames on the client end, so that the measure is the adapter and the SDK
// and not a client. The server must have a tool "echo" that takes
// {"text": string}. Both adapter packages run it, so their numbers compare.
func BenchCallTool(b *testing.B, s mcptest.Server) {
	ctx := b.Context()
	c, end := memtransport.Pair(memtransport.WithTranscriptLimit(0))
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, end) }()
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
