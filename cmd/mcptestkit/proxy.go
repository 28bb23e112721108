package main

import (
	"bufio"
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
// each message as it passes, secrets redacted, with its time.
type recorder struct {
	red   *cassette.Redactor
	start time.Time
	queue chan queued // what passed, for the goroutine that records it
	done  chan struct{}
	qmu   sync.Mutex
	ended bool // finish was called: what passes later is not recorded

	mu     sync.Mutex
	c      cassette.Cassette
	lookup map[string]string // request id -> method, for the header
}

type queued struct {
	dir  string
	line []byte
	at   time.Duration
}

// newRecorder starts the recording: add queues each message as it passes,
// and a goroutine of its own redacts and records it, off the path of the
// messages; finish waits for it.
func newRecorder(transport string) (*recorder, error) {
	red, err := cassette.NewRedactor(nil)
	if err != nil {
		return nil, err
	}
	r := &recorder{red: red, start: time.Now(), c: cassette.Cassette{Header: cassette.Header{Transport: transport}},
		lookup: map[string]string{}, queue: make(chan queued, 4096), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for q := range r.queue {
			r.record(q.dir, q.line, q.at)
		}
	}()
	return r, nil
}

// add queues one message (a line without its newline) for recording.
func (r *recorder) add(dir string, line []byte) {
	r.qmu.Lock()
	defer r.qmu.Unlock()
	if !r.ended {
		r.queue <- queued{dir, bytes.Clone(line), time.Since(r.start)}
	}
}

// finish records what is queued and returns the cassette.
func (r *recorder) finish() cassette.Cassette {
	r.qmu.Lock()
	if !r.ended {
		r.ended = true
		close(r.queue)
	}
	r.qmu.Unlock()
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.c
}

// record records one message; what is not a JSON-RPC message (a server's
// stray output) is not recorded.
func (r *recorder) record(dir string, line []byte, at time.Duration) {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Result  struct {
			ProtocolVersion string         `json:"protocolVersion"`
			ServerInfo      *cassette.Info `json:"serverInfo"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &m) != nil || m.JSONRPC != "2.0" {
		return
	}
	msg := r.red.Message(line)
	r.mu.Lock()
	defer r.mu.Unlock()
	if dir == cassette.ClientToServer && m.Method != "" && len(m.ID) > 0 {
		r.lookup[string(m.ID)] = m.Method
	}
	if dir == cassette.ServerToClient && m.Method == "" {
		switch r.lookup[string(m.ID)] {
		case "initialize", "server/discover":
			if m.Result.ServerInfo != nil {
				r.c.Header.Server = m.Result.ServerInfo
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
// ended), and writes the cassette to out.
func proxyStdio(ctx context.Context, out string, command []string, stdin io.Reader, stdout, stderr io.Writer) (string, error) {
	rec, err := newRecorder("stdio")
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Stderr = stderr
	toServer, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	fromServer, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	// Client to server: when the client's input ends, the server's input
	// closes, which is how a stdio server learns to exit.
	go func() {
		pump(stdin, toServer, func(line []byte) { rec.add(cassette.ClientToServer, line) })
		toServer.Close()
	}()
	pump(fromServer, stdout, func(line []byte) { rec.add(cassette.ServerToClient, line) })
	waitErr := cmd.Wait()
	c := rec.finish()
	if err := c.WriteFile(out); err != nil {
		return "", err
	}
	var exit *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exit) && ctx.Err() == nil {
		return rec.red.Summary(), waitErr
	}
	return rec.red.Summary(), nil
}

// pump copies r to w a line at a time, writing each line as soon as it is
// read, and hands each to seen (without its newline).
func pump(r io.Reader, w io.Writer, seen func([]byte)) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if _, werr := w.Write(line); werr != nil {
				return
			}
			if f, ok := w.(interface{ Flush() error }); ok {
				f.Flush()
			}
			trimmed := line
			for len(trimmed) > 0 && (trimmed[len(trimmed)-1] == '\n' || trimmed[len(trimmed)-1] == '\r') {
				trimmed = trimmed[:len(trimmed)-1]
			}
			seen(trimmed)
		}
		if err != nil {
			return
		}
	}
}
