// Package cassette is the file format of a recorded MCP session: one JSON
// object per line, diff-friendly, versioned. The first line is the header
// (the format's version, the protocol version, the server's identity, the
// transport); each line after it is one message, in the order it crossed
// the connection, with its direction and its time since the session began:
//
//	{"cassette":1,"protocolVersion":"2025-11-25","server":{"name":"notes","version":"v1.0.0"},"transport":"stdio"}
//	{"dir":"c2s","ms":0,"msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{...}}}
//	{"dir":"s2c","ms":3,"msg":{"jsonrpc":"2.0","id":1,"result":{...}}}
//
// A recording of several sessions at once (HTTP clients sharing one proxy)
// is version 2: each message line names its session, a number the recorder
// gave it ("session":1), so that a request's id and answer pair up within
// their session. A recording of one session is written as version 1, which
// this package reads as well. Lines have no length limit: what the writer
// writes, the reader reads.
//
// Nothing machine-specific is kept: no paths, no host names, no wall-clock
// times. Secrets are replaced before a message is written (see [Redactor]).
package cassette

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcptestkit/mcptestkit/internal/jsonscan"
)

// Version is the newest version of the format, the header's "cassette"
// member; a cassette is written in the oldest version that holds it.
const Version = 2

// Directions of a message.
const (
	ClientToServer = "c2s"
	ServerToClient = "s2c"
)

// Header is a cassette's first line.
type Header struct {
	Cassette        int        `json:"cassette"`
	ProtocolVersion string     `json:"protocolVersion,omitempty"`
	Server          *Info      `json:"server,omitempty"`
	Transport       string     `json:"transport,omitempty"` // "stdio" or "http"
	Redact          *Redaction `json:"redact,omitempty"`    // what was redacted beyond the defaults
}

// Info names a server.
type Info struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// Frame is one message.
type Frame struct {
	Dir string `json:"dir"`
	Ms  int64  `json:"ms"`
	// Session numbers the session the message belongs to, from 1, when the
	// cassette holds several (version 2); 0 when it holds one.
	Session int             `json:"session,omitempty"`
	Msg     json.RawMessage `json:"msg"`
}

// Cassette is a whole recorded session.
type Cassette struct {
	Header Header
	Frames []Frame
}

// Write writes c, a line per frame after the header.
func (c *Cassette) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	h := c.Header
	h.Cassette = 1
	for _, f := range c.Frames {
		if f.Session != 0 {
			h.Cassette = 2
			break
		}
	}
	if err := writeLine(bw, h); err != nil {
		return err
	}
	var m bytes.Buffer
	for _, f := range c.Frames {
		m.Reset()
		if err := json.Compact(&m, f.Msg); err != nil {
			return fmt.Errorf("cassette: a %s message is not JSON: %v", f.Dir, err)
		}
		// The message, however long, is copied once: not marshalled again.
		head, err := json.Marshal(Frame{Dir: f.Dir, Ms: f.Ms, Session: f.Session, Msg: json.RawMessage("0")})
		if err != nil {
			return err
		}
		bw.Write(head[:len(head)-len(`0}`)])
		bw.Write(m.Bytes())
		if _, err := bw.WriteString("}\n"); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func writeLine(w *bufio.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Write(data)
	return w.WriteByte('\n')
}

// WriteFile writes c to path through a new temporary file in the same
// directory (created exclusively, so nothing planted there is followed),
// renamed over path: a reader sees the old file or the new one whole, and
// concurrent writers do not disturb each other (the last rename wins).
func (c *Cassette) WriteFile(path string) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := c.Write(f); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil { // CreateTemp's 0600: a cassette is meant to be shared
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// ReadFile reads the cassette at path.
func ReadFile(path string) (*Cassette, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	return c, nil
}

// LineError is a malformed cassette line.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Read reads a cassette, checking every line: a header of a version this
// package reads, then frames with a direction, a time that does not go
// back, and a JSON-RPC message. An error names the line (a *LineError). A
// file with no header (empty, or blank lines only) is an error.
func Read(r io.Reader) (*Cassette, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	c := &Cassette{}
	n := 0
	header := false
	var last int64
	for {
		line, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, &LineError{n + 1, err}
		}
		if len(line) == 0 && err == io.EOF {
			break
		}
		n++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			if err == io.EOF {
				break
			}
			continue
		}
		if !header {
			if err := readHeader(line, &c.Header); err != nil {
				return nil, &LineError{n, err}
			}
			header = true
		} else {
			f, ferr := readFrame(line, last, c.Header.Cassette)
			if ferr != nil {
				return nil, &LineError{n, ferr}
			}
			last = f.Ms
			c.Frames = append(c.Frames, f)
		}
		if err == io.EOF {
			break
		}
	}
	if !header {
		return nil, &LineError{max(n, 1), errors.New("empty: no cassette header")}
	}
	return c, nil
}

