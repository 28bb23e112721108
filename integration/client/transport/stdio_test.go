//go:build unix

package transport_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// stdioServer returns a command for the test server in the given mode.
func stdioServer(t testing.TB, mode string, env ...string) *exec.Cmd {
	t.Helper()
	bin, err := stdioServerBuild()
	require.NoError(t, err)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "STDIOSERVER_MODE="+mode)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// startStdio starts cmd and closes the transport at cleanup.
func startStdio(t testing.TB, cmd *exec.Cmd, opts ...transport.CommandOption) *transport.Stdio {
	t.Helper()
	tr, err := transport.Command(cmd, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { tr.Close() })
	return tr
}

// assertReaped checks that the process with pid is gone: not running and not
// a zombie (a zombie still answers kill(pid, 0)).
func assertReaped(t testing.TB, pid int) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	err := syscall.Kill(pid, 0)
	assert.ErrorIs(t, err, syscall.ESRCH, "process %d still exists (running or an unreaped zombie)", pid)
}

// receiveErr waits for Receive to fail and returns the error.
func receiveErr(t testing.TB, c conn) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for {
		b, err := c.Receive(ctx)
		if err != nil {
			return err
		}
		t.Logf("received before the error: %s", b)
	}
}

func TestStdioLegacySession(t *testing.T) {
	cmd := stdioServer(t, "")
	var lines []string
	var mu sync.Mutex
	tr := startStdio(t, cmd, transport.WithStderrLines(func(l string) {
		mu.Lock()
		lines = append(lines, l)
		mu.Unlock()
	}))

	init := legacyHandshake(t, tr, "2025-06-18")
	assert.Equal(t, "2025-06-18", init["protocolVersion"])
	assert.Equal(t, "stdioserver", init["serverInfo"].(map[string]any)["name"])

	text := callText(t, tr, 2, map[string]any{"name": "echo", "arguments": map[string]any{"text": "héllo\nworld"}})
	assert.Contains(t, text, `héllo\nworld`)

	pid := tr.Process().Pid
	require.NoError(t, tr.Close())
	require.NotNil(t, cmd.ProcessState, "Close returned before reaping the process")
	assert.True(t, cmd.ProcessState.Success(), "the server should exit cleanly on stdin EOF: %s", cmd.ProcessState)
	assertReaped(t, pid)

	assert.Contains(t, tr.Stderr(), `stdioserver: echo "héllo\nworld"`)
	assert.Contains(t, tr.Stderr(), "stdin closed, bye")
	mu.Lock()
	assert.Contains(t, lines, `stdioserver: echo "héllo\nworld"`)
	mu.Unlock()

	_, err := tr.Receive(t.Context())
	assert.ErrorIs(t, err, client.ErrClosed)
	assert.ErrorIs(t, tr.Send(t.Context(), []byte(`{}`)), client.ErrClosed)
	assert.NoError(t, tr.Close(), "a second Close is fine")
}

func TestStdioModernDiscover(t *testing.T) {
	tr := startStdio(t, stdioServer(t, ""))
	send(t, tr, request(t, 1, "server/discover", modern(nil)))
	resp, _ := recvResponse(t, tr, jsonrpc.Int64ID(1))
	r := result(t, resp)
	assert.Equal(t, "complete", r["resultType"])
	assert.Contains(t, r["supportedVersions"], "2026-07-28")

	text := callText(t, tr, 2, modern(map[string]any{"name": "echo", "arguments": map[string]any{"text": "modern"}}))
	assert.Contains(t, text, "modern")
}

func TestStdioConcurrentSends(t *testing.T) {
	tr := startStdio(t, stdioServer(t, "echo"))
	const n = 200
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			m := request(t, int64(i), "ping", nil)
			b, err := jsonrpc.Encode(m)
			if assert.NoError(t, err) {
				assert.NoError(t, tr.Send(t.Context(), b))
			}
		})
	}
	seen := map[string]bool{}
	for range n {
		m := recv(t, tr) // the echo server sends our requests back, whole
		assert.Equal(t, "ping", m.Method)
		seen[m.ID.String()] = true
	}
	wg.Wait()
	assert.Len(t, seen, n, "every line arrived once and intact")
}

