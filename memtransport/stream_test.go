package memtransport_test

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

func TestStreamReadYieldsNewlineDelimitedFrames(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	ctx := t.Context()
	require.NoError(t, c.Send(ctx, []byte(`{"a":1}`)))
	require.NoError(t, c.Send(ctx, []byte(`{"b":2}`)))
	require.NoError(t, c.Close())

	// A small buffer forces frames to be read in pieces.
	r := s.Stream()
	var got []byte
	buf := make([]byte, 3)
	for {
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	assert.Equal(t, "{\"a\":1}\n{\"b\":2}\n", string(got))
}

func TestStreamWriteSplitsLinesIntoFrames(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	ctx := t.Context()
	w := s.Stream()

	n, err := w.Write([]byte("{\"a\":1}\n{\"b\""))
	require.NoError(t, err)
	assert.Equal(t, 12, n)
	n, err = w.Write([]byte(":2}\r\n\n  \n{\"c\":3}\n"))
	require.NoError(t, err)
	assert.Equal(t, 17, n)

	for _, want := range []string{`{"a":1}`, `{"b":2}`, `{"c":3}`} {
		got, err := c.Receive(ctx)
		require.NoError(t, err)
		assert.Equal(t, want, string(got))
	}
	assert.Len(t, c.Transcript().Entries, 3, "blank lines are not frames")
}

func TestStreamWriteDoesNotKeepTheCallersBuffer(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	buf := []byte("{\"a\":1}\n")
	_, err := s.Stream().Write(buf)
	require.NoError(t, err)
	copy(buf, "XXXXXXX")
	got, err := c.Receive(t.Context())
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(got))
}

func TestStreamWriteLineTooLong(t *testing.T) {
	t.Parallel()
	_, s := pair(t, memtransport.WithMaxMessageSize(8))
	_, err := s.Stream().Write([]byte("{\"abc\":1234}\n"))
	require.ErrorIs(t, err, memtransport.ErrTooLarge)
	var se *memtransport.SizeError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 12, se.Size)
}

// A line known to be too long before its newline arrives is refused at
// once; the rest of it, in later writes, must be skipped, never delivered as
// a frame of its own (the bug: `34}` arrived as a message).
func TestStreamWriteSkipsTheRestOfARefusedLine(t *testing.T) {
	t.Parallel()
	c, s := pair(t, memtransport.WithMaxMessageSize(8))
	w := s.Stream()

	n, err := w.Write([]byte("{\"a\":1}\n{\"abc\":123"))
	require.ErrorIs(t, err, memtransport.ErrTooLarge)
	assert.Equal(t, 18, n, "the refused line's bytes count as written, so a caller does not write them again")
	n, err = w.Write([]byte("4"))
	require.NoError(t, err, "the rest of a refused line is skipped silently: the error was reported once")
	assert.Equal(t, 1, n)
	n, err = w.Write([]byte("}\n{\"b\":2}\n"))
	require.NoError(t, err)
	assert.Equal(t, 10, n)
	// A complete line that is too long is consumed too, and the lines after
	// it are written by the next call.
	n, err = w.Write([]byte("{\"abcdefg\":1}\n{\"c\":3}\n"))
	require.ErrorIs(t, err, memtransport.ErrTooLarge)
	assert.Equal(t, 14, n)
	_, err = w.Write([]byte("{\"c\":3}\n"))
	require.NoError(t, err)
	require.NoError(t, w.Close())

	var got []string
	for {
		m, err := c.Receive(t.Context())
		if err != nil {
			require.ErrorIs(t, err, io.ErrClosedPipe)
			break
		}
		got = append(got, string(m))
	}
	assert.Equal(t, []string{`{"a":1}`, `{"b":2}`, `{"c":3}`}, got)
}

