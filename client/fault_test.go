package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// hangGuard bounds every wait in the fault tests: far beyond any deadline
// they set, so that only a hang reaches it, even on a loaded machine.
const hangGuard = 10 * time.Second

// returns runs f and fails the test if it has not returned within
// hangGuard: a call that hangs fails the test instead of blocking it.
func returns[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("%s did not return within %v: it hangs", what, hangGuard)
		panic("unreachable")
	}
}

// deafSend is a Transport whose Send ignores its context: it returns only
// once the peer takes the message or the connection closes, as a stdio pipe
// or an HTTP request without a deadline would. The client must not rely on
// Send honouring ctx.
type deafSend struct{ *memtransport.Conn }

func (d deafSend) Send(_ context.Context, msg []byte) error {
	return d.Conn.Send(context.Background(), msg)
}

// faultFake connects a client (opts; a legacy version unless they pin one)
// to a fake server over a pair made with popts, the client's end wrapped by
// wrap when it is not nil.
func faultFake(t *testing.T, opts *Options, wrap func(*memtransport.Conn) Transport, popts ...memtransport.Option) (*Client, *fake) {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = Version20251125
	}
	ce, se := memtransport.Pair(popts...)
	var tr Transport = ce
	if wrap != nil {
		tr = wrap(ce)
	}
	c, f, err := fakeConnectOn(t, tr, se, &o, func(f *fake) {
		if IsLegacy(o.ProtocolVersion) {
			f.acceptInitialize(o.ProtocolVersion)
		} else {
			f.acceptDiscover()
		}
	})
	require.NoError(t, err)
	return c, f
}

func deaf(c *memtransport.Conn) Transport { return deafSend{c} }

// callAsync starts a tools/call "t" and returns its outcome's channel.
func callAsync(ctx context.Context, c *Client, opts ...CallOption) <-chan error {
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "t", nil, opts...)
		errc <- err
	}()
	return errc
}

// A call returns by its deadline when the peer has stopped reading, even
// though the transport's Send ignores its context: the request, or the
// notifications/cancelled after it, is left to the background, and Close
// ends it.
func TestCallReturnsByDeadlineWhenPeerStopsReading(t *testing.T) {
	t.Run("cancel not taken", func(t *testing.T) {
		c, f := faultFake(t, nil, deaf, memtransport.WithBufferSize(0))
		errc := callAsync(t.Context(), c, WithTimeout(100*time.Millisecond))
		f.expect("tools/call") // ...and the server reads nothing more
		err := returns(t, "CallTool", func() error { return <-errc })
		require.EqualError(t, err, `tools/call "t": no response within 100ms`)
		require.NoError(t, returns(t, "Close", c.Close))
	})
	t.Run("request not taken", func(t *testing.T) {
		c, _ := faultFake(t, nil, deaf, memtransport.WithBufferSize(0))
		err := returns(t, "CallTool", func() error { return <-callAsync(t.Context(), c, WithTimeout(100*time.Millisecond)) })
		require.EqualError(t, err, `tools/call "t": no response within 100ms`)
		err = returns(t, "Ping", func() error {
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			return c.Ping(ctx)
		})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.NoError(t, returns(t, "Close", c.Close))
	})
}

// Connect returns by its ctx's deadline against a peer that never reads, or
// that reads and never answers, whatever the transport's Send does.
func TestConnectReturnsByDeadlineWhenPeerIsSilent(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version string
		buffer  int
	}{
		{"legacy, peer never reads", Version20251125, 0},
		{"era-neutral, peer never reads", "", 0},
		{"legacy, buffer fills", Version20250618, 1},
		{"modern, buffer fills", Version20260728, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ce, se := memtransport.Pair(memtransport.WithBufferSize(tc.buffer))
			defer se.Close()
			err := returns(t, "Connect", func() error {
				ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
				defer cancel()
				_, err := Connect(ctx, deafSend{ce}, &Options{ProtocolVersion: tc.version})
				return err
			})
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.ErrorContains(t, err, "client: Connect: ")
		})
	}
}

