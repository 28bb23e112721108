package memtransport_test

import (
	"bufio"
	"io"
	"strings"
	"testing"

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
	_, err := s.Stream().Write([]byte(`{"abc":1234`))
	require.ErrorIs(t, err, memtransport.ErrTooLarge)
	_, err = s.Stream().Write([]byte("{\"abc\":1234}\n"))
	require.ErrorIs(t, err, memtransport.ErrTooLarge)
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
	require.ErrorIs(t, err, memtransport.ErrClosed)
	_, err = s.Stream().Write([]byte("{}\n"))
	require.ErrorIs(t, err, memtransport.ErrClosed)
}
