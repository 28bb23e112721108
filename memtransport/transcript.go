package memtransport

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcptestkit/mcptestkit/internal/recent"
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

// transcript records the frames of a [Pair], which both ends share.
type transcript struct {
	start  time.Time
	frames recent.Log[Entry]
}

func newTranscript(limit int) transcript {
	return transcript{start: time.Now(), frames: recent.New[Entry](limit)}
}

// record adds a frame and returns its sequence number.
func (t *transcript) record(d Direction, data []byte, raw bool, note string) int {
	return t.frames.Add(Entry{Dir: d, At: time.Since(t.start), Data: data, Raw: raw, Note: note})
}

// annotate adds a note to the frame numbered seq, if it is still held.
func (t *transcript) annotate(seq int, note string) {
	t.frames.Update(seq, func(e *Entry) {
		if e.Note != "" {
			note = e.Note + ", " + note
		}
		e.Note = note
	})
}

func (t *transcript) snapshot() Transcript {
	entries, omitted := t.frames.Snapshot()
	for i := range entries {
		entries[i].Seq = omitted + i + 1
	}
	return Transcript{Entries: entries, Omitted: omitted}
}
