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
//     frame (a trailing '\r' is dropped); a partial line waits for the rest;
//   - Close closes the connection.
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

	wmu  sync.Mutex
	wbuf []byte // a partial line waiting for its '\n'
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
			if errors.Is(err, ErrClosed) {
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
		if i < 0 {
			if limit > 0 && len(s.wbuf)+len(p) > limit {
				size := len(s.wbuf) + len(p)
				s.wbuf = nil
				return written, fmt.Errorf("memtransport: stream line: %w", &SizeError{Size: size, Limit: limit})
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
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(bytes.TrimSpace(line)) > 0 {
			if err := s.c.Send(context.Background(), line); err != nil {
				return written, err
			}
		}
		written += i + 1
		p = p[i+1:]
	}
	return written, nil
}

func (s *stream) Close() error { return s.c.Close() }
