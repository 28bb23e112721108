package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/mcptestkit/mcptestkit/internal/cassette"
)

// recorder captures a session between a client and a server as a cassette:
// each message as it passes, with its time. Only a copy is kept on the
// path of the messages: parsing and redacting them waits for finish, so
// that the proxy adds as little as it can to each message's trip. (The
// secrets are in the proxy's memory until then, as they are in both ends';
// they never reach the file.)
type recorder struct {
	red   *cassette.Redactor
	start time.Time

	mu     sync.Mutex
	passed []passed
	ended  bool // finish was called: what passes later is not recorded

	c      cassette.Cassette
	lookup map[string]string // request id -> method, for the header
}

type passed struct {
	dir  string
	line []byte
	at   time.Duration
}

// newRecorder starts a recording, redacting what the defaults and extra
// say.
func newRecorder(transport string, extra *cassette.Redaction) (*recorder, error) {
	red, err := cassette.NewRedactor(extra)
	if err != nil {
		return nil, err
	}
	// The header keeps the names, never the patterns: one may be the secret.
	return &recorder{red: red, start: time.Now(), c: cassette.Cassette{Header: cassette.Header{Transport: transport, Redact: extra.Stored()}},
		lookup: map[string]string{}}, nil
}

// add keeps a copy of one message (a line without its newline).
func (r *recorder) add(dir string, line []byte) { r.keep(dir, bytes.Clone(line)) }

// keep keeps one message, a slice the caller gives up.
func (r *recorder) keep(dir string, line []byte) {
	p := passed{dir, line, time.Since(r.start)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.ended {
		r.passed = append(r.passed, p)
	}
}

// finish records what passed and returns the cassette; what passes later
// is not recorded.
func (r *recorder) finish() cassette.Cassette {
	r.mu.Lock()
	all := r.passed
	r.passed, r.ended = nil, true
	r.mu.Unlock()
	for _, p := range all {
		r.record(p.dir, p.line, p.at-all[0].at) // the session begins with its first message
	}
	return r.c
}

// record records one message; what is not a JSON-RPC message (a server's
// stray output) is not recorded.
func (r *recorder) record(dir string, line []byte, at time.Duration) {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  struct {
			Meta struct {
				ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
		Result struct {
			ProtocolVersion string         `json:"protocolVersion"`
			ServerInfo      *cassette.Info `json:"serverInfo"`
			Meta            struct {
				ServerInfo *cassette.Info `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &m) != nil || m.JSONRPC != "2.0" {
		return
	}
	msg := r.red.Message(line)
	if dir == cassette.ClientToServer && m.Method != "" && len(m.ID) > 0 {
		r.lookup[string(m.ID)] = m.Method
		if v := m.Params.Meta.ProtocolVersion; v != "" && m.Method != "server/discover" {
			r.c.Header.ProtocolVersion = v // 2026-07-28: each request names its version
		}
	}
	if dir == cassette.ServerToClient && m.Method == "" {
		switch r.lookup[string(m.ID)] {
		case "initialize", "server/discover":
			if m.Result.ServerInfo != nil {
				r.c.Header.Server = r.red.Info(m.Result.ServerInfo)
			}
			if m.Result.Meta.ServerInfo != nil {
				r.c.Header.Server = r.red.Info(m.Result.Meta.ServerInfo)
			}
			if m.Result.ProtocolVersion != "" {
				r.c.Header.ProtocolVersion = m.Result.ProtocolVersion
			}
		}
	}
	r.c.Frames = append(r.c.Frames, cassette.Frame{Dir: dir, Ms: at.Milliseconds(), Msg: append(json.RawMessage(nil), msg...)})
}

// proxyStdio runs the server command with the client on stdin and stdout,
// passing every line through unchanged and at once, both ways, and
// recording it; the server's stderr goes to stderr. It ends when the
// server's output ends (it exited, or closed it after the client's input
// ended), writes the cassette to out, and returns what was redacted and the
// server's exit status, for the proxy to exit with as the server did.
func proxyStdio(ctx context.Context, out string, redact *cassette.Redaction, command []string, stdin io.Reader, stdout, stderr io.Writer) (summary string, status int, err error) {
	rec, err := newRecorder("stdio", redact)
	if err != nil {
		return "", 0, err
	}
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Stderr = stderr
	toServer, err := cmd.StdinPipe()
	if err != nil {
		return "", 0, err
	}
	fromServer, err := cmd.StdoutPipe()
	if err != nil {
		return "", 0, err
	}
	if err := cmd.Start(); err != nil {
		return "", 0, err
	}
	// Client to server: when the client's input ends, the server's input
	// closes, which is how a stdio server learns to exit.
	go func() {
		pump(stdin, toServer, func(line []byte) { rec.keep(cassette.ClientToServer, line) })
		toServer.Close()
	}()
	pump(fromServer, stdout, func(line []byte) { rec.keep(cassette.ServerToClient, line) })
	waitErr := cmd.Wait()
	c := rec.finish()
	if err := c.WriteFile(out); err != nil {
		return "", 0, err
	}
	var exit *exec.ExitError
	switch {
	case errors.As(waitErr, &exit):
		return rec.red.Summary(), max(exit.ExitCode(), 1), nil // -1 (killed by a signal) is a failure too
	case waitErr != nil && ctx.Err() == nil:
		return rec.red.Summary(), 0, waitErr
	}
	return rec.red.Summary(), 0, nil
}

// pump copies r to w as it comes, a read at a time, so that a long line
// streams through rather than waiting to be whole, and hands each line to
// seen (without its newline, a slice of its own) before the read that ends
// it is passed on: what the other end got is recorded, whatever it does
// next.
func pump(r io.Reader, w io.Writer, seen func([]byte)) {
	buf := make([]byte, 64<<10)
	var line []byte
	for {
		n, err := r.Read(buf)
		chunk := buf[:n]
		for rest := chunk; len(rest) > 0; {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				line = append(line, rest...)
				break
			}
			line = append(line, rest[:i]...)
			seen(bytes.TrimSuffix(line, []byte("\r")))
			line, rest = nil, rest[i+1:]
		}
		if len(chunk) > 0 {
			if _, werr := w.Write(chunk); werr != nil {
				return
			}
		}
		if err != nil {
			if len(line) > 0 {
				seen(line) // the last line, without a newline
			}
			return
		}
	}
}
