package memtransport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Stream returns a byte-stream view of this end with newline-delimited JSON
// framing (the stdio transport's), for code that only takes an io.Reader and
// an io.Writer:
//
//   - Read yields each received frame followed by '\n', and io.EOF once the
//     connection has ended and everything sent before has been read;
//   - Write splits its input at '\n' and sends each non-blank line as one
//     frame (a trailing '\r' is dropped); a partial line waits for the rest.
//     A line longer than the maximum message size is refused with an error
//     wrapping a [*SizeError] as soon as it is known to be too long; Write
//     then counts the line's bytes as written and skips the rest of it, up to
//     its '\n', so that no part of it is ever delivered as a frame;
//   - Close sends a last line that has no '\n' as a frame of its own, then
//     closes the connection. If that line cannot be sent at once (the
//     buffer is full, or it is too long) Close still closes, and returns an
//     error saying what was lost.
//
// Every call returns the same view. Its Read and Write block without a
// context (io has none); Close, from either end, ends them.
func (c *Conn) Stream() io.ReadWriteCloser {
	c.streamOnce.Do(func() { c.stream = &stream{c: c} })
	return c.stream
}

type stream struct {
	c *Conn

	rmu      sync.Mutex
	rframe   []byte // unread rest of the current frame
	rnewline bool   // the current frame's '\n' is still to be read

	wmu   sync.Mutex
	wbuf  []byte // a partial line waiting for its '\n'
	wskip bool   // the current line was refused: drop input up to its '\n'
}

func (s *stream) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if len(s.rframe) == 0 && !s.rnewline {
		m, err := s.c.Receive(context.Background())
		if err != nil {
			if errors.Is(err, io.ErrClosedPipe) {
				return 0, io.EOF
			}
			return 0, err
		}
		s.rframe, s.rnewline = m, true
	}
	n := copy(p, s.rframe)
	s.rframe = s.rframe[n:]
	if n < len(p) && len(s.rframe) == 0 && s.rnewline {
		p[n] = '\n'
		n++
		s.rnewline = false
	}
	return n, nil
}

func (s *stream) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	limit := s.c.p.cfg.maxSize
	written := 0
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if s.wskip {
			if i < 0 {
				return written + len(p), nil
			}
			s.wskip = false
			written += i + 1
			p = p[i+1:]
			continue
		}
		if i < 0 {
			// One byte more than the limit may be the '\r' of a "\r\n".
			if size := len(s.wbuf) + len(p); limit > 0 && size > limit+1 {
				s.wbuf, s.wskip = nil, true
				return written + len(p), lineTooLong(size, limit)
			}
			// io.Writer must not keep p, so the partial line is copied.
			s.wbuf = append(s.wbuf, p...)
			return written + len(p), nil
		}
		var line []byte
		if len(s.wbuf) > 0 {
			line = append(s.wbuf, p[:i]...)
			s.wbuf = nil
		} else {
			line = bytes.Clone(p[:i])
		}
		written += i + 1
		p = p[i+1:]
		if err := s.sendLine(line, false); err != nil {
			return written, err
		}
	}
	return written, nil
}

// sendLine sends one line, without its '\n', as a frame: nothing if it is
// blank, an error if it is too long. With now set it does not wait for room
// in the buffer.
func (s *stream) sendLine(line []byte, now bool) error {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if limit := s.c.p.cfg.maxSize; limit > 0 && len(line) > limit {
		return lineTooLong(len(line), limit)
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	return s.c.send(context.Background(), line, false, now)
}

func lineTooLong(size, limit int) error {
	return fmt.Errorf("memtransport: stream line refused, the rest of it up to its newline is skipped: %w", &SizeError{Size: size, Limit: limit})
}

// Close delivers a last line written without its '\n' (a peer that exits
// without ending its last line has still said it), then closes the
// connection. It does not wait: a line that finds the buffer full is lost,
// and Close says so; a Write still waiting for room is ended, not waited for.
func (s *stream) Close() error {
	if !s.wmu.TryLock() {
		// A Write is under way, perhaps waiting for room that a reader never
		// makes: close first, which ends it, rather than wait for it.
		s.c.Close()
		s.wmu.Lock()
		defer s.wmu.Unlock()
		if n := len(s.wbuf); n > 0 {
			s.wbuf = nil
			return fmt.Errorf("memtransport: stream closed during a Write, with an unterminated last line of %d bytes that was not delivered", n)
		}
		return nil
	}
	line := s.wbuf
	s.wbuf = nil
	s.wmu.Unlock()
	var err error
	if len(line) > 0 {
		if err = s.sendLine(line, true); err != nil {
			err = fmt.Errorf("memtransport: stream closed with an unterminated last line of %d bytes that was not delivered: %w", len(line), err)
		}
	}
	s.c.Close()
	return err
}
