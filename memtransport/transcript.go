package memtransport

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Entry is one frame in a [Transcript].
type Entry struct {
	// Seq numbers frames across both directions from 1, in the order they
	// were sent.
	Seq int
	// Dir is the way the frame went.
	Dir Direction
	// At is the time since the connection was made.
	At time.Duration
	// Data is the frame as it was delivered (after any fault hook's
	// Replace). It is shared with the sender and receiver, not a copy.
	Data []byte
	// Raw reports whether the frame was sent with [Conn.SendRaw].
	Raw bool
	// Note says what a fault hook did to the frame ("dropped", "replaced",
	// "held", ...) or why it was not delivered; "" for an ordinary frame.
	Note string
}

// maxRenderedFrame caps how much of one frame String prints, so a failing
// test's output stays readable when a message is huge.
const maxRenderedFrame = 4096

// String renders the entry as one line:
//
//	#3 +1.204ms client→server {"jsonrpc":"2.0","id":2,"method":"tools/call",...}
//
// Flags in brackets follow the direction ([raw], [dropped]). Bytes that are
// not printable UTF-8 on one line are shown as a quoted Go string, and frames
// longer than 4 KiB are cut with a note of how much was left out.
func (e Entry) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d +%.3fms %s", e.Seq, float64(e.At.Microseconds())/1000, e.Dir)
	if e.Raw {
		b.WriteString(" [raw]")
	}
	if e.Note != "" {
		b.WriteString(" [" + e.Note + "]")
	}
	b.WriteByte(' ')
	data, cut := e.Data, 0
	if len(data) > maxRenderedFrame {
		data, cut = data[:maxRenderedFrame], len(data)-maxRenderedFrame
	}
	if printable(data) {
		b.Write(data)
	} else {
		b.WriteString(strconv.Quote(string(data)))
	}
	if cut > 0 {
		fmt.Fprintf(&b, "… (%d more bytes)", cut)
	}
	return b.String()
}

func printable(data []byte) bool {
	if len(data) == 0 || !utf8.Valid(data) {
		return false
	}
	for _, c := range data {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// Transcript is a snapshot of the frames that crossed a connection.
type Transcript struct {
	// Entries lists the frames in the order they were sent.
	Entries []Entry
	// Omitted counts earlier frames left out because of
	// [WithTranscriptLimit].
	Omitted int
}

// String renders the transcript one frame per line, ready to print when a
// test fails.
func (t Transcript) String() string {
	if len(t.Entries) == 0 && t.Omitted == 0 {
		return "(no messages)"
	}
	var b strings.Builder
	if t.Omitted > 0 {
		fmt.Fprintf(&b, "(%d earlier messages omitted)\n", t.Omitted)
	}
	for i, e := range t.Entries {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.String())
	}
	return b.String()
}

// Recorder records frames into a [Transcript]: the one both ends of a [Pair]
// share, and one for a connection that is not a Pair (a stdio or HTTP
// transport), so that every transcript is kept and printed the same way.
// Appending under a mutex keeps it cheap; the entries reference the frames
// rather than copying them, and live in chunks so a long transcript never
// copies itself to grow. Its methods are safe for concurrent use.
type Recorder struct {
	start   time.Time
	mu      sync.Mutex
	limit   int // < 0 unlimited, 0 off
	seq     int
	chunks  [][]Entry
	held    int // entries in chunks
	omitted int
}

// NewRecorder returns a recorder that keeps the limit most recent frames
// (counting older ones in [Transcript.Omitted]); limit == 0 records nothing
// but the count, and a negative limit keeps every frame. Entries are timed
// from now.
func NewRecorder(limit int) *Recorder { return &Recorder{start: time.Now(), limit: limit} }

// Record adds a frame travelling in direction d and returns its sequence
// number. It keeps data, which the caller must not modify afterwards.
func (t *Recorder) Record(d Direction, data []byte) int { return t.record(d, data, false, "") }

// Annotate adds a note ("not sent: ...") to the frame numbered seq, if the
// transcript still holds it.
func (t *Recorder) Annotate(seq int, note string) { t.annotate(seq, note) }

// Transcript returns a snapshot of the frames recorded so far.
func (t *Recorder) Transcript() Transcript { return t.snapshot() }

const (
	firstChunk = 8
	chunkSize  = 256
)

func (t *Recorder) record(d Direction, data []byte, raw bool, note string) int {
	at := time.Since(t.start)
	t.mu.Lock()
	t.seq++
	seq := t.seq
	if t.limit == 0 {
		t.omitted++
		t.mu.Unlock()
		return seq
	}
	last := len(t.chunks) - 1
	if last < 0 || len(t.chunks[last]) == cap(t.chunks[last]) {
		// Chunks start small, since most connections carry a handful of
		// messages, and double up to chunkSize.
		size := firstChunk
		if last >= 0 {
			size = min(2*cap(t.chunks[last]), chunkSize)
		}
		t.chunks = append(t.chunks, make([]Entry, 0, size))
		last++
	}
	t.chunks[last] = append(t.chunks[last], Entry{Seq: t.seq, Dir: d, At: at, Data: data, Raw: raw, Note: note})
	t.held++
	// Drop whole chunks that the limit no longer needs.
	for t.limit > 0 && t.held-len(t.chunks[0]) >= t.limit {
		t.held -= len(t.chunks[0])
		t.omitted += len(t.chunks[0])
		t.chunks[0] = nil
		t.chunks = t.chunks[1:]
	}
	t.mu.Unlock()
	return seq
}

func (t *Recorder) annotate(seq int, note string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for c := len(t.chunks) - 1; c >= 0; c-- {
		chunk := t.chunks[c]
		for i := len(chunk) - 1; i >= 0; i-- {
			if chunk[i].Seq == seq {
				if chunk[i].Note != "" {
					note = chunk[i].Note + ", " + note
				}
				chunk[i].Note = note
				return
			}
		}
	}
}

func (t *Recorder) snapshot() Transcript {
	t.mu.Lock()
	defer t.mu.Unlock()
	entries := make([]Entry, 0, t.held)
	for _, chunk := range t.chunks {
		entries = append(entries, chunk...)
	}
	omitted := t.omitted
	if t.limit > 0 && len(entries) > t.limit {
		omitted += len(entries) - t.limit
		entries = entries[len(entries)-t.limit:]
	}
	return Transcript{Entries: entries, Omitted: omitted}
}
