package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// Defaults for [Command].
const (
	// DefaultMaxLineSize is the longest line [Stdio] accepts from the server's
	// stdout (16 MiB, the same cap the official Go SDK uses).
	DefaultMaxLineSize = 16 << 20
	// DefaultGracePeriod is how long Close waits after closing the server's
	// stdin before it sends SIGTERM, and again before SIGKILL.
	DefaultGracePeriod = 5 * time.Second
	// stderrTailSize is how much of the server's stderr Stdio keeps for
	// [Stdio.Stderr] and for error messages.
	stderrTailSize = 64 << 10
	// stderrInError is how much of the kept stderr an error message quotes.
	stderrInError = 2 << 10
	// maxStderrLine caps one line handed to a WithStderrLines callback, so a
	// server that never writes a newline cannot make us buffer without end.
	maxStderrLine = 64 << 10
	// stderrSettle is how long an error about the server's stdout waits for
	// stderr written at the same time to arrive.
	stderrSettle = 100 * time.Millisecond
	// stdoutSettle is how long the server's stdout may stay empty after the
	// process exited before it counts as ended: a process it started may
	// still hold the pipe open, and then EOF never comes.
	stdoutSettle = 100 * time.Millisecond
	// queueSize bounds the messages read ahead of Receive.
	queueSize = 64
)

// Errors wrapped by the [ProcessError] a [Stdio] reports.
var (
	// ErrProcessExited means the server process ended while the connection
	// was in use.
	ErrProcessExited = errors.New("server process exited")
	// ErrOutputClosed means the server closed its stdout but kept running.
	ErrOutputClosed = errors.New("server closed its stdout")
	// ErrInvalidOutput means the server wrote a line on stdout that is not
	// JSON (the stdio transport allows nothing but messages there).
	ErrInvalidOutput = errors.New("server wrote a line that is not JSON on stdout")
	// ErrLineTooLong means the server wrote a line longer than the limit set
	// with [WithMaxLineSize].
	ErrLineTooLong = errors.New("server wrote a line longer than the limit on stdout")
)

// errClosed is what every call on a transport returns after its Close. It
// matches client.ErrClosed, whose value package jsonrpc holds so that this
// package need not import the client.
var errClosed error = closedError{}

type closedError struct{}

func (closedError) Error() string { return "transport: closed" }

func (closedError) Unwrap() error { return jsonrpc.ErrClosed }

// ProcessError reports why a stdio connection to a server process broke. It
// names the command, what happened, the exit status when the process has
// ended, and the tail of what the process wrote on stderr, which is usually
// where a crashing server explains itself.
type ProcessError struct {
	// Command is the server's command name (the base name of its path).
	Command string
	// Err is one of ErrProcessExited, ErrOutputClosed, ErrInvalidOutput,
	// ErrLineTooLong, or an I/O error.
	Err error
	// Detail adds what only this occurrence knows, e.g. the offending line.
	Detail string
	// State is the exit state when the process has ended, else nil.
	State *os.ProcessState
	// Stderr is the tail of the server's stderr (at most 2 KiB, whole lines).
	Stderr string
}

// Error implements the error interface.
func (e *ProcessError) Error() string {
	var b bytes.Buffer
	// No "transport:" prefix: the client already says where the error came from.
	fmt.Fprintf(&b, "stdio server %q: %v", e.Command, e.Err)
	if e.Detail != "" {
		fmt.Fprintf(&b, ": %s", e.Detail)
	}
	if e.State != nil {
		fmt.Fprintf(&b, " (%s)", e.State)
	}
	if e.Stderr != "" {
		fmt.Fprintf(&b, "; stderr ends with:\n%s", e.Stderr)
	} else {
		b.WriteString("; stderr was empty")
	}
	return b.String()
}

// Unwrap returns Err, so errors.Is(err, ErrProcessExited) works.
func (e *ProcessError) Unwrap() error { return e.Err }

// CommandOption configures [Command].
type CommandOption func(*stdioConfig)

type stdioConfig struct {
	stderr  io.Writer
	lines   func(string)
	maxLine int
	grace   time.Duration
}

// WithStderr copies everything the server writes on stderr to w, as it
// arrives. Writes come from one goroutine; w need not be safe for concurrent
// use by others unless the caller shares it.
func WithStderr(w io.Writer) CommandOption {
	return func(c *stdioConfig) { c.stderr = w }
}

// WithStderrLines calls fn with each line the server writes on stderr, in
// order, without the line ending. A line longer than 64 KiB is handed over
// in pieces. fn runs on the transport's stderr goroutine: it must not block
// for long, because a server blocked on a full stderr pipe stops answering.
func WithStderrLines(fn func(line string)) CommandOption {
	return func(c *stdioConfig) { c.lines = fn }
}

// WithMaxLineSize sets the longest line accepted from the server's stdout; a
// longer one ends the connection with [ErrLineTooLong]. The default is
// [DefaultMaxLineSize]; n <= 0 keeps the default.
func WithMaxLineSize(n int) CommandOption {
	return func(c *stdioConfig) {
		if n > 0 {
			c.maxLine = n
		}
	}
}

