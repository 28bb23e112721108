package transport

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"testing"
	"time"
)

// FuzzSSEReader feeds arbitrary bytes, in reads of a size the input picks,
// to the SSE reader and checks it against refSSE, a direct reading of the
// event-stream format: the same messages, last event id and retry hint, no
// panic, and every message within the size limit.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: {}\n\n",
		"id: 1\r\nretry: 250\r\ndata: \r\n\r\ndata: {\"a\":1}\r\n\r\n",
		"data: a\rdata: b\r\r",
		"data: 1\r\rdata: 2\r\n\ndata: 3\n\r",
		": keep-alive\nevent: endpoint\ndata: /x\n\nevent: message\ndata: y\n\n",
		"id: a\x00b\ndata: z\n\nid\ndata\n\n",
		"retry: soon\nretry: 99999999999\ndata:x\n\n",
		"data: unfinished",
	} {
		f.Add(uint8(0), []byte(s))
		f.Add(uint8(1), []byte(s))
	}
	f.Fuzz(func(t *testing.T, chunk uint8, in []byte) {
		const maxData = 64
		sr := newSSEReader(&chunkReader{b: in, n: int(chunk%16) + 1}, maxData)
		var got []string
		var err error
		for {
			var d []byte
			if d, err = sr.next(); err != nil {
				break
			}
			if len(d) == 0 || len(d) > maxData || !bytes.Equal(d, bytes.TrimSpace(d)) {
				t.Fatalf("message %q: empty, over the limit or untrimmed", d)
			}
			got = append(got, string(d))
		}
		want, lastID, retry, tooLarge := refSSE(in, maxData)
		var errTooLarge errEventTooLarge
		if errors.As(err, &errTooLarge) {
			if !tooLarge {
				t.Fatalf("reader refused an event as too large; the reference did not")
			}
			if len(got) > len(want) {
				t.Fatalf("got %q before the refusal, the reference only %q", got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("message %d: got %q, want %q", i, got[i], want[i])
				}
			}
			return
		}
		if !errors.Is(err, io.EOF) {
			t.Fatalf("the stream ended with %v, not io.EOF", err)
		}
		if tooLarge {
			t.Fatalf("the reference found an event over the limit; the reader did not: %q", got)
		}
		if len(got) != len(want) {
			t.Fatalf("got %d messages %q, want %d %q", len(got), got, len(want), want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("message %d: got %q, want %q", i, got[i], want[i])
			}
		}
		if sr.lastID != lastID {
			t.Fatalf("last event id %q, want %q", sr.lastID, lastID)
		}
		if sr.retry != retry {
			t.Fatalf("retry %v, want %v", sr.retry, retry)
		}
	})
}

// chunkReader returns b in reads of at most n bytes, so that line endings
// (a CR and its LF above all) fall across reads.
type chunkReader struct {
	b []byte
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.n)], r.b)
	r.b = r.b[n:]
	return n, nil
}

// refSSE parses a whole stream the way the event-stream format describes
// it, without buffering concerns: lines end with CRLF, LF or CR; an
// unfinished last line or event is dropped. It returns the messages
// (trimmed data of events typed "message" or untyped, empty ones skipped),
// the last dispatched id, the retry hint, and whether any line or event's
// data went over the reader's limits.
func refSSE(in []byte, maxData int) (msgs []string, lastID string, retry time.Duration, tooLarge bool) {
	var lines [][]byte
	start := 0
	for i := 0; i < len(in); i++ {
		switch in[i] {
		case '\n':
			lines = append(lines, in[start:i])
			start = i + 1
		case '\r':
			lines = append(lines, in[start:i])
			if i+1 < len(in) && in[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	// The reader refuses an over-long line before it sees its end.
	unfinished := len(in) - start
	var data []byte
	var event, id string
	idSet := false
	for _, line := range lines {
		if len(line) > maxData+64 {
			return msgs, lastID, retry, true
		}
		if len(line) == 0 {
			if idSet {
				lastID = id
			}
			if d := bytes.TrimSpace(data); len(d) > 0 && (event == "" || event == "message") {
				msgs = append(msgs, string(d))
			}
			data, event, idSet = nil, "", false
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := string(line), ""
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = string(line[:i]), string(line[i+1:])
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch field {
		case "data":
			if len(data)+len(value)+1 > maxData {
				return msgs, lastID, retry, true
			}
			data = append(append(data, value...), '\n')
		case "event":
			event = value
		case "id":
			if !bytes.Contains([]byte(value), []byte{0}) {
				id, idSet = value, true
			}
		case "retry":
			if ms, err := strconv.ParseUint(value, 10, 31); err == nil {
				retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
	return msgs, lastID, retry, unfinished > maxData+64
}
