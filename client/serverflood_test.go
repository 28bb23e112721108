package client

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

// A peer that sends 20,000 server requests without reading anything, while
// the callback blocks: the client's reader goes on reading (the refusals are
// sent in order by a goroutine of their own, and dropped once too many wait
// for a peer that does not read), so the flood goes through, memory stays
// bounded, the client's Ping is answered as soon as the peer reads again,
// and Close returns. (Before: the reader blocked writing a refusal once the
// transport's buffer was full, the flood never finished, and neither did
// the Ping.)
func TestServerRequestFloodFromPeerThatDoesNotRead(t *testing.T) {
	var started atomic.Int32
	c, f := faultFake(t, &Options{ListRoots: func(ctx context.Context) ([]*Root, error) {
		started.Add(1)
		<-ctx.Done() // blocks until Close
		return nil, ctx.Err()
	}}, nil, memtransport.WithTranscriptLimit(0))

	const n = 20000
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	half := make(chan struct{})
	flooded := make(chan time.Time, 1)
	start := time.Now()
	go func() { // the peer's one goroutine: it sends, and reads nothing meanwhile
		for i := range n {
			if i == n/2 {
				close(half)
			}
			if f.conn.SendRaw(context.Background(), fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"roots/list"}`, i)) != nil {
				return
			}
		}
		flooded <- time.Now()
	}()
	returns(t, "the first half of the flood", func() struct{} { return <-half })
	pingStart := time.Now()
	pinged := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		pinged <- c.Ping(ctx)
	}()
	floodEnd := returns(t, "the flood", func() time.Time { return <-flooded })
	runtime.ReadMemStats(&after)
	runtime.GC()
	var retained runtime.MemStats
	runtime.ReadMemStats(&retained) // what the client keeps while the peer still does not read

	// The peer reads again: what the client sent while it did not, then the
	// Ping, which it answers.
	refusals := 0
	for {
		m := f.recv()
		if m.Method == methodPing {
			f.reply(m.ID, `{}`)
			break
		}
		require.NotNil(t, m.Error, "a refusal: %s", m.Result)
		require.Equal(t, codeBusy, m.Error.Code)
		refusals++
	}
	require.NoError(t, returns(t, "Ping", func() error { return <-pinged }))
	pingTook, afterFlood := time.Since(pingStart), time.Since(floodEnd)
	closeTook := elapsed(t, "Close", func() { require.NoError(t, c.Close()) })

	grew := int64(after.HeapInuse) - int64(before.HeapInuse)
	kept := int64(retained.HeapInuse) - int64(before.HeapInuse)
	t.Logf("flood of %d requests: %v; callbacks running: %d; refusals read before the ping: %d (the rest dropped)",
		n, floodEnd.Sub(start).Round(time.Millisecond), started.Load(), refusals)
	t.Logf("Ping sent mid-flood answered after %v (%v after the flood); Close %v", pingTook.Round(time.Millisecond), afterFlood.Round(time.Millisecond), closeTook.Round(time.Millisecond))
	t.Logf("heap in use: %.1f MB before, %.1f MB after the flood (+%.1f MB), %.1f MB kept after a GC (+%.1f MB)",
		float64(before.HeapInuse)/1e6, float64(after.HeapInuse)/1e6, float64(grew)/1e6, float64(retained.HeapInuse)/1e6, float64(kept)/1e6)
	assert.Equal(t, int32(DefaultMaxServerRequests), started.Load())
	assert.Less(t, afterFlood, slack, "the Ping is answered within a second of the peer reading again")
	assert.Less(t, closeTook, slack)
	assert.Less(t, grew, int64(16<<20), "the flood went through in bounded memory")
	assert.Less(t, kept, int64(4<<20), "what waits for the peer to read is bounded (1 MiB of responses)")
}
