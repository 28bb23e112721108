package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
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

	mu      sync.Mutex
	passed  []passed
	ended   bool              // finish was called: what passes later is not recorded
	aliases map[string]string // session key -> the key it is the same session as
	notes   []string          // what could not be recorded

	c      cassette.Cassette
	lookup map[string]string // session and request id -> method, for the header
}

type passed struct {
	session string // the key of its session ("" over stdio: the only one)
	dir     string
	line    []byte
	at      time.Duration
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
		lookup: map[string]string{}, aliases: map[string]string{}}, nil
}

// add keeps a copy of one message (a line without its newline) of the
// session with the key session.
func (r *recorder) add(session, dir string, line []byte) { r.keep(session, dir, bytes.Clone(line)) }

// keep keeps one message, a slice the caller gives up.
func (r *recorder) keep(session, dir string, line []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.ended { // timed under the lock: in the file, time never goes back
		r.passed = append(r.passed, passed{session, dir, line, time.Since(r.start)})
	}
}

// alias says that the session keys from and to name one session (an
// initialize's key and the session id its answer brought).
func (r *recorder) alias(from, to string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if from != to {
		r.aliases[from] = to
	}
}

// note keeps a line for the summary: something that could not be recorded.
func (r *recorder) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.notes, s) {
		r.notes = append(r.notes, s)
	}
}

// summary says what was redacted and what could not be recorded.
func (r *recorder) summary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	if s := r.red.Summary(); s != "" {
		out = append(out, s)
	}
	return strings.Join(append(out, r.notes...), "\n")
}

// finish records what passed and returns the cassette; what passes later
// is not recorded. Sessions are numbered in the order they began; a
// recording of one session numbers none.
func (r *recorder) finish() cassette.Cassette {
	r.mu.Lock()
	all := r.passed
	r.passed, r.ended = nil, true
	number := map[string]int{}
	for _, p := range all {
		k := r.resolve(p.session)
		if _, ok := number[k]; !ok {
			number[k] = len(number) + 1
		}
	}
	r.mu.Unlock()
	for _, p := range all {
		n := number[r.resolve(p.session)]
		if len(number) < 2 {
			n = 0
		}
		r.record(n, p.dir, p.line, p.at-all[0].at) // the recording begins with its first message
	}
	return r.c
}

// resolve returns the key the session key k is an alias of, through any
// chain of aliases.
func (r *recorder) resolve(k string) string {
	for range len(r.aliases) + 1 {
		to, ok := r.aliases[k]
		if !ok {
			break
		}
		k = to
	}
	return k
}

// record records one message; what is not a JSON-RPC message (a server's
// stray output) is not recorded.
func (r *recorder) record(session int, dir string, line []byte, at time.Duration) {
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
	id := strconv.Itoa(session) + " " + string(m.ID)
	if dir == cassette.ClientToServer && m.Method != "" && len(m.ID) > 0 {
		r.lookup[id] = m.Method
		if v := m.Params.Meta.ProtocolVersion; v != "" && m.Method != "server/discover" {
			r.c.Header.ProtocolVersion = v // 2026-07-28: each request names its version
		}
	}
	if dir == cassette.ServerToClient && m.Method == "" {
		switch r.lookup[id] {
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
	r.c.Frames = append(r.c.Frames, cassette.Frame{Dir: dir, Ms: at.Milliseconds(), Session: session, Msg: append(json.RawMessage(nil), msg...)})
}

// proxyStdio runs the server command with the client on stdin and stdout,
// passing every line through unchanged and at once, both ways, and
// recording it; the server's stderr goes to stderr. It ends when the
// server's output ends (it exited, or closed it after the client's input
// ended), writes the cassette to out, and returns what was redacted and the
// server's exit status, for the proxy to exit with as the server did. A
// client that goes away (its end of stdout closed) ends the recording
// there: the server's input is closed too, and the cassette written.
func proxyStdio(ctx context.Context, out string, redact *cassette.Redaction, command []string, stdin io.Reader, stdout, stderr io.Writer) (summary string, status int, err error) {
	if err := checkOutput(out); err != nil {
		return "", 0, err
	}
	rec, err := newRecorder("stdio", redact)
	if err != nil {
		return "", 0, err
	}
	// A write to a client that went away fails (EPIPE) rather than killing
	// the proxy before it writes the cassette.
	signal.Ignore(syscall.SIGPIPE)
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
		pump(stdin, toServer, func(line []byte) { rec.keep("", cassette.ClientToServer, line) })
		toServer.Close()
	}()
	if pump(fromServer, stdout, func(line []byte) { rec.keep("", cassette.ServerToClient, line) }) != nil {
		// The client is gone: so is the server's input. What it still
		// writes is read, and not recorded, until it exits.
		toServer.Close()
		_, _ = io.Copy(io.Discard, fromServer)
	}
	waitErr := cmd.Wait()
	c := rec.finish()
	if err := c.WriteFile(out); err != nil {
		return "", 0, err
	}
	var exit *exec.ExitError
	switch {
	case errors.As(waitErr, &exit):
		return rec.summary(), max(exit.ExitCode(), 1), nil // -1 (killed by a signal) is a failure too
	case waitErr != nil && ctx.Err() == nil:
		return rec.summary(), 0, waitErr
	}
	return rec.summary(), 0, nil
}

// checkOutput checks, before a recording begins, that a cassette can be
// written to path: that its directory exists and takes a new file.
func checkOutput(path string) error {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("-o %s: the directory %s does not exist", path, dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("-o %s: cannot write there: %v", path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// pump copies r to w as it comes, a read at a time, so that a long line
// streams through rather than waiting to be whole, and hands each line to
// seen (without its newline, a slice of its own) before the read that ends
// it is passed on: what the other end got is recorded, whatever it does
// next. It returns w's error, if writing failed; nil when r ended.
func pump(r io.Reader, w io.Writer, seen func([]byte)) error {
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
				return werr
			}
		}
		if err != nil {
			if len(line) > 0 {
				seen(line) // the last line, without a newline
			}
			return nil
		}
	}
}
