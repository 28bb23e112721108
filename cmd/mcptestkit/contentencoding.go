package main

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// The HTTP proxy passes bodies on as the server encoded them and records
// the messages they hold: it decodes a copy. These are the codings a
// browser or Node's fetch asks for (gzip, deflate, br, zstd).

// isIdentity reports whether a Content-Encoding leaves the body as it is.
func isIdentity(encoding string) bool {
	for _, c := range strings.Split(encoding, ",") {
		if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
			return false
		}
	}
	return true
}

// decodeTo writes to w what r, encoded as encoding says (codings applied in
// the order listed), holds.
func decodeTo(w io.Writer, encoding string, r io.Reader) error {
	codings := strings.Split(encoding, ",")
	for i := len(codings) - 1; i >= 0; i-- {
		var err error
		switch c := strings.ToLower(strings.TrimSpace(codings[i])); c {
		case "", "identity":
		case "gzip", "x-gzip":
			r, err = gzip.NewReader(r)
		case "deflate": // HTTP's deflate is zlib's format
			r, err = zlib.NewReader(r)
		case "br":
			r = brotli.NewReader(r)
		case "zstd":
			var d *zstd.Decoder
			if d, err = zstd.NewReader(r, zstd.WithDecoderConcurrency(1)); err == nil {
				defer d.Close()
				r = d
			}
		default:
			return fmt.Errorf("Content-Encoding %q: this proxy cannot decode it to record the messages (the client got them unchanged)", c)
		}
		if err != nil {
			return fmt.Errorf("Content-Encoding %s: %v", encoding, err)
		}
	}
	if _, err := io.Copy(w, r); err != nil {
		return fmt.Errorf("Content-Encoding %s: %v", encoding, err)
	}
	return nil
}

// decodeAll returns what body, encoded as encoding says, holds.
func decodeAll(encoding string, body []byte) ([]byte, error) {
	if isIdentity(encoding) {
		return body, nil
	}
	var b bytes.Buffer
	err := decodeTo(&b, encoding, bytes.NewReader(body))
	return b.Bytes(), err
}
