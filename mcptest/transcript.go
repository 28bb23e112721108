package mcptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Defaults for the transcript printed when a test fails: the first and last
// messages of a long run are where the handshake and the failure are, so the
// middle is what gets cut.
const (
	transcriptHead = 20
	transcriptTail = 60
	// transcriptLine is how many bytes of one message are printed.
	transcriptLine = 2000
)

// transcriptFormat says how a failing test prints a transcript: each
// message as [memtransport.Entry.String] renders it (as
// [memtransport.Transcript.String] and [Transcript.String] do), with a
// header, the middle of a long run cut, and notes on what went unanswered.
type transcriptFormat struct {
	head, tail int // the messages kept at each end of a long run; negative: all
	lineMax    int // the bytes printed of one message; <= 0: all
	// compact elides what the protocol stamps on every message (see
	// [compactMessage]); the header says so once.
	compact bool
	// missing says which requests for input the client has no callback
	// for, to add notes on those it refused ([inputNotes]); nil: unknown.
	missing func(method string) bool
}

// elidedNote is printed once at the top of a compacted transcript.
const elidedNote = `(repeated "_meta" stamps and result hints left out; go test -v prints every message as sent)`

func (f transcriptFormat) render(tr memtransport.Transcript) string {
	entries := tr.Entries
	var b strings.Builder
	total := len(entries) + tr.Omitted
	fmt.Fprintf(&b, "transcript of the connection (%d %s):", total, plural(total, "message"))
	if total == 0 {
		b.WriteString("\n\t(no messages)")
		return b.String()
	}
	header := b.Len()
	elided := false
	seen := map[string]string{} // stamp name → the value last printed
	if tr.Omitted > 0 {
		fmt.Fprintf(&b, "\n\t... %d earlier message(s) not recorded ...", tr.Omitted)
	}
	cut := 0
	if f.head >= 0 && f.tail >= 0 && len(entries) > f.head+f.tail {
		cut = len(entries) - f.head - f.tail
	}
	for i, e := range entries {
		if cut > 0 && i == f.head {
			fmt.Fprintf(&b, "\n\t... %d message(s) cut from the middle ...", cut)
		}
		if cut > 0 && i >= f.head && i < f.head+cut {
			continue
		}
		if f.compact {
			if data, ok := compactMessage(e.Data, seen); ok {
				e.Data, elided = data, true
			}
		}
		b.WriteString("\n\t")
		b.WriteString(cutLine(e.String(), f.lineMax))
	}
	notes := append(requestNotes(entries), versionNotes(entries)...)
	if f.missing != nil {
		notes = append(notes, inputNotes(entries, f.missing)...)
	}
	for _, note := range notes {
		b.WriteString("\n\t")
		b.WriteString(note)
	}
	out := b.String()
	if elided {
		out = out[:header] + "\n\t" + elidedNote + out[header:]
	}
	return out
}

// compactMessage returns data, one JSON-RPC message, without the stamps
// [Normalize] removes for golden files, and reports whether it removed any.
// Unlike Normalize, it keeps a "_meta" stamp whose value differs from the
// one last printed under its name (seen, which it updates), so that the
// reader still learns the protocol version and the client's and server's
// identity, and when they change; request ids stay as sent (the notes name
// them). A message with nothing to remove, or that is not JSON, is left as
// sent. The members of the message itself come in the order JSON-RPC
// readers expect; those inside are sorted by name.
func compactMessage(data []byte, seen map[string]string) ([]byte, bool) {
	v, err := toGeneric(json.RawMessage(data))
	if err != nil {
		return data, false
	}
	v, removed := stripStamps(v, func(key string, value any) bool {
		b, err := json.Marshal(value)
		if err != nil {
			return false
		}
		if last, ok := seen[key]; ok && last == string(b) {
			return true
		}
		seen[key] = string(b)
		return false
	})
	obj, ok := v.(map[string]any)
	if !removed || !ok {
		return data, false
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	first := true
	member := func(k string) bool {
		e, ok := obj[k]
		if !ok {
			return true
		}
		delete(obj, k)
		if !first {
			b.WriteByte(',')
		}
		first = false
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		if err := enc.Encode(e); err != nil {
			return false
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		return true
	}
	for _, k := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
		if !member(k) {
			return data, false
		}
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !member(k) {
			return data, false
		}
	}
	b.WriteByte('}')
	return b.Bytes(), true
}

// requestNotes points at the requests a reader of a failed test should look
// at first: those that got no response (the usual sign of a hung handler) and
// those the client cancelled (a timeout), e.g.
//
//	no response to tools/call "slow" (id 3, message #5, client→server)
//	the client cancelled tools/call "slow" (id 3, message #5) at message #7: the client stopped waiting: context deadline exceeded
func requestNotes(entries []memtransport.Entry) []string {
	type request struct {
		seq  int
		dir  memtransport.Direction
		what string
		id   string
	}
	open := map[string]request{}
	var order []string
	var notes []string
	for _, e := range entries {
		m, err := jsonrpc.Decode(e.Data)
		if err != nil {
			continue
		}
		switch {
		case m.IsRequest():
			key := e.Dir.String() + m.ID.String()
			r := request{seq: e.Seq, dir: e.Dir, what: m.Method, id: m.ID.String()}
			var p struct {
				Name string `json:"name"`
				URI  string `json:"uri"`
			}
			if json.Unmarshal(m.Params, &p) == nil && p.Name+p.URI != "" {
				r.what += fmt.Sprintf(" %q", p.Name+p.URI)
			}
			open[key] = r
			order = append(order, key)
		case m.Method == "notifications/cancelled":
			var p struct {
				RequestID jsonrpc.ID `json:"requestId"`
				Reason    string     `json:"reason"`
			}
			if json.Unmarshal(m.Params, &p) != nil {
				continue
			}
			if r, ok := open[e.Dir.String()+p.RequestID.String()]; ok {
				note := fmt.Sprintf("%s cancelled %s (id %s, message #%d) at message #%d", sender(e.Dir), r.what, r.id, r.seq, e.Seq)
				if p.Reason != "" {
					note += ": " + p.Reason
				}
				notes = append(notes, note)
			}
		case m.IsResponse() && !strings.Contains(e.Note, "dropped"):
			// A response travels the other way from its request; one that
			// was dropped on the way answered nothing.
			other := memtransport.Direction(3 - e.Dir)
			delete(open, other.String()+m.ID.String())
		}
	}
	for _, key := range order {
		r, ok := open[key]
		if !ok {
			continue
		}
		delete(open, key) // an id reused after its response is listed once
		notes = append(notes, fmt.Sprintf("no response to %s (id %s, message #%d, %s)", r.what, r.id, r.seq, r.dir))
	}
	return notes
}

func sender(d memtransport.Direction) string {
	if d == memtransport.ClientToServer {
		return "the client"
	}
	return "the server"
}

// cutLine shortens s to about max bytes, keeping both ends, on rune
// boundaries.
func cutLine(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	keepHead := max * 3 / 4
	keepTail := max - keepHead
	for keepHead > 0 && !utf8.RuneStart(s[keepHead]) {
		keepHead--
	}
	start := len(s) - keepTail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return fmt.Sprintf("%s …(%d bytes cut)… %s", s[:keepHead], start-keepHead, s[start:])
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