// A server's notifications/cancelled naming one of the client's own
// requests (only the sender of a request may cancel it) leaves the call
// waiting for its answer, its deadline, or the end of the connection.
func TestServerCancellingClientRequestLeavesCallWaiting(t *testing.T) {
	var logs logBuffer
	c, f := faultFake(t, &Options{Logger: logs.logger()}, nil)
	cancelOwn := func() {
		m := f.expect("tools/call")
		f.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + m.ID.String() + `,"reason":"hostile"}}`)
		f.reply(m.ID, `{"content":[{"type":"text","text":"still here"}]}`)
	}
	errc := callAsync(t.Context(), c)
	cancelOwn()
	require.NoError(t, returns(t, "CallTool", func() error { return <-errc }), "answered after the stray cancel")
	assert.Contains(t, logs.String(), "ignoring a notifications/cancelled")

	errc = callAsync(t.Context(), c, WithTimeout(100*time.Millisecond))
	m := f.expect("tools/call")
	f.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + m.ID.String() + `}}`)
	require.EqualError(t, returns(t, "CallTool", func() error { return <-errc }), `tools/call "t": no response within 100ms`)
	f.expect("notifications/cancelled")

	errc = callAsync(t.Context(), c)
	m = f.expect("tools/call")
	f.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + m.ID.String() + `}}`)
	f.send(`{"jsonrpc":"2.0","id":"sync","method":"ping"}`)
	f.recv() // the client has read the cancel
	require.NoError(t, c.Close())
	err := returns(t, "CallTool", func() error { return <-errc })
	require.ErrorIs(t, err, ErrClosed)
	require.False(t, errors.Is(err, context.DeadlineExceeded))
}

// echo makes the server end copy every frame back, as /bin/cat would.
func echo(t *testing.T, se *memtransport.Conn) {
	go func() {
		for {
			data, err := se.Receive(context.Background())
			if err != nil {
				return
			}
			if se.SendRaw(context.Background(), data) != nil {
				return
			}
		}
	}()
}

// A peer that echoes its input is not taken for a server answering: the
// request coming back is recognised, and the error says so. (Before: the
// echoed request was answered "method not found", and that answer, echoed
// in turn, came back as `initialize: error -32601: method not found`.)
func TestEchoedRequestIsNotAnAnswer(t *testing.T) {
	for _, version := range []string{"", Version20251125, Version20260728} {
		ce, se := memtransport.Pair()
		defer se.Close()
		echo(t, se)
		err := returns(t, "Connect", func() error {
			_, err := Connect(t.Context(), ce, &Options{ProtocolVersion: version})
			return err
		})
		method := "server/discover"
		if IsLegacy(version) && version != "" {
			method = "initialize"
		}
		require.EqualError(t, err, "client: Connect: "+method+": "+errEchoed.Error(), "version %q", version)
	}
}

// The same with a real /bin/cat over stdio.
func TestEchoedRequestFromCat(t *testing.T) {
	if _, err := exec.LookPath("cat"); err != nil {
		t.Skip("no cat on this system")
	}
	tr, err := transport.Command(exec.Command("cat"))
	require.NoError(t, err)
	err = returns(t, "Connect", func() error {
		_, err := Connect(t.Context(), tr, &Options{ProtocolVersion: Version20251125})
		return err
	})
	require.ErrorContains(t, err, "client: Connect: initialize: the server echoed the request back instead of answering it")
}

