package mcptest

import (
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"sync"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/internal/leak"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// scriptTransport is a client.Transport for the recorder's tests: Send
// calls onSend, Receive hands out what is queued.
type scriptTransport struct {
	onSend   func(ctx context.Context, msg []byte) error
	incoming chan []byte
	closed   chan struct{}
	once     sync.Once
}

func newScriptTransport(onSend func(context.Context, []byte) error) *scriptTransport {
	return &scriptTransport{onSend: onSend, incoming: make(chan []byte, 16), closed: make(chan struct{})}
}

func (s *scriptTransport) Send(ctx context.Context, msg []byte) error {
	select {
	case <-s.closed:
		return errors.New("script: closed")
	default:
	}
	if s.onSend == nil {
		return nil
	}
	return s.onSend(ctx, msg)
}

func (s *scriptTransport) Receive(ctx context.Context) ([]byte, error) {
	select {
	case m := <-s.incoming:
		return m, nil
	case <-s.closed:
		return nil, errors.New("script: closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *scriptTransport) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

func TestRecorderRecordsBothWaysInOrder(t *testing.T) {
	t.Parallel()
	inner := newScriptTransport(nil)
	r := newRecorder(inner, transcriptFrames, "")
	defer r.Close()
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	require.NoError(t, r.Send(t.Context(), msg))
	msg[2] = 'X' // the transport owns what it was sent: the transcript keeps its own copy
	inner.incoming <- []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	got, err := r.Receive(t.Context())
	require.NoError(t, err)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, string(got))

	tr := r.transcript()
	require.Len(t, tr.Entries, 2)
	assert.Equal(t, memtransport.ClientToServer, tr.Entries[0].Dir)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, string(tr.Entries[0].Data))
	assert.Equal(t, memtransport.ServerToClient, tr.Entries[1].Dir)
	assert.Equal(t, []int{1, 2}, []int{tr.Entries[0].Seq, tr.Entries[1].Seq})
	assert.LessOrEqual(t, tr.Entries[0].At, tr.Entries[1].At)
}

func TestRecorderKeepsTheMostRecent(t *testing.T) {
	t.Parallel()
	r := newRecorder(newScriptTransport(nil), 3, "")
	defer r.Close()
	for i := 1; i <= 10; i++ {
		require.NoError(t, r.Send(t.Context(), fmt.Appendf(nil, `{"n":%d}`, i)))
	}
	tr := r.transcript()
	assert.Equal(t, 7, tr.Omitted)
	require.Len(t, tr.Entries, 3)
	assert.Equal(t, `{"n":8}`, string(tr.Entries[0].Data))
	assert.Equal(t, 10, tr.Entries[2].Seq)

	off := newRecorder(newScriptTransport(nil), 0, "")
	defer off.Close()
	require.NoError(t, off.Send(t.Context(), []byte(`{}`)))
	assert.Empty(t, off.transcript().Entries, "keep 0 records nothing")
}

func TestRecorderNotesAFailedSend(t *testing.T) {
	t.Parallel()
	r := newRecorder(newScriptTransport(func(context.Context, []byte) error { return errors.New("pipe broke") }), 10, "")
	defer r.Close()
	err := r.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	require.EqualError(t, err, "pipe broke")
	tr := r.transcript()
	require.Len(t, tr.Entries, 1)
	assert.Equal(t, "not sent: pipe broke", tr.Entries[0].Note)
	assert.Contains(t, tr.Entries[0].String(), "[not sent: pipe broke]")
}

// What the transport starts while sending carries the connection's label,
// although Send is called from an unlabelled goroutine; and the calling
// goroutine's own labels are left alone.
func TestRecorderLabelsWhatSendStarts(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	started := make(chan struct{})
	inner := newScriptTransport(func(context.Context, []byte) error {
		go func() {
			close(started)
			blockForever(release)
		}()
		return nil
	})
	label := leak.NewLabel()
	r := newRecorder(inner, 10, label)
	require.NoError(t, r.Send(t.Context(), []byte(`{}`)))
	<-started
	assert.Equal(t, 1, countFunction(leak.Running(label, nil), "github.com/mcptestkit/mcptestkit/mcptest.blockForever"), "the goroutine Send started is labelled")

	// This test's goroutine did not keep the label: what it starts now is
	// not counted.
	mine := make(chan struct{})
	go func() {
		close(mine)
		blockForever(release)
	}()
	<-mine
	assert.Equal(t, 1, countFunction(leak.Running(label, nil), "github.com/mcptestkit/mcptestkit/mcptest.blockForever"))
	close(release)
	require.NoError(t, r.Close())
	assert.Empty(t, waitForLeaks(t.Context(), label, nil, defaultLeakWait), "nothing of the recorder's own runs")

	assert.EqualError(t, r.Send(t.Context(), []byte(`{}`)), "script: closed", "after Close, Send reports what the transport says")
}

// A caller that labels its own work keeps its labels after Send.
func TestRecorderKeepsTheCallersLabels(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	r := newRecorder(newScriptTransport(nil), 10, leak.NewLabel())
	defer r.Close()
	mine := leak.NewLabel()
	started := make(chan struct{})
	pprof.Do(t.Context(), pprof.Labels(leak.Key, mine), func(ctx context.Context) {
		require.NoError(t, r.Send(ctx, []byte(`{}`)))
		go func() {
			close(started)
			blockForever(release)
		}()
	})
	<-started
	assert.Equal(t, 1, countFunction(leak.Running(mine, nil), "github.com/mcptestkit/mcptestkit/mcptest.blockForever"))
}

func TestRecorderSendHonoursContext(t *testing.T) {
	t.Parallel()
	inner := newScriptTransport(func(ctx context.Context, _ []byte) error {
		<-ctx.Done() // a transport blocked on a full pipe
		return ctx.Err()
	})
	r := newRecorder(inner, 10, leak.NewLabel())
	defer r.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, r.Send(ctx, []byte(`{}`)), context.Canceled)
}

func TestTranscriptBeforeAndAfterConnect(t *testing.T) {
	t.Parallel()
	var tr Transcript
	assert.Empty(t, tr.Messages())
	assert.Contains(t, tr.String(), "(no messages)")

	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, probeServer(), WithProtocolVersion(client.LatestLegacyVersion), WithTranscript(&tr))
		echoes(tb, c, "kept")
	})
	f.expectPass(t)
	msgs := tr.Messages()
	require.Len(t, msgs, 5, "WithTranscript records anyway:\n%s", tr.String())
	assert.Contains(t, string(msgs[4]), `"text":"kept"`)
	assert.Contains(t, tr.String(), "#5 ")
}

func countFunction(groups []leak.Group, fn string) int {
	n := 0
	for _, g := range groups {
		for _, f := range g.Functions {
			if f == fn {
				n += g.Count
				break
			}
		}
	}
	return n
}
