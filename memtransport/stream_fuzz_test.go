package memtransport_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

// FuzzStream writes arbitrary bytes through Stream in arbitrary pieces and
// checks that exactly the lines the framing rules allow arrive, whole and in
// order (no fragment of a refused line, no lost last line), and that reading
// them back through the other end's Stream gives each followed by '\n'.
// The seed corpus is in testdata/fuzz/FuzzStream.
func FuzzStream(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\r\n\n  \n{\"c\":3}"), uint8(3), uint8(8))
	f.Fuzz(func(t *testing.T, input []byte, piece, limit uint8) {
		max := int(limit % 32) // 0: no limit
		size := int(piece%16) + 1
		want := streamLines(input, max)

		c, s := memtransport.Pair(memtransport.WithMaxMessageSize(max), memtransport.WithBufferSize(len(input)+1))
		defer c.Close()
		w := s.Stream()
		for rest := input; len(rest) > 0; {
			chunk := rest[:min(size, len(rest))]
			rest = rest[len(chunk):]
			for len(chunk) > 0 {
				n, err := w.Write(chunk)
				if n < 0 || n > len(chunk) {
					t.Fatalf("Write(%q) = %d", chunk, n)
				}
				if err != nil && !errors.Is(err, memtransport.ErrTooLarge) {
					t.Fatalf("Write(%q): %v", chunk, err)
				}
				if err == nil && n != len(chunk) {
					t.Fatalf("Write(%q) = %d with no error", chunk, n)
				}
				chunk = chunk[n:]
			}
		}
		if err := w.Close(); err != nil && !errors.Is(err, memtransport.ErrTooLarge) {
			t.Fatalf("Close: %v", err)
		}

		got, err := io.ReadAll(readInPieces{c.Stream(), size})
		if err != nil {
			t.Fatal(err)
		}
		var expect []byte
		for _, l := range want {
			expect = append(append(expect, l...), '\n')
		}
		if !bytes.Equal(got, expect) {
			t.Fatalf("input %q (pieces of %d, limit %d):\ngot  %q\nwant %q", input, size, max, got, expect)
		}
	})
}

// streamLines is the framing Stream documents, written plainly: every line
// (the last one too, even without its '\n'), less a trailing '\r', is a
// frame unless it is blank or longer than max.
func streamLines(input []byte, max int) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(input, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		if (max > 0 && len(l) > max) || len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		out = append(out, l)
	}
	return out
}

// readInPieces reads at most n bytes per Read, as a small buffer would.
type readInPieces struct {
	r io.Reader
	n int
}

func (r readInPieces) Read(p []byte) (int, error) { return r.r.Read(p[:min(len(p), r.n)]) }