func TestStdioFraming(t *testing.T) {
	tr := startStdio(t, stdioServer(t, "echo"))

	// Pretty-printed JSON is compacted onto one line.
	pretty := []byte("{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"notifications/x\",\n  \"params\": {\"s\": \"a\\nb\"}\n}")
	require.NoError(t, tr.Send(t.Context(), pretty))
	got, err := tr.Receive(t.Context())
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/x","params":{"s":"a\nb"}}`, string(got))

	err = tr.Send(t.Context(), []byte("not json"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not valid JSON")
	assert.Contains(t, err.Error(), `"not json"`)
}

func TestStdioEarlyExit(t *testing.T) {
	cmd := stdioServer(t, "exit")
	tr := startStdio(t, cmd)

	err := receiveErr(t, tr)
	var pe *transport.ProcessError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, transport.ErrProcessExited)
	assert.Equal(t, 3, pe.State.ExitCode())
	assert.Contains(t, err.Error(), `stdio server "stdioserver"`)
	assert.Contains(t, err.Error(), "exit status 3")
	assert.Contains(t, err.Error(), "config file /nonexistent/config.toml not found", "the error quotes stderr")

	// Sending to a dead server reports the same story, not a bare EPIPE.
	err = tr.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	assert.ErrorIs(t, err, transport.ErrProcessExited)

	pid := tr.Process().Pid
	require.NoError(t, tr.Close())
	assertReaped(t, pid)
}

func TestStdioGarbageOnStdout(t *testing.T) {
	tr := startStdio(t, stdioServer(t, "garbage"))
	send(t, tr, request(t, 1, "initialize", initializeParams("2025-11-25")))

	err := receiveErr(t, tr)
	assert.ErrorIs(t, err, transport.ErrInvalidOutput)
	assert.Contains(t, err.Error(), "not JSON")
	assert.Contains(t, err.Error(), `"Server listening on stdio, press Ctrl-C to quit"`, "the error quotes the line")
	assert.Contains(t, err.Error(), "printing a banner on stdout", "and the stderr tail")

	// The connection stays failed.
	_, err2 := tr.Receive(t.Context())
	assert.ErrorIs(t, err2, transport.ErrInvalidOutput)
}

func TestStdioLineTooLong(t *testing.T) {
	tr := startStdio(t, stdioServer(t, "oversized"), transport.WithMaxLineSize(1024))
	send(t, tr, request(t, 1, "initialize", initializeParams("2025-11-25")))

	err := receiveErr(t, tr)
	assert.ErrorIs(t, err, transport.ErrLineTooLong)
	assert.Contains(t, err.Error(), "more than 1024 bytes")
	assert.Contains(t, err.Error(), "about to write a huge line")
}

func TestStdioLineAtLimit(t *testing.T) {
	// 64 KiB of padding plus the envelope, under a limit just big enough.
	tr := startStdio(t, stdioServer(t, "oversized"), transport.WithMaxLineSize(70<<10))
	send(t, tr, request(t, 1, "initialize", initializeParams("2025-11-25")))
	m := recv(t, tr)
	assert.Equal(t, "x", m.Method)
}

func TestStdioCloseEscalatesToKill(t *testing.T) {
	cmd := stdioServer(t, "stubborn")
	var stderr syncBuffer
	tr := startStdio(t, cmd, transport.WithGracePeriod(100*time.Millisecond), transport.WithStderr(&stderr))
	stderr.waitMatch(t, regexp.MustCompile("ignoring SIGTERM"))

	pid := tr.Process().Pid
	require.NoError(t, tr.Close())
	require.NotNil(t, cmd.ProcessState)
	status := cmd.ProcessState.Sys().(syscall.WaitStatus)
	assert.True(t, status.Signaled() && status.Signal() == syscall.SIGKILL,
		"a server that ignores stdin EOF and SIGTERM ends by SIGKILL, got %s", cmd.ProcessState)
	assertReaped(t, pid)
}

func TestStdioCloseStopsGrandchildren(t *testing.T) {
	var stderr syncBuffer
	tr := startStdio(t, stdioServer(t, "spawn"), transport.WithGracePeriod(200*time.Millisecond), transport.WithStderr(&stderr))
	legacyHandshake(t, tr, "2025-11-25")

	m := stderr.waitMatch(t, regexp.MustCompile(`grandchild pid (\d+)\n`))
	grandchild, _ := strconv.Atoi(m[1])

	require.NoError(t, tr.Close())
	// The grandchild was reparented to init; Close signalled it and init
	// reaps it, so poll until it is gone.
	waitFor(t, func() bool { return gone(grandchild) })
}

func TestStdioSendHonoursContext(t *testing.T) {
	// The stubborn server never reads stdin, so a message larger than the
	// pipe buffer blocks until ctx ends.
	tr := startStdio(t, stdioServer(t, "stubborn"), transport.WithGracePeriod(50*time.Millisecond))
	big := []byte(`{"jsonrpc":"2.0","method":"x","params":{"pad":"` + strings.Repeat("a", 1<<20) + `"}}`)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	err := tr.Send(ctx, big)
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	// A Send waiting for its turn behind a blocked one honours its ctx too.
	ctx2, cancel2 := context.WithCancel(t.Context())
	cancel2()
	assert.Error(t, tr.Send(ctx2, []byte(`{}`)))
}

func TestStdioReceiveHonoursContext(t *testing.T) {
	tr := startStdio(t, stdioServer(t, ""))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := tr.Receive(ctx)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestStdioStderrCapture(t *testing.T) {
	const n = 5000 // about 150 KiB: more than the kept tail, more than a pipe buffer
	var buf syncBuffer
	var lines []string
	tr := startStdio(t, stdioServer(t, "chatty", "STDIOSERVER_LINES="+strconv.Itoa(n)),
		transport.WithStderr(&buf),
		transport.WithStderrLines(func(l string) { lines = append(lines, l) }))
	legacyHandshake(t, tr, "2025-11-25")
	require.NoError(t, tr.Close()) // after Close, the stderr goroutine is done: lines is ours

	require.Equal(t, n+1, len(lines), "every stderr line reaches the callback") // + "stdin closed, bye"
	for i := range n {
		require.Equal(t, "stdioserver: log line "+strconv.Itoa(i), lines[i])
	}
	assert.Equal(t, n+1, strings.Count(buf.String(), "\n"))
	tail := tr.Stderr()
	assert.LessOrEqual(t, len(tail), 64<<10)
	assert.True(t, strings.HasSuffix(tail, "stdioserver: stdin closed, bye\n"), "the tail ends with the last line")
	assert.True(t, strings.HasSuffix(buf.String(), tail), "the tail is the end of the whole stream")
}

func TestStdioCmdStderrIsCopied(t *testing.T) {
	cmd := stdioServer(t, "exit")
	var own bytes.Buffer
	cmd.Stderr = &own
	tr := startStdio(t, cmd)
	receiveErr(t, tr)
	require.NoError(t, tr.Close())
	assert.Contains(t, own.String(), "fatal: config file")
}

func TestCommandRefusesBadCommands(t *testing.T) {
	_, err := transport.Command(nil)
	assert.ErrorContains(t, err, "cmd is nil")

	cmd := exec.Command("true")
	cmd.Stdout = new(bytes.Buffer)
	_, err = transport.Command(cmd)
	assert.ErrorContains(t, err, "must be nil")

	started := exec.Command("true")
	require.NoError(t, started.Run())
	_, err = transport.Command(started)
	assert.ErrorContains(t, err, "already started")

	_, err = transport.Command(exec.Command("/nonexistent/mcp-server", "--stdio"))
	assert.ErrorContains(t, err, `starting stdio server "mcp-server"`)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestProcessErrorWithoutStderr(t *testing.T) {
	err := &transport.ProcessError{Command: "srv", Err: transport.ErrOutputClosed, Detail: "the process is still running"}
	assert.Equal(t, `stdio server "srv": server closed its stdout: the process is still running; stderr was empty`, err.Error())
	assert.True(t, errors.Is(err, transport.ErrOutputClosed))
}

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers,
// which can wait for what is written.
type syncBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{} // closed by the next Write; nil when nobody waits
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written != nil {
		close(b.written)
		b.written = nil
	}
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitMatch waits until what was written matches re and returns the
// submatches, failing the test after 20 seconds. A server's stderr arrives
// on its own pipe and goroutine, so it can trail what the server sent on
// stdout after it.
func (b *syncBuffer) waitMatch(t testing.TB, re *regexp.Regexp) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		b.mu.Lock()
		m := re.FindStringSubmatch(b.buf.String())
		if m == nil && b.written == nil {
			b.written = make(chan struct{})
		}
		written := b.written
		b.mu.Unlock()
		if m != nil {
			return m
		}
		select {
		case <-written:
		case <-ctx.Done():
			t.Fatalf("nothing matching %s was written within 20s; got %q", re, b.String())
		}
	}
}

// waitFor polls cond until it holds, failing the test after 20 seconds.
// Polling is for state outside our process that sends no event (the
// process table); nothing here asserts on timing.
func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 20s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// gone reports whether pid no longer runs (absent, or a zombie awaiting a
// reaper that is not us).
func gone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}
