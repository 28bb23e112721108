package memtransport_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

func pair(t testing.TB, opts ...memtransport.Option) (*memtransport.Conn, *memtransport.Conn) {
	t.Helper()
	c, s := memtransport.Pair(opts...)
	t.Cleanup(func() { c.Close(); s.Close() })
	return c, s
}

func TestSendReceiveBothWays(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	ctx := t.Context()

	require.NoError(t, c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
	got, err := s.Receive(ctx)
	require.NoError(t, err)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, string(got))

	require.NoError(t, s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)))
	got, err = c.Receive(ctx)
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, string(got))
}

func TestSendKeepsOrderAndDoesNotCopy(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	ctx := t.Context()
	msgs := make([][]byte, 10)
	for i := range msgs {
		msgs[i] = fmt.Appendf(nil, `{"n":%d}`, i)
		require.NoError(t, c.Send(ctx, msgs[i]))
	}
	for i := range msgs {
		got, err := s.Receive(ctx)
		require.NoError(t, err)
		assert.Same(t, &msgs[i][0], &got[0], "Send takes ownership: the receiver gets the same bytes, not a copy")
	}
}

// Both ends send more than the buffer holds at the same time while both
// also receive: nothing may deadlock and nothing may be lost or reordered.
func TestConcurrentSendBothDirections(t *testing.T) {
	t.Parallel()
	const n = 1000
	c, s := pair(t, memtransport.WithBufferSize(4))
	ctx := t.Context()

	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for _, end := range []*memtransport.Conn{c, s} {
		wg.Go(func() {
			for i := range n {
				if err := end.Send(ctx, fmt.Appendf(nil, `{"n":%d}`, i)); err != nil {
					errs <- err
					return
				}
			}
		})
		wg.Go(func() {
			for i := range n {
				got, err := end.Receive(ctx)
				if err != nil {
					errs <- err
					return
				}
				if want := fmt.Sprintf(`{"n":%d}`, i); string(got) != want {
					errs <- fmt.Errorf("got %s, want %s", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assert.Len(t, c.Transcript().Entries, 2*n)
}

// Many goroutines send on one end at once; the transcript must list the
// frames of that direction in the order the receiver got them.
func TestConcurrentSendersTranscriptOrderMatchesDelivery(t *testing.T) {
	t.Parallel()
	c, s := pair(t, memtransport.WithBufferSize(2))
	ctx := t.Context()
	const senders, each = 8, 50

	var wg sync.WaitGroup
	for g := range senders {
		wg.Go(func() {
			for i := range each {
				assert.NoError(t, c.Send(ctx, fmt.Appendf(nil, `{"g":%d,"i":%d}`, g, i)))
			}
		})
	}
	var received []string
	for range senders * each {
		got, err := s.Receive(ctx)
		require.NoError(t, err)
		received = append(received, string(got))
	}
	wg.Wait()

	tr := c.Transcript()
	require.Len(t, tr.Entries, senders*each)
	for i, e := range tr.Entries {
		assert.Equal(t, i+1, e.Seq)
		assert.Equal(t, memtransport.ClientToServer, e.Dir)
		assert.Equal(t, received[i], string(e.Data), "entry %d", i)
	}
}

func TestCloseWakesBlockedReceiveOnBothEnds(t *testing.T) {
	t.Parallel()
	for _, closer := range []string{"client", "server"} {
		t.Run("closed by "+closer, func(t *testing.T) {
			t.Parallel()
			c, s := pair(t)
			errs := make(chan error, 2)
			started := make(chan struct{}, 2)
			for _, end := range []*memtransport.Conn{c, s} {
				go func() {
					started <- struct{}{}
					_, err := end.Receive(context.Background())
					errs <- err
				}()
			}
			<-started
			<-started
			if closer == "client" {
				require.NoError(t, c.Close())
			} else {
				require.NoError(t, s.Close())
			}
			for range 2 {
				err := <-errs
				require.ErrorIs(t, err, io.ErrClosedPipe)
				assert.Contains(t, err.Error(), "closed by the "+closer+" end")
			}
		})
	}
}

func TestPeerReceivesWhatWasSentBeforeClose(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	ctx := t.Context()
	require.NoError(t, s.Send(ctx, []byte(`{"last":"words"}`)))
	require.NoError(t, s.Close())

	got, err := c.Receive(ctx)
	require.NoError(t, err)
	assert.Equal(t, `{"last":"words"}`, string(got))
	_, err = c.Receive(ctx)
	require.ErrorIs(t, err, io.ErrClosedPipe)
}

// However a connection ends (either end's Close, a fault hook's, or while a
// Send waits for room), every call on either end fails with an error that
// matches io.ErrClosedPipe, the standard library's error for a closed pipe,
// and that names this package and the reason.
func TestClosedErrorsMatchErrClosedPipe(t *testing.T) {
	t.Parallel()
	ends := map[string]func(t *testing.T) (c, s *memtransport.Conn){
		"client Close": func(t *testing.T) (c, s *memtransport.Conn) {
			c, s = pair(t)
			require.NoError(t, c.Close())
			return c, s
		},
		"server Close": func(t *testing.T) (c, s *memtransport.Conn) {
			c, s = pair(t)
			require.NoError(t, s.Close())
			return c, s
		},
		"fault hook": func(t *testing.T) (c, s *memtransport.Conn) {
			c, s = pair(t, memtransport.WithFault(func(memtransport.Frame) memtransport.Action { return memtransport.Action{Close: true} }))
			assert.ErrorIs(t, c.Send(t.Context(), []byte(`{}`)), io.ErrClosedPipe, "the Send the hook broke")
			return c, s
		},
		"during a blocked Send": func(t *testing.T) (c, s *memtransport.Conn) {
			c, s = pair(t, memtransport.WithBufferSize(0))
			errc := make(chan error, 1)
			go func() { errc <- c.Send(context.Background(), []byte(`{}`)) }()
			require.Eventually(t, func() bool { return len(c.Transcript().Entries) == 1 }, 5*time.Second, time.Millisecond, "the Send waits for room")
			require.NoError(t, s.Close())
			assert.ErrorIs(t, <-errc, io.ErrClosedPipe, "the waiting Send")
			return c, s
		},
	}
	for name, end := range ends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, s := end(t)
			ctx := t.Context()
			for _, e := range []*memtransport.Conn{c, s} {
				_, rerr := e.Receive(ctx)
				for what, err := range map[string]error{
					"Send":    e.Send(ctx, []byte(`{}`)),
					"SendRaw": e.SendRaw(ctx, []byte(`x`)),
					"Receive": rerr,
				} {
					require.ErrorIs(t, err, io.ErrClosedPipe, what)
					assert.Regexp(t, `^memtransport: io: read/write on closed pipe \(closed by .+\)$`, err.Error(), what)
				}
			}
		})
	}
}

func TestClosedEndRefusesEverythingAndCloseIsIdempotent(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	ctx := t.Context()
	require.NoError(t, s.Send(ctx, []byte(`{}`)))
	require.NoError(t, c.Close())
	require.NoError(t, c.Close())
	require.NoError(t, s.Close())

	_, err := c.Receive(ctx)
	require.ErrorIs(t, err, io.ErrClosedPipe, "an end that closed itself does not read on")
	require.ErrorIs(t, c.Send(ctx, []byte(`{}`)), io.ErrClosedPipe)
	require.ErrorIs(t, s.Send(ctx, []byte(`{}`)), io.ErrClosedPipe)
	require.ErrorIs(t, s.SendRaw(ctx, []byte(`x`)), io.ErrClosedPipe)
	select {
	case <-c.Done():
	default:
		t.Fatal("Done is not closed after Close")
	}
}

func TestContextCancellation(t *testing.T) {
	t.Parallel()
	t.Run("receive", func(t *testing.T) {
		t.Parallel()
		c, _ := pair(t)
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() {
			_, err := c.Receive(ctx)
			errc <- err
		}()
		cancel()
		require.ErrorIs(t, <-errc, context.Canceled)
	})
	t.Run("send on a full buffer", func(t *testing.T) {
		t.Parallel()
		// The hook tells the test when the second frame is past every
		// early check, so the cancel lands while Send waits for room.
		second := make(chan struct{})
		c, s := pair(t, memtransport.WithBufferSize(1), memtransport.WithFault(func(f memtransport.Frame) memtransport.Action {
			if f.N == 2 {
				close(second)
			}
			return memtransport.Action{}
		}))
		require.NoError(t, c.Send(t.Context(), []byte(`{"n":1}`)))
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() { errc <- c.Send(ctx, []byte(`{"n":2}`)) }()
		<-second
		cancel()
		require.ErrorIs(t, <-errc, context.Canceled)

		// The frame that was never delivered is marked as such.
		tr := s.Transcript()
		require.Len(t, tr.Entries, 2)
		assert.Equal(t, "not delivered: context canceled", tr.Entries[1].Note)
		got, err := s.Receive(t.Context())
		require.NoError(t, err)
		assert.Equal(t, `{"n":1}`, string(got))
	})
	t.Run("send waiting for its turn", func(t *testing.T) {
		t.Parallel()
		hold := make(chan struct{})
		defer close(hold)
		c, _ := pair(t, memtransport.WithFault(func(f memtransport.Frame) memtransport.Action {
			if f.N == 1 {
				return memtransport.Action{Hold: hold}
			}
			return memtransport.Action{}
		}))
		entered := make(chan struct{})
		go func() {
			close(entered)
			_ = c.Send(t.Context(), []byte(`{"n":1}`)) // held until the test ends
		}()
		<-entered
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		require.ErrorIs(t, c.Send(ctx, []byte(`{"n":2}`)), context.Canceled)
		c.Close() // releases the held sender
	})
	t.Run("already done", func(t *testing.T) {
		t.Parallel()
		c, s := pair(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		require.ErrorIs(t, c.Send(ctx, []byte(`{}`)), context.Canceled)
		_, err := s.Receive(ctx)
		require.ErrorIs(t, err, context.Canceled)
	})
}

func TestMaxMessageSize(t *testing.T) {
	t.Parallel()
	c, s := pair(t, memtransport.WithMaxMessageSize(10))
	ctx := t.Context()

	require.NoError(t, c.Send(ctx, []byte(`{"a":1234}`)), "exactly the limit is fine")
	err := c.Send(ctx, []byte(`{"a":12345}`))
	require.ErrorIs(t, err, memtransport.ErrTooLarge)
	var se *memtransport.SizeError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, memtransport.SizeError{Size: 11, Limit: 10}, *se)
	assert.EqualError(t, err, "memtransport: message of 11 bytes exceeds the maximum message size of 10 bytes")

	// Only the frame within the limit crossed.
	got, err := s.Receive(ctx)
	require.NoError(t, err)
	assert.Equal(t, `{"a":1234}`, string(got))
	assert.Len(t, s.Transcript().Entries, 1)
}

func TestDefaultMaxMessageSize(t *testing.T) {
	t.Parallel()
	c, _ := pair(t)
	err := c.Send(t.Context(), make([]byte, memtransport.DefaultMaxMessageSize+1))
	require.ErrorIs(t, err, memtransport.ErrTooLarge)
}

func TestSendRejectsEmptyMessage(t *testing.T) {
	t.Parallel()
	c, _ := pair(t)
	err := c.Send(t.Context(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "empty message")
}

func TestSendRawDeliversBytesAsTheyAre(t *testing.T) {
	t.Parallel()
	c, s := pair(t, memtransport.WithMaxMessageSize(8))
	ctx := t.Context()
	for _, raw := range [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"method":`), // malformed and over the limit
		{},                    // empty
		[]byte("{\"a\":\n1}"), // a newline inside
	} {
		require.NoError(t, c.SendRaw(ctx, raw))
		got, err := s.Receive(ctx)
		require.NoError(t, err)
		assert.Equal(t, raw, got, "one frame, unchanged")
	}
	for _, e := range s.Transcript().Entries {
		assert.True(t, e.Raw)
	}
}

// Hundreds of pairs at once, each with its own traffic: no shared state, no
// cross-talk, and every goroutine gone after Close (TestMain checks leaks).
func TestHundredsOfParallelPairs(t *testing.T) {
	t.Parallel()
	const pairs, msgs = 300, 20
	var wg sync.WaitGroup
	for p := range pairs {
		wg.Go(func() {
			c, s := memtransport.Pair(memtransport.WithBufferSize(p % 3))
			defer c.Close()
			ctx := t.Context()
			done := make(chan struct{})
			go func() { // an echo server
				defer close(done)
				for {
					m, err := s.Receive(ctx)
					if err != nil {
						return
					}
					if s.Send(ctx, m) != nil {
						return
					}
				}
			}()
			for i := range msgs {
				want := fmt.Sprintf(`{"pair":%d,"i":%d}`, p, i)
				if err := c.Send(ctx, []byte(want)); err != nil {
					t.Error(err)
					return
				}
				got, err := c.Receive(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				if string(got) != want {
					t.Errorf("pair %d: got %s, want %s", p, got, want)
					return
				}
			}
			c.Close()
			<-done
		})
	}
	wg.Wait()
}

func TestSatisfiesTransportShape(t *testing.T) {
	t.Parallel()
	// The client package's Transport, restated so this test does not import
	// client (memtransport must stay free of it).
	var _ interface {
		Send(context.Context, []byte) error
		Receive(context.Context) ([]byte, error)
		Close() error
	} = (*memtransport.Conn)(nil)
	assert.Equal(t, "client→server", memtransport.ClientToServer.String())
	assert.Equal(t, "server→client", memtransport.ServerToClient.String())
	assert.Equal(t, "Direction(9)", memtransport.Direction(9).String())
	assert.False(t, errors.Is(io.ErrClosedPipe, memtransport.ErrTooLarge))
}

// A nil Option is ignored.
func TestPairNilOptionIgnored(t *testing.T) {
	a, b := memtransport.Pair(nil, memtransport.WithMaxMessageSize(4), nil)
	defer a.Close()
	defer b.Close()
	err := a.Send(t.Context(), []byte(`"too long"`))
	if err == nil {
		t.Fatal("Send of 10 bytes over a 4-byte limit succeeded: WithMaxMessageSize after a nil option was lost")
	}
}
