package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/recent"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/leak"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Transcript gives a test the messages of one connection, in the order they
// crossed, so that it can inspect them or compare a whole session with a
// golden file. Ask for it with [WithTranscript]; it is empty until the
// connection is made, and it keeps growing while the connection is used.
//
//	var tr mcptest.Transcript
//	c := mcptest.Connect(t, mcptest.Command(exec.Command("./my-server")), mcptest.WithTranscript(&tr))
//	// ... calls ...
//	mcptest.Assert(t).Golden("session", tr.Messages())
//
// It holds the 10,000 most recent messages; older ones are counted in the
// Omitted field of [Transcript.Snapshot]. Given to several connections, it
// shows the last one made.
type Transcript struct {
	mu   sync.Mutex
	snap func() memtransport.Transcript
}

func (tr *Transcript) attach(snap func() memtransport.Transcript) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.snap = snap
}

// Snapshot returns the messages recorded so far, with their direction, order
// and timing, in the same form as [memtransport.Conn.Transcript].
func (tr *Transcript) Snapshot() memtransport.Transcript {
	tr.mu.Lock()
	snap := tr.snap
	tr.mu.Unlock()
	if snap == nil {
		return memtransport.Transcript{}
	}
	return snap()
}

// Messages returns every recorded message, both directions, in order: ready
// for [Assertions.Golden], which renumbers request ids and removes what
// changes between runs. The slices are shared with the transcript; do not modify them.
func (tr *Transcript) Messages() []json.RawMessage {
	s := tr.Snapshot()
	out := make([]json.RawMessage, len(s.Entries))
	for i, e := range s.Entries {
		out[i] = e.Data
	}
	return out
}

// String renders the transcript one message per line, as a failing test
// prints it but without cutting anything.
func (tr *Transcript) String() string { return tr.Snapshot().String() }

// WithTranscript makes tr show the connection's messages (see
// [Transcript]). It applies to Connect.
func WithTranscript(tr *Transcript) Option {
	return option("WithTranscript", connectCall, func(c *config) { c.transcriptTo = append(c.transcriptTo, tr) })
}

// recordingTransport is the client.Transport the external connections put
// between the client and the real transport. It records every message in a
// transcript kept as an in-memory connection keeps its own (package recent,
// and memtransport's entries), and, when the connection is labelled for the
// leak check, sends each message with the connection's label on the sending
// goroutine (pprof.Do, which puts the goroutine's labels back afterwards),
// so that what the transport starts per message (an HTTP request's
// goroutine, the in-process handler's) carries the label too. Close drops
// the label, which the leak check needs: see package leak.
type recordingTransport struct {
	inner  client.Transport
	start  time.Time
	frames recent.Log[memtransport.Entry]
	labels atomic.Pointer[pprof.LabelSet] // nil: unlabelled, or closed
}

// newRecorder wraps inner, keeping the keep most recent messages (0:
// none). label is the connection's leak-check label, or "".
func newRecorder(inner client.Transport, keep int, label string) *recordingTransport {
	r := &recordingTransport{inner: inner, start: time.Now(), frames: recent.New[memtransport.Entry](keep)}
	if label != "" {
		labels := pprof.Labels(leak.Key, label)
		r.labels.Store(&labels)
	}
	return r
}

// Unwrap returns the recorded transport, so the client reaches what it
// offers beyond Send, Receive and Close.
func (r *recordingTransport) Unwrap() client.Transport { return r.inner }

// Send records msg and hands it to the transport.
func (r *recordingTransport) Send(ctx context.Context, msg []byte) error {
	// The transport owns what it is sent, so the transcript keeps a copy.
	seq := r.record(memtransport.ClientToServer, bytes.Clone(msg))
	err := r.send(ctx, msg)
	if err != nil {
		r.frames.Update(seq, func(e *memtransport.Entry) { e.Note = "not sent: " + err.Error() })
	}
	return err
}

func (r *recordingTransport) send(ctx context.Context, msg []byte) (err error) {
	labels := r.labels.Load()
	if labels == nil {
		return r.inner.Send(ctx, msg)
	}
	// The goroutine gets ctx's labels back afterwards: the caller's, when
	// it labels its work with pprof.Do.
	pprof.Do(ctx, *labels, func(ctx context.Context) { err = r.inner.Send(ctx, msg) })
	return err
}

// Receive returns the transport's next message and records it.
func (r *recordingTransport) Receive(ctx context.Context) ([]byte, error) {
	msg, err := r.inner.Receive(ctx)
	if err == nil {
		r.record(memtransport.ServerToClient, bytes.Clone(msg))
	}
	return msg, err
}

// Close closes the transport, and drops the label: nothing sent after
// Close is the connection's.
func (r *recordingTransport) Close() error {
	r.labels.Store(nil)
	return r.inner.Close()
}

// record adds a message to the transcript and returns its sequence number.
func (r *recordingTransport) record(d memtransport.Direction, msg []byte) int {
	return r.frames.Add(memtransport.Entry{Dir: d, At: time.Since(r.start), Data: msg})
}

// transcript returns the entries recorded so far, numbered as a Pair's are.
func (r *recordingTransport) transcript() memtransport.Transcript {
	entries, omitted := r.frames.Snapshot()
	for i := range entries {
		entries[i].Seq = omitted + i + 1
	}
	return memtransport.Transcript{Entries: entries, Omitted: omitted}
}