// WithGracePeriod sets how long Close waits for the server to exit after
// closing its stdin before it sends SIGTERM, and again before SIGKILL. The
// default is [DefaultGracePeriod]; d <= 0 keeps the default.
func WithGracePeriod(d time.Duration) CommandOption {
	return func(c *stdioConfig) {
		if d > 0 {
			c.grace = d
		}
	}
}

// Stdio runs an MCP server as a subprocess and speaks newline-delimited JSON
// on its stdin and stdout: one message per line in each direction. It
// satisfies the client package's Transport interface.
//
// The server's stderr is kept (see [Stdio.Stderr]) and can be copied out as
// it arrives with [WithStderr] or [WithStderrLines]; it is never treated as
// an error signal. If the server exits, closes its stdout, writes a line that
// is not JSON, or writes a line over the limit, Receive returns a
// [*ProcessError] saying which, with the tail of stderr, once the messages
// read before it have been received.
type Stdio struct {
	cmd     *exec.Cmd
	name    string
	stdin   *os.File // our write end of the server's stdin
	stdout  *os.File // our read end of the server's stdout
	stderr  *os.File // our read end of the server's stderr
	cfg     stdioConfig
	group   bool // the server leads its own process group (we set it)
	writeMu chan struct{}

	incoming chan []byte
	failed   chan struct{} // closed once err is set by the reader
	closing  chan struct{} // closed by Close
	exited   chan struct{} // closed once cmd.Wait returned
	stderrOK chan struct{} // closed once the stderr reader is done

	errOnce sync.Once
	err     error // why the stdout reader stopped; set before failed closes

	tailMu sync.Mutex
	tail   []byte // the last stderrTailSize bytes of stderr

	wg        sync.WaitGroup
	closeOnce sync.Once
}

// Command starts cmd as an MCP server and returns the transport that talks to
// it. cmd must not have been started and must leave Stdin and Stdout nil: the
// transport owns those pipes. If cmd.Stderr is set it receives a copy of the
// server's stderr, like [WithStderr]. Set cmd.Env and cmd.Dir as usual.
//
// On Unix, when cmd.SysProcAttr is nil the server is started in its own
// process group, so that Close can stop any helper processes it spawned (an
// npx launcher and its node child, for example) along with it.
//
// The process runs until Close, which closes its stdin, waits the grace
// period, sends SIGTERM, waits again, sends SIGKILL, and reaps it.
func Command(cmd *exec.Cmd, opts ...CommandOption) (*Stdio, error) {
	if cmd == nil {
		return nil, errors.New("transport: Command: cmd is nil")
	}
	if cmd.Process != nil {
		return nil, errors.New("transport: Command: cmd was already started")
	}
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return nil, errors.New("transport: Command: cmd.Stdin and cmd.Stdout must be nil (the transport owns them)")
	}
	cfg := stdioConfig{maxLine: DefaultMaxLineSize, grace: DefaultGracePeriod}
	for _, o := range opts {
		o(&cfg)
	}
	if cmd.Stderr != nil {
		if cfg.stderr == nil {
			cfg.stderr = cmd.Stderr
		} else {
			cfg.stderr = io.MultiWriter(cmd.Stderr, cfg.stderr)
		}
	}
	name := filepath.Base(cmd.Path)
	if len(cmd.Args) > 0 {
		name = filepath.Base(cmd.Args[0])
	}

	// Plain os.Pipe files, handed to the child as *os.File, so exec starts no
	// copying goroutines of its own and Wait does not touch our ends: we
	// decide when they close.
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("transport: Command %q: %w", name, err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("transport: Command %q: %w", name, err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("transport: Command %q: %w", name, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	group := setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		closeAll()
		cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
		return nil, fmt.Errorf("transport: starting stdio server %q: %w", name, err)
	}
	// The child has its copies; ours of the child's ends must go, or we would
	// never see EOF on stdout and the child never on stdin.
	inR.Close()
	outW.Close()
	errW.Close()

	s := &Stdio{
		cmd:      cmd,
		name:     name,
		stdin:    inW,
		stdout:   outR,
		stderr:   errR,
		cfg:      cfg,
		group:    group,
		writeMu:  make(chan struct{}, 1),
		incoming: make(chan []byte, queueSize),
		failed:   make(chan struct{}),
		closing:  make(chan struct{}),
		exited:   make(chan struct{}),
		stderrOK: make(chan struct{}),
	}
	s.wg.Add(3)
	go s.wait()
	go s.readStderr()
	go s.readStdout()
	return s, nil
}

// Stderr returns the tail of what the server has written on stderr so far
// (up to the last 64 KiB).
func (s *Stdio) Stderr() string {
	s.tailMu.Lock()
	defer s.tailMu.Unlock()
	return string(s.tail)
}

// Process returns the server's process, for its pid. Do not wait for it or
// signal it; Close does both.
func (s *Stdio) Process() *os.Process { return s.cmd.Process }

// Send writes msg and a newline to the server's stdin. A message that spans
// several lines (pretty-printed JSON) is compacted first; anything that is
// not JSON is refused. If ctx ends before the whole line is written, Send
// returns ctx's error; if part of the line had gone out, the stream can no
// longer be framed and the connection fails.
func (s *Stdio) Send(ctx context.Context, msg []byte) error {
	select {
	case <-s.closing:
		return errClosed
	case <-s.failed:
		return s.err
	default:
	}
	if !json.Valid(msg) {
		return fmt.Errorf("transport: Send: message is not valid JSON: %s", excerpt(msg, 200))
	}
	if bytes.ContainsAny(msg, "\r\n") {
		var buf bytes.Buffer
		_ = json.Compact(&buf, msg) // msg is valid JSON, so this cannot fail
		msg = buf.Bytes()
	}
	line := append(msg, '\n') // Send owns msg
	if err := ctx.Err(); err != nil {
		return err // an ended ctx wins over a free writer
	}
	select {
	case s.writeMu <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.closing:
		return errClosed
	}
	defer func() { <-s.writeMu }()

	// A pipe write blocks while the server is not reading; a deadline in the
	// past is how a blocked write learns that ctx ended.
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = s.stdin.SetWriteDeadline(time.Unix(1, 0))
		close(fired)
	})
	n, err := s.stdin.Write(line)
	if !stop() {
		<-fired
		_ = s.stdin.SetWriteDeadline(time.Time{})
	}
	if err == nil {
		return nil
	}
	select {
	case <-s.closing:
		return errClosed
	default:
	}
	if errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil {
		if n > 0 {
			s.fail(s.processError(fmt.Errorf("send interrupted after %d of %d bytes; the stream cannot be framed any more: %w", n, len(line), ctx.Err()), ""))
			return s.err
		}
		return ctx.Err()
	}
	return s.stdinBroken(ctx, err)
}

