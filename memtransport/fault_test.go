package memtransport_test

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

func TestFaultDropReplaceAndCount(t *testing.T) {
	t.Parallel()
	var seen []memtransport.Frame
	c, s := pair(t, memtransport.WithFault(func(f memtransport.Frame) memtransport.Action {
		seen = append(seen, f) // one direction at a time here, so no lock needed
		switch {
		case f.Dir == memtransport.ServerToClient && f.N == 1:
			return memtransport.Action{Drop: true} // the first response is lost
		case f.Dir == memtransport.ServerToClient && f.N == 2:
			return memtransport.Action{Replace: []byte(`{"jsonrpc":"2.0","id":2,"result":`)} // corrupt
		}
		return memtransport.Action{}
	}))
	ctx := t.Context()
	require.NoError(t, c.Send(ctx, []byte(`{"id":1}`)))
	require.NoError(t, s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)), "a dropped frame looks sent")
	require.NoError(t, s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":2,"result":{}}`)))
	require.NoError(t, s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":3,"result":{}}`)))

	got, err := c.Receive(ctx)
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":`, string(got))
	got, err = c.Receive(ctx)
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{}}`, string(got))

	require.Len(t, seen, 4)
	assert.Equal(t, memtransport.Frame{Dir: memtransport.ClientToServer, N: 1, Data: []byte(`{"id":1}`)}, seen[0])
	assert.Equal(t, 3, seen[3].N)

	tr := c.Transcript()
	require.Len(t, tr.Entries, 4)
	assert.Equal(t, "dropped", tr.Entries[1].Note)
	assert.Equal(t, "replaced", tr.Entries[2].Note)
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"result":`, string(tr.Entries[2].Data), "the transcript shows what arrived")
	assert.Empty(t, tr.Entries[3].Note)
}

func TestFaultHoldReleasesOnSignal(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	c, s := pair(t, memtransport.WithFault(func(f memtransport.Frame) memtransport.Action {
		if f.Dir == memtransport.ServerToClient {
			return memtransport.Action{Hold: release}
		}
		return memtransport.Action{}
	}))
	ctx := t.Context()
	sent := make(chan error, 1)
	go func() { sent <- s.Send(ctx, []byte(`{"held":true}`)) }()

	// The client's own traffic is not held.
	require.NoError(t, c.Send(ctx, []byte(`{"free":true}`)))
	got, err := s.Receive(ctx)
	require.NoError(t, err)
	assert.Equal(t, `{"free":true}`, string(got))

	close(release)
	require.NoError(t, <-sent)
	got, err = c.Receive(ctx)
	require.NoError(t, err)
	assert.Equal(t, `{"held":true}`, string(got))
	assert.Equal(t, "held", c.Transcript().Entries[1].Note)
}

func TestFaultHoldEndsOnClose(t *testing.T) {
	t.Parallel()
	c, s := pair(t, memtransport.WithFault(func(memtransport.Frame) memtransport.Action {
		return memtransport.Action{Hold: make(chan struct{})} // never released
	}))
	sent := make(chan error, 1)
	go func() { sent <- s.Send(t.Context(), []byte(`{}`)) }()
	require.NoError(t, c.Close())
	require.ErrorIs(t, <-sent, io.ErrClosedPipe)
}

func TestFaultDelay(t *testing.T) {
	t.Parallel()
	c, s := pair(t, memtransport.WithFault(func(memtransport.Frame) memtransport.Action {
		return memtransport.Action{Delay: time.Millisecond}
	}))
	require.NoError(t, c.Send(t.Context(), []byte(`{}`)))
	_, err := s.Receive(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "delayed 1ms", s.Transcript().Entries[0].Note)
}

func TestFaultCloseBreaksTheConnection(t *testing.T) {
	t.Parallel()
	c, s := pair(t, memtransport.WithFault(func(f memtransport.Frame) memtransport.Action {
		return memtransport.Action{Close: f.Dir == memtransport.ServerToClient && f.N == 2}
	}))
	ctx := t.Context()
	require.NoError(t, s.Send(ctx, []byte(`{"n":1}`)))
	err := s.Send(ctx, []byte(`{"n":2}`))
	require.ErrorIs(t, err, io.ErrClosedPipe)
	assert.Contains(t, err.Error(), "closed by a fault hook on server→client frame 2")

	got, err := c.Receive(ctx)
	require.NoError(t, err, "frames before the fault still arrive")
	assert.Equal(t, `{"n":1}`, string(got))
	_, err = c.Receive(ctx)
	require.ErrorIs(t, err, io.ErrClosedPipe)
	assert.Equal(t, "connection closed by fault", c.Transcript().Entries[1].Note)
}
