package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// exitReader reads one of the server's output pipes. Once the process has
// exited, what is in the pipe is still read, but a pipe that stays empty
// for stdoutSettle ends (os.ErrDeadlineExceeded): a grandchild that
// inherited it would otherwise keep pending calls waiting until their own
// deadlines.
type exitReader struct {
	f      *os.File
	exited <-chan struct{}
}

func (r exitReader) Read(p []byte) (int, error) {
	select {
	case <-r.exited:
		_ = r.f.SetReadDeadline(time.Now().Add(stdoutSettle))
	default:
	}
	return r.f.Read(p)
}

// fail records why the stdout stream ended; the first reason wins.
func (s *Stdio) fail(err error) {
	s.errOnce.Do(func() {
		s.err = err
		close(s.failed)
	})
}

func (s *Stdio) readStdout() {
	defer s.wg.Done()
	br := bufio.NewReaderSize(exitReader{s.stdout, s.exited}, 64<<10)
	err := s.readMessages(br)
	s.stdoutEnded(err)
	var tooLong errLineTooLong
	var invalid errInvalidLine
	if errors.As(err, &tooLong) || errors.As(err, &invalid) {
		// The stream can no longer be framed, but keep reading it: a server
		// blocked writing the rest of a long line would otherwise never see
		// its stdin close, and Close would have to signal it.
		_, _ = io.Copy(io.Discard, br)
	}
}

// readMessages queues each line of stdout for Receive until the stream
// ends or breaks its framing.
func (s *Stdio) readMessages(br *bufio.Reader) error {
	for {
		line, err := readLine(br, s.cfg.maxLine)
		if err != nil {
			return err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue // tolerate blank lines (and CRLF endings, trimmed above)
		}
		if !json.Valid(line) {
			return errInvalidLine{line}
		}
		select {
		case s.incoming <- line:
		case <-s.closing:
			return errClosed
		}
	}
}

// errInvalidLine carries a line of stdout that is not JSON.
type errInvalidLine struct{ line []byte }

func (e errInvalidLine) Error() string { return "not JSON: " + excerpt(e.line, 200) }

// errLineTooLong is readLine's report; the byte count is in the message.
type errLineTooLong struct{ limit int }

func (e errLineTooLong) Error() string { return fmt.Sprintf("more than %d bytes", e.limit) }

// readLine returns the next line (without its newline), refusing lines
// longer than limit. The returned slice is freshly allocated.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > limit+1 { // +1: the newline is not content
			return nil, errLineTooLong{limit}
		}
		switch {
		case err == nil:
			if line == nil {
				return append([]byte(nil), chunk[:len(chunk)-1]...), nil
			}
			return append(line, chunk[:len(chunk)-1]...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			line = append(line, chunk...)
		default:
			if len(line)+len(chunk) > 0 && errors.Is(err, io.EOF) {
				// A last line without a newline is still a line.
				return append(line, chunk...), nil
			}
			return nil, err
		}
	}
}

func (s *Stdio) stdoutEnded(err error) {
	select {
	case <-s.closing:
		s.fail(errClosed)
		return
	default:
	}
	var tooLong errLineTooLong
	var invalid errInvalidLine
	switch {
	case errors.As(err, &tooLong):
		s.settleStderr()
		s.fail(s.processError(ErrLineTooLong, fmt.Sprintf("%s (limit set with WithMaxLineSize)", tooLong)))
	case errors.As(err, &invalid):
		s.settleStderr()
		s.fail(s.processError(ErrInvalidOutput, excerpt(invalid.line, 200)))
	case errors.Is(err, os.ErrDeadlineExceeded):
		// Only set once the process exited (see exitReader).
		s.awaitExit()
		s.fail(s.processError(ErrProcessExited, "its stdout is still held open by another process, probably one it started"))
	case errors.Is(err, io.EOF):
		if s.awaitExit() {
			s.fail(s.processError(ErrProcessExited, ""))
		} else {
			s.fail(s.processError(ErrOutputClosed, "the process is still running"))
		}
	default:
		s.fail(s.processError(fmt.Errorf("reading its stdout: %w", err), ""))
	}
}

