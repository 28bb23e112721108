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
)

// Version is the format's version, the header's "cassette" member.
const Version = 1

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
	Dir string          `json:"dir"`
	Ms  int64           `json:"ms"`
	Msg json.RawMessage `json:"msg"`
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
	h.Cassette = Version
	if err := writeLine(bw, h); err != nil {
		return err
	}
	for _, f := range c.Frames {
		var m bytes.Buffer
		if err := json.Compact(&m, f.Msg); err != nil {
			return fmt.Errorf("cassette: a %s message is not JSON: %v", f.Dir, err)
		}
		f.Msg = m.Bytes()
		if err := writeLine(bw, f); err != nil {
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

// WriteFile writes c to path through a temporary file renamed over it.
func (c *Cassette) WriteFile(path string) error {
	var b bytes.Buffer
	if err := c.Write(&b); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
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
// back, and a JSON-RPC message. An error names the line (a *LineError).
func Read(r io.Reader) (*Cassette, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	c := &Cassette{}
	n := 0
	var last int64
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if n == 1 {
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&c.Header); err != nil {
				return nil, &LineError{n, fmt.Errorf("not a cassette header: %v", err)}
			}
			if c.Header.Cassette != Version {
				return nil, &LineError{n, fmt.Errorf("cassette version %d, this build reads version %d", c.Header.Cassette, Version)}
			}
			continue
		}
		var f Frame
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return nil, &LineError{n, fmt.Errorf("not a message line: %v", err)}
		}
		switch {
		case f.Dir != ClientToServer && f.Dir != ServerToClient:
			return nil, &LineError{n, fmt.Errorf("dir is %q, want %q or %q", f.Dir, ClientToServer, ServerToClient)}
		case f.Ms < last:
			return nil, &LineError{n, fmt.Errorf("ms %d goes back in time (the line before: %d)", f.Ms, last)}
		case !isMessage(f.Msg):
			return nil, &LineError{n, errors.New("msg is not a JSON-RPC 2.0 message")}
		}
		last = f.Ms
		c.Frames = append(c.Frames, f)
	}
	if err := sc.Err(); err != nil {
		return nil, &LineError{n + 1, err}
	}
	if n == 0 {
		return nil, &LineError{1, errors.New("empty: no cassette header")}
	}
	return c, nil
}

func isMessage(msg json.RawMessage) bool {
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
