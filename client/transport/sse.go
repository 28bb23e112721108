package transport

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"time"
)

// sseReader reads server-sent events (the WHATWG event-stream format) and
// returns the data of each "message" event. It keeps the stream's last event
// id and retry hint, which resumption needs.
type sseReader struct {
	br      *bufio.Reader
	maxData int

	lastID   string        // the id of the last dispatched event ("" = none)
	hasID    bool          // some event set an id
	retry    time.Duration // the last retry hint; 0 = none
	retrySet bool
	afterCR  bool  // the last line ended with a CR, which an LF may follow
	broken   error // why the last stream broke off, when it did not just end
}

// how says how the last stream ended, for an error message: "" when it
// ended cleanly, else the read error.
func (r *sseReader) how() string {
	if r.broken == nil {
		return ""
	}
	return fmt.Sprintf(" (%v)", unwrapURLError(r.broken))
}

func newSSEReader(r io.Reader, maxData int) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 4<<10), maxData: maxData} // longer lines are assembled
}

// errEventTooLarge reports an event whose data exceeds the limit.
type errEventTooLarge struct{ limit int }

func (e errEventTooLarge) Error() string {
	return fmt.Sprintf("an SSE event carries more than %d bytes of data (limit set with WithMaxBodySize)", e.limit)
}

// next returns the data of the next "message" event (events without a type
// count as messages), without surrounding whitespace. Events with no data,
// or only whitespace, are not returned, but their id and retry fields still
// take effect, as the spec's priming events rely on. At
// the end of the stream it returns io.EOF; an unfinished last event is
// discarded, as the event-stream format says.
func (r *sseReader) next() ([]byte, error) {
	var (
		data    []byte
		hasData bool
		event   string
		id      string
		idSet   bool
	)
	for {
		line, err := r.readLine()
		if err != nil {
			return nil, err
		}
		if len(line) == 0 { // dispatch
			if idSet {
				r.lastID, r.hasID = id, true
			}
			// An event whose data is empty (the priming event of SEP-1699:
			// an id, maybe a retry, "data:" with nothing) carries no message.
			if d := bytes.TrimSpace(data); hasData && len(d) > 0 && (event == "" || event == "message") {
				return d, nil
			}
			data, hasData, event, idSet = data[:0], false, "", false
			continue
		}
		if line[0] == ':' {
			continue // a comment: servers send these as keep-alives
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte{' '})
		}
		switch string(field) {
		case "data":
			if len(data)+len(value)+1 > r.maxData {
				return nil, errEventTooLarge{r.maxData}
			}
			data = append(data, value...)
			data = append(data, '\n')
			hasData = true
		case "event":
			event = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 { // the format ignores ids with NUL
				id, idSet = string(value), true
			}
		case "retry":
			if ms, err := strconv.ParseUint(string(value), 10, 31); err == nil {
				r.retry, r.retrySet = time.Duration(ms)*time.Millisecond, true
			}
		}
	}
}

// readLine returns the next line without its ending: CRLF, LF or a bare
// CR, as the event-stream format allows. A line longer than the data limit
// (plus room for the field name) is an error.
func (r *sseReader) readLine() ([]byte, error) {
	limit := r.maxData + 64
	var line []byte
	for {
		buf, err := r.fill()
		if err != nil {
			return nil, err // at io.EOF, a line without its ending is an unfinished event
		}
		if r.afterCR {
			// The previous line ended with CR: an LF right after it is
			// part of that ending, not an empty line.
			r.afterCR = false
			if buf[0] == '\n' {
				_, _ = r.br.Discard(1)
				continue
			}
		}
		end := bytes.IndexByte(buf, '\n')
		if end < 0 {
			end = len(buf)
		}
		if cr := bytes.IndexByte(buf[:end], '\r'); cr >= 0 {
			end = cr
		}
		if len(line)+end > limit {
			return nil, errEventTooLarge{r.maxData}
		}
		line = append(line, buf[:end]...)
		if end < len(buf) {
			r.afterCR = buf[end] == '\r'
			_, _ = r.br.Discard(end + 1)
			return line, nil
		}
		_, _ = r.br.Discard(end)
	}
}

// fill returns what is buffered, reading more when nothing is.
func (r *sseReader) fill() ([]byte, error) {
	if n := r.br.Buffered(); n > 0 {
		return r.br.Peek(n)
	}
	if _, err := r.br.Peek(1); err != nil {
		return nil, err
	}
	return r.br.Peek(r.br.Buffered())
}

// reset points the reader at a new body, keeping the last event id and the
// retry hint: a resumed stream continues the old one.
func (r *sseReader) reset(body io.Reader) {
	r.br.Reset(body)
	r.afterCR = false
}