func readHeader(line []byte, h *Header) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(h); err != nil {
		return fmt.Errorf("not a cassette header: %v", err)
	}
	if h.Cassette < 1 || h.Cassette > Version {
		return fmt.Errorf("cassette version %d, this build reads versions 1 to %d", h.Cassette, Version)
	}
	return nil
}

func readFrame(line []byte, last int64, version int) (Frame, error) {
	var f Frame
	if !scanFrame(line, &f) {
		// What the scanner is unsure of, encoding/json reads, or names
		// what is wrong.
		f = Frame{}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return f, fmt.Errorf("not a message line: %v", err)
		}
	}
	switch {
	case f.Dir != ClientToServer && f.Dir != ServerToClient:
		return f, fmt.Errorf("dir is %q, want %q or %q", f.Dir, ClientToServer, ServerToClient)
	case f.Ms < last:
		return f, fmt.Errorf("ms %d goes back in time (the line before: %d)", f.Ms, last)
	case f.Session < 0 || (f.Session > 0 && version < 2):
		return f, fmt.Errorf("session %d: a version %d cassette has none, version 2 numbers them from 1", f.Session, version)
	case !isMessage(f.Msg):
		return f, errors.New("msg is not a JSON-RPC 2.0 message")
	}
	return f, nil
}

// scanFrame reads a message line in one pass, a long message's bytes not
// copied; false when it is unsure (see package jsonscan).
func scanFrame(line []byte, f *Frame) bool {
	return jsonscan.Object(line, func(key []byte, escaped bool, value []byte) bool {
		var err error
		switch string(key) {
		case "dir":
			var ok bool
			f.Dir, ok = jsonscan.String(value)
			return ok && !escaped
		case "ms":
			f.Ms, err = strconv.ParseInt(string(value), 10, 64)
		case "session":
			f.Session, err = strconv.Atoi(string(value))
		case "msg":
			f.Msg = value
		default:
			return false
		}
		return err == nil && !escaped
	})
}

// isMessage reports whether msg is a JSON-RPC 2.0 request, notification or
// response.
func isMessage(msg json.RawMessage) bool {
	var jsonrpc, method, id, result, errObj []byte
	fast := jsonscan.Object(msg, func(key []byte, escaped bool, value []byte) bool {
		switch string(key) {
		case "jsonrpc":
			jsonrpc = value
		case "method":
			method = value
		case "id":
			id = value
		case "result":
			result = value
		case "error":
			errObj = value
		default:
			return !escaped && !jsonscan.Folds(key, "jsonrpc", "method", "id", "result", "error")
		}
		return !escaped
	})
	if fast && string(jsonrpc) == `"2.0"` && (method == nil || method[0] == '"') {
		m, _ := jsonscan.String(method)
		return m != "" || (id != nil && (result != nil || errObj != nil))
	}
	return isMessageSlow(msg)
}

func isMessageSlow(msg json.RawMessage) bool {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  string          `json:"method"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(msg, &m) != nil || m.JSONRPC != "2.0" {
		return false
	}
	return m.Method != "" || (len(m.ID) > 0 && (len(m.Result) > 0 || len(m.Error) > 0))
}