// awaitExit waits, bounded by the grace period, for the process to end and
// for its last stderr to be read, so that an error can quote both. It
// reports whether the process has exited.
func (s *Stdio) awaitExit() bool {
	t := time.NewTimer(s.cfg.grace)
	defer t.Stop()
	select {
	case <-s.exited:
	case <-s.closing:
		return false
	case <-t.C:
		return false
	}
	select {
	case <-s.stderrOK:
	case <-s.closing:
	case <-t.C:
	}
	return true
}

// settleStderr gives the stderr reader a moment to catch up before an error
// quotes it: stdout and stderr are separate pipes read by separate
// goroutines, and a server usually explains itself on stderr just before or
// after the line that broke the stream.
func (s *Stdio) settleStderr() {
	t := time.NewTimer(stderrSettle)
	defer t.Stop()
	select {
	case <-s.stderrOK:
	case <-s.closing:
	case <-t.C:
	}
}

func (s *Stdio) processError(err error, detail string) *ProcessError {
	pe := &ProcessError{Command: s.name, Err: err, Detail: detail, Stderr: s.stderrExcerpt()}
	select {
	case <-s.exited:
		pe.State = s.cmd.ProcessState
	default:
	}
	return pe
}

// stderrExcerpt returns the last stderrInError bytes of stderr, starting at
// a line boundary when there is one.
func (s *Stdio) stderrExcerpt() string {
	s.tailMu.Lock()
	defer s.tailMu.Unlock()
	t := bytes.TrimRight(s.tail, "\r\n")
	if len(t) > stderrInError {
		t = t[len(t)-stderrInError:]
		if i := bytes.IndexByte(t, '\n'); i >= 0 && i < len(t)-1 {
			t = t[i+1:]
		}
	}
	return string(t)
}

func (s *Stdio) readStderr() {
	defer s.wg.Done()
	defer close(s.stderrOK)
	buf := make([]byte, 32<<10)
	var partial []byte // an unfinished line, for the line callback
	r := exitReader{s.stderr, s.exited}
	for {
		n, err := r.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			s.keepTail(chunk)
			if s.cfg.stderr != nil {
				_, _ = s.cfg.stderr.Write(chunk)
			}
			if s.cfg.lines != nil {
				partial = s.emitLines(partial, chunk)
			}
		}
		if err != nil {
			if len(partial) > 0 {
				s.cfg.lines(string(bytes.TrimSuffix(partial, []byte{'\r'})))
			}
			return
		}
	}
}

func (s *Stdio) emitLines(partial, chunk []byte) []byte {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			partial = append(partial, chunk...)
			for len(partial) >= maxStderrLine {
				s.cfg.lines(string(partial[:maxStderrLine]))
				partial = append(partial[:0], partial[maxStderrLine:]...)
			}
			return partial
		}
		line := append(partial, chunk[:i]...)
		s.cfg.lines(string(bytes.TrimSuffix(line, []byte{'\r'})))
		partial = partial[:0]
		chunk = chunk[i+1:]
	}
	return partial
}

func (s *Stdio) keepTail(p []byte) {
	s.tailMu.Lock()
	defer s.tailMu.Unlock()
	if len(p) >= stderrTailSize {
		s.tail = append(s.tail[:0], p[len(p)-stderrTailSize:]...)
		return
	}
	if over := len(s.tail) + len(p) - stderrTailSize; over > 0 {
		s.tail = append(s.tail[:0], s.tail[over:]...)
	}
	s.tail = append(s.tail, p...)
}

// excerpt quotes at most n bytes of b for an error message.
func excerpt(b []byte, n int) string {
	if len(b) <= n {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q... (%d bytes)", b[:n], len(b))
}