// A peer that sends only garbage during the handshake: Connect's error says
// what arrived, not only that the time ran out.
func TestHandshakeGarbageNamed(t *testing.T) {
	ce, se := memtransport.Pair()
	defer se.Close()
	go func() {
		if _, err := se.Receive(context.Background()); err != nil { // initialize
			return
		}
		for _, frame := range []string{
			"hello from a shell profile",
			`{"id":1,"result":{}}`,
			`[{"jsonrpc":"2.0","id":1,"result":{}}]`,
			`{"jsonrpc":"2.0","id":"1","result":{"protocolVersion":"2025-11-25"}}`,
			strings.Repeat("x", 500),
		} {
			if se.SendRaw(context.Background(), []byte(frame)) != nil {
				return
			}
		}
	}()
	err := returns(t, "Connect", func() error {
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		_, err := Connect(ctx, ce, &Options{ProtocolVersion: Version20251125})
		return err
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.EqualError(t, err, `client: Connect: initialize: context deadline exceeded; `+
		`received 4 frames that are not JSON-RPC and 1 response to no request of this client's: `+
		`"hello from a shell profile" (invalid character 'h' looking for beginning of value); `+
		`"{\"id\":1,\"result\":{}}" (the "jsonrpc" member must be "2.0"); `+
		`"[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]" (batches (JSON arrays) are not supported); and 2 more`)
}

// Two server requests with the same id in flight: the second is refused
// with an error, and the first goes on (its cancellation still reaches it).
func TestDuplicateServerRequestIDRefused(t *testing.T) {
	started := make(chan struct{}, 2)
	ended := make(chan error, 2)
	_, f := faultFake(t, &Options{ListRoots: func(ctx context.Context) ([]*Root, error) {
		started <- struct{}{}
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	}}, nil)
	f.send(`{"jsonrpc":"2.0","id":7,"method":"roots/list"}`)
	<-started
	f.send(`{"jsonrpc":"2.0","id":7,"method":"roots/list"}`)
	m := f.recv()
	require.NotNil(t, m.Error)
	assert.Equal(t, "7", m.ID.String())
	assert.Equal(t, CodeInvalidRequest, m.Error.Code)
	assert.Equal(t, "duplicate request id 7: the client is still answering an earlier request with this id", m.Error.Message)
	assert.Empty(t, started, "the duplicate ran no callback")
	f.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	require.ErrorIs(t, returns(t, "the first callback", func() error { return <-ended }), context.Canceled)
	f.pingSync() // and no response to the cancelled request came before
}

// Server requests beyond Options.MaxServerRequests in flight are refused at
// once with an error that says why; those in flight go on.
func TestServerRequestsBounded(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 100)
	var running, peak atomic.Int32
	_, f := faultFake(t, &Options{MaxServerRequests: 8, ListRoots: func(ctx context.Context) ([]*Root, error) {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		defer running.Add(-1)
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return []*Root{{URI: "file:///r"}}, nil
	}}, nil)
	const n = 100
	go func() {
		for i := range n {
			if f.conn.SendRaw(context.Background(), fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"roots/list"}`, i)) != nil {
				return
			}
		}
	}()
	for range n - 8 {
		m := f.recv()
		require.NotNil(t, m.Error, "a refusal, while 8 are held")
		assert.Equal(t, int64(-32000), m.Error.Code)
		assert.Equal(t, "too many requests: the client is already answering 8 requests from the server (its limit, Options.MaxServerRequests); roots/list refused", m.Error.Message)
	}
	for range 8 {
		<-started
	}
	close(release)
	for range 8 {
		m := f.recv()
		require.Nil(t, m.Error)
		assert.JSONEq(t, `{"roots":[{"uri":"file:///r"}]}`, string(m.Result))
	}
	assert.Equal(t, int32(8), peak.Load())
}

// Over HTTP, a server that takes the request and never answers: Connect
// returns by its ctx's deadline (the POST is abandoned, then ended by Close).
func TestConnectReturnsByDeadlineOverSilentHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // so that the server sees the client hang up
		<-r.Context().Done()               // never answers
	}))
	defer srv.Close()
	for _, version := range []string{Version20251125, Version20260728, ""} {
		err := returns(t, "Connect", func() error {
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			defer cancel()
			_, err := Connect(ctx, transport.HTTP(srv.URL), &Options{ProtocolVersion: version})
			return err
		})
		require.ErrorIs(t, err, context.DeadlineExceeded, "version %q", version)
	}
}

// Request ids are per direction: a server may ping the client with the id of
// the client's own ping, which is still waiting. That is the server's
// request, to be answered, not the client's coming back. (Before: it was
// taken for an echo, the client's Ping failed with errEchoed and the
// server's ping went unanswered.)
func TestServerPingWithClientsIDIsNotAnEcho(t *testing.T) {
	c, f := legacyFake(t, Version20251125, nil)
	defer c.Close()
	errc := make(chan error, 1)
	go func() { errc <- c.Ping(t.Context()) }()
	ping := f.expect("ping")
	f.send(`{"jsonrpc":"2.0","id":` + ping.ID.String() + `,"method":"ping"}`)
	answer := f.recv()
	require.True(t, answer.IsResponse(), "the client answers the server's ping: %+v", answer)
	require.Equal(t, ping.ID.String(), answer.ID.String())
	require.Nil(t, answer.Error)
	f.reply(ping.ID, `{}`)
	require.NoError(t, returns(t, "Ping", func() error { return <-errc }))
}