// stdinBroken explains a failed write to the server's stdin. A broken pipe
// means nobody holds the read end any more, which almost always means the
// process ended: wait (bounded by ctx and the grace period) for the exit and
// for the reader's verdict, so that Send reports what Receive does, the
// exit status and stderr included, instead of a bare EPIPE.
func (s *Stdio) stdinBroken(ctx context.Context, werr error) error {
	t := time.NewTimer(s.cfg.grace)
	defer t.Stop()
	select {
	case <-s.exited:
	case <-s.failed:
		return s.err
	case <-s.closing:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return s.processError(fmt.Errorf("writing to its stdin: %w", werr), "the process stopped reading its stdin but is still running")
	}
	// The reader reports within stdoutSettle of the exit, unless the queue
	// ahead of Receive is full; then say it here.
	settle := time.NewTimer(stdoutSettle + stderrSettle)
	defer settle.Stop()
	select {
	case <-s.failed:
		return s.err
	case <-s.closing:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	case <-settle.C:
		return s.processError(ErrProcessExited, "")
	}
}

// Receive returns the next message the server wrote on stdout.
func (s *Stdio) Receive(ctx context.Context) ([]byte, error) {
	select {
	case <-s.closing:
		return nil, errClosed
	default:
	}
	select {
	case m := <-s.incoming:
		return m, nil
	case <-s.failed:
		select { // messages read before the failure come first
		case m := <-s.incoming:
			return m, nil
		default:
			return nil, s.err
		}
	case <-s.closing:
		return nil, errClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close ends the connection: it closes the server's stdin, waits up to the
// grace period for the process to exit, then sends SIGTERM, waits again,
// then SIGKILL, and reaps the process. It returns when the process and every
// goroutine of the transport are gone. The exit state is then in the
// *exec.Cmd's ProcessState. Close is safe to call more than once.
func (s *Stdio) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.stdin.Close() // EOF for a well-behaved server; unblocks a pending write
		if !s.waitExit(s.cfg.grace) {
			terminate(s.cmd, s.group)
			if !s.waitExit(s.cfg.grace) {
				kill(s.cmd, s.group)
				<-s.exited
			}
		}
		stopGroup(s.cmd, s.group, s.cfg.grace)
		// Let the stderr reader drain what the server wrote before it
		// exited. Should something still hold the write end, closing our
		// read ends is what ends the readers.
		t := time.NewTimer(s.cfg.grace)
		select {
		case <-s.stderrOK:
		case <-t.C:
		}
		t.Stop()
		s.stdout.Close()
		s.stderr.Close()
		s.wg.Wait()
	})
	return nil
}

func (s *Stdio) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.exited:
		return true
	case <-t.C:
		return false
	}
}

func (s *Stdio) wait() {
	defer s.wg.Done()
	_ = s.cmd.Wait() // the exit state stays in cmd.ProcessState
	close(s.exited)
	// Wake readers blocked on pipes that a process the server started may
	// keep open (see exitReader). Where pipes have no deadlines this
	// fails, and EOF (or Close) ends the readers as before.
	deadline := time.Now().Add(stdoutSettle)
	_ = s.stdout.SetReadDeadline(deadline)
	_ = s.stderr.SetReadDeadline(deadline)
}
