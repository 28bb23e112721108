package mcptest

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Transcript gives a test the messages of one connection, in the order they
// crossed, so that it can inspect them or compare a whole session with a
// golden file. Ask for it with [WithTranscript]; it is empty until the
// connection is made, and it keeps growing while the connection is used.
//
//	var tr mcptest.Transcript
//	c := mcptest.ConnectCommand(t, exec.Command("./my-server"), mcptest.WithTranscript(&tr))
//	// ... calls ...
//	mcptest.Golden(t, "session", tr.Messages())
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
// for [Golden], which renumbers request ids and removes what changes between
// runs. The slices are shared with the transcript; do not modify them.
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
func (tr *Transcript) String() string {
	return renderTranscript(tr.Snapshot(), -1, -1, 0)
}

// WithTranscript makes tr show the connection's messages (see [Transcript]).
func WithTranscript(tr *Transcript) Option {
	return func(c *config) { c.transcriptTo = append(c.transcriptTo, tr) }
}

// recordingTransport is the client.Transport the external connections put between the
// client and the real transport. It records every message, in the form
// memtransport's transcript has, and, when the connection is labelled for
// the leak check, starts each Send from a labelled goroutine so that what
// the transport starts per message (an HTTP request's goroutine, the
// in-process handler's) carries the label too.
type recordingTransport struct {
	inner client.Transport
	start time.Time
	keep  int // how many entries to keep; 0 records nothing

	mu      sync.Mutex
	seq     int
	entries []memtransport.Entry
	omitted int

	// The labelled spawner; jobs is nil when there is none.
	jobs      chan sendJob
	stop      chan struct{}
	stopOnce  sync.Once
	spawnerOK chan struct{}
}

type sendJob struct {
	ctx  context.Context
	msg  []byte
	done chan error
}

// newRecorder wraps inner. With labelled set it starts the spawner, so it
// must then be called on a goroutine carrying the connection's label.
func newRecorder(inner client.Transport, keep int, labelled bool) *recordingTransport {
	r := &recordingTransport{inner: inner, start: time.Now(), keep: keep}
	if labelled {
		r.jobs = make(chan sendJob)
		r.stop = make(chan struct{})
		r.spawnerOK = make(chan struct{})
		go r.spawner()
	}
	return r
}

// spawner starts one goroutine per Send. Goroutines inherit their parent's
// labels; the caller of Send (the test's goroutine, after Connect returned)
// has none, and setting them on it would leak the label into whatever the
// test starts next.
func (r *recordingTransport) spawner() {
	defer close(r.spawnerOK)
	for {
		select {
		case j := <-r.jobs:
			go func() { j.done <- r.inner.Send(j.ctx, j.msg) }()
		case <-r.stop:
			return
		}
	}
}

// Send records msg and hands it to the transport.
func (r *recordingTransport) Send(ctx context.Context, msg []byte) error {
	seq := r.record(memtransport.ClientToServer, msg)
	err := r.send(ctx, msg)
	if err != nil && seq > 0 {
		r.annotate(seq, "not sent: "+err.Error())
	}
	return err
}

func (r *recordingTransport) send(ctx context.Context, msg []byte) error {
	if r.jobs == nil {
		return r.inner.Send(ctx, msg)
	}
	j := sendJob{ctx: ctx, msg: msg, done: make(chan error, 1)}
	select {
	case r.jobs <- j:
		// The transport's Send honours ctx, so this wait is bounded by it.
		return <-j.done
	case <-r.stop:
		return r.inner.Send(ctx, msg) // closed: the transport says so
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Receive returns the transport's next message and records it.
func (r *recordingTransport) Receive(ctx context.Context) ([]byte, error) {
	msg, err := r.inner.Receive(ctx)
	if err == nil {
		r.record(memtransport.ServerToClient, msg)
	}
	return msg, err
}

// Close closes the transport, then stops the spawner once no Send can need
// it.
func (r *recordingTransport) Close() error {
	err := r.inner.Close()
	if r.jobs != nil {
		r.stopOnce.Do(func() { close(r.stop) })
		<-r.spawnerOK
	}
	return err
}

// record appends a copy of msg (the transport owns what it is sent, and the
// client what it receives, so neither may be shared) and returns its
// sequence number, or 0 when nothing is recorded.
func (r *recordingTransport) record(dir memtransport.Direction, msg []byte) int {
	if r.keep == 0 {
		return 0
	}
	e := memtransport.Entry{Dir: dir, At: time.Since(r.start), Data: append([]byte(nil), msg...)}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	e.Seq = r.seq
	r.entries = append(r.entries, e)
	// Drop the oldest entries in batches, so that trimming costs O(1) per
	// message over a long run.
	if r.keep > 0 && len(r.entries) >= 2*r.keep {
		n := len(r.entries) - r.keep
		r.omitted += n
		r.entries = append(r.entries[:0:0], r.entries[n:]...)
	}
	return e.Seq
}

func (r *recordingTransport) annotate(seq int, note string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.entries) - 1; i >= 0; i-- {
		if r.entries[i].Seq == seq {
			if r.entries[i].Note != "" {
				note = r.entries[i].Note + ", " + note
			}
			r.entries[i].Note = note
			return
		}
	}
}

// transcript returns the entries recorded so far, at most keep of them.
func (r *recordingTransport) transcript() memtransport.Transcript {
	r.mu.Lock()
	defer r.mu.Unlock()
	entries, omitted := r.entries, r.omitted
	if r.keep > 0 && len(entries) > r.keep {
		omitted += len(entries) - r.keep
		entries = entries[len(entries)-r.keep:]
	}
	return memtransport.Transcript{Entries: append([]memtransport.Entry(nil), entries...), Omitted: omitted}
}
