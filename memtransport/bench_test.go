package memtransport_test

import (
	"context"
	"testing"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

var benchMsg = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)

// One goroutine sends and receives: the cost of a frame crossing.
func BenchmarkSendReceive(b *testing.B) {
	c, s := memtransport.Pair(memtransport.WithTranscriptLimit(1024))
	defer c.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Send(ctx, benchMsg); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Receive(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// A request and its response between two goroutines: the round trip a client
// call makes, scheduler hand-offs included.
func BenchmarkRoundTrip(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts []memtransport.Option
	}{
		{"transcript", nil},
		{"transcript-limit-1024", []memtransport.Option{memtransport.WithTranscriptLimit(1024)}},
		{"no-transcript", []memtransport.Option{memtransport.WithTranscriptLimit(0)}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c, s := memtransport.Pair(tc.opts...)
			ctx := context.Background()
			done := make(chan struct{})
			go func() {
				defer close(done)
				for {
					m, err := s.Receive(ctx)
					if err != nil || s.Send(ctx, m) != nil {
						return
					}
				}
			}()
			b.ReportAllocs()
			for b.Loop() {
				if err := c.Send(ctx, benchMsg); err != nil {
					b.Fatal(err)
				}
				if _, err := c.Receive(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			c.Close()
			<-done
		})
	}
}

func BenchmarkPairClose(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		c, s := memtransport.Pair()
		c.Close()
		s.Close()
	}
}