// A line of exactly the limit followed by "\r\n" is not too long.
func TestStreamWriteLimitIgnoresCarriageReturn(t *testing.T) {
	t.Parallel()
	c, s := pair(t, memtransport.WithMaxMessageSize(7))
	w := s.Stream()
	_, err := w.Write([]byte(`{"a":1}` + "\r"))
	require.NoError(t, err)
	_, err = w.Write([]byte("\n"))
	require.NoError(t, err)
	got, err := c.Receive(t.Context())
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(got))
}

// A last line without a newline is delivered at Close, not dropped.
func TestStreamCloseDeliversTheLastUnterminatedLine(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	w := s.Stream()
	_, err := w.Write([]byte("{\"a\":1}\n{\"last\":true}\r"))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	for _, want := range []string{`{"a":1}`, `{"last":true}`} {
		got, err := c.Receive(t.Context())
		require.NoError(t, err)
		assert.Equal(t, want, string(got))
	}
	_, err = c.Receive(t.Context())
	require.ErrorIs(t, err, io.ErrClosedPipe)
}

// Close does not wait: a last line that finds the buffer full is reported,
// and the connection is closed all the same.
func TestStreamCloseReportsALastLineItCouldNotDeliver(t *testing.T) {
	t.Parallel()
	c, s := pair(t, memtransport.WithBufferSize(1))
	w := s.Stream()
	_, err := w.Write([]byte("{\"a\":1}\n{\"lost\""))
	require.NoError(t, err)
	err = w.Close()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unterminated last line of 7 bytes that was not delivered: memtransport: the buffer is full")
	got, err := c.Receive(t.Context())
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(got))
	_, err = c.Receive(t.Context())
	require.ErrorIs(t, err, io.ErrClosedPipe)
	assert.Contains(t, c.Transcript().String(), `[not delivered: memtransport: the buffer is full] {"lost"`)
}

func TestStreamWithBufio(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	ctx := t.Context()
	// An NDJSON echo server that only knows a reader and a writer.
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(s.Stream())
		for sc.Scan() {
			if _, err := io.WriteString(s.Stream(), strings.ToUpper(sc.Text())+"\n"); err != nil {
				done <- err
				return
			}
		}
		done <- sc.Err()
	}()
	require.NoError(t, c.Send(ctx, []byte(`"hello"`)))
	got, err := c.Receive(ctx)
	require.NoError(t, err)
	assert.Equal(t, `"HELLO"`, string(got))
	require.NoError(t, c.Close())
	require.NoError(t, <-done, "the reader sees a clean EOF after Close")
}

func TestStreamCloseClosesTheConnection(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	require.NoError(t, s.Stream().Close())
	_, err := c.Receive(t.Context())
	require.ErrorIs(t, err, io.ErrClosedPipe)
	_, err = s.Stream().Write([]byte("{}\n"))
	require.ErrorIs(t, err, io.ErrClosedPipe)
}

// Close ends a Write blocked on a full buffer, as it promises, instead of
// waiting for that Write to finish first. (Before: Close waited for the
// Write's lock, and the Write for a reader that never came: a hang.)
func TestStreamCloseEndsABlockedWrite(t *testing.T) {
	t.Parallel()
	_, s := pair(t, memtransport.WithBufferSize(1))
	w := s.Stream()
	werr := make(chan error, 1)
	go func() {
		_, err := w.Write([]byte("{\"a\":1}\n{\"b\":2}\n{\"c\"")) // the second line finds the buffer full
		werr <- err
	}()
	// The transcript lists a frame before it waits for room.
	require.Eventually(t, func() bool { return len(s.Transcript().Entries) == 2 }, time.Minute, time.Millisecond)
	closed := make(chan error, 1)
	go func() { closed <- w.Close() }()
	select {
	case err := <-closed:
		require.NoError(t, err, "the blocked Write still owned the partial line")
	case <-time.After(time.Minute):
		t.Fatal("Close did not return while a Write was blocked")
	}
	require.ErrorIs(t, <-werr, io.ErrClosedPipe)
}
