package client

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// BenchmarkServerRequestFlood measures what a flood of 20,000 server
// requests, whose callback waits, costs the client while they are all in
// (heap and goroutine stacks, in MB): each request the client reads is
// either running its callback or refused.
func BenchmarkServerRequestFlood(b *testing.B) {
	const n = 20000
	for b.Loop() {
		ce, se := memtransport.Pair(memtransport.WithTranscriptLimit(0))
		release := make(chan struct{})
		started := make(chan struct{}, n)
		done := make(chan *Client, 1)
		go func() {
			c, err := Connect(context.Background(), ce, &Options{ProtocolVersion: Version20251125, ListRoots: func(ctx context.Context) ([]*Root, error) {
				started <- struct{}{}
				select {
				case <-release:
				case <-ctx.Done():
				}
				return nil, nil
			}})
			if err != nil {
				b.Error(err)
			}
			done <- c
		}()
		recv := func() *jsonrpc.Message {
			data, err := se.Receive(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			m, err := jsonrpc.Decode(data)
			if err != nil {
				b.Fatal(err)
			}
			return m
		}
		m := recv()
		se.Send(context.Background(), jsonrpc.AppendResult(nil, m.ID, []byte(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":"1"}}`)))
		recv() // notifications/initialized
		c := <-done
		runtime.GC()
		var before, peak runtime.MemStats
		runtime.ReadMemStats(&before)
		go func() {
			for i := range n {
				if se.Send(context.Background(), fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"roots/list"}`, i)) != nil {
					return
				}
			}
		}()
		refusals := make(chan struct{}, n)
		go func() {
			for {
				data, err := se.Receive(context.Background())
				if err != nil {
					return
				}
				if m, err := jsonrpc.Decode(data); err == nil && m.Error != nil {
					refusals <- struct{}{}
				}
			}
		}()
		// Every request is in: its callback started, or its refusal came back.
		for range n {
			select {
			case <-started:
			case <-refusals:
			}
		}
		runtime.ReadMemStats(&peak)
		b.ReportMetric(float64(peak.HeapInuse+peak.StackInuse-before.HeapInuse-before.StackInuse)/1e6, "MB-in-flight")
		close(release)
		c.Close()
		se.Close()
	}
}
