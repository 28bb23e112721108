//go:build unix

package transport_test

import (
	"context"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// The stdio fault cells: real child processes misbehaving. Each test is
// bounded by the 30s receive helpers, so a hang fails instead of blocking.

func TestStdioExitWhileGrandchildHoldsStdout(t *testing.T) {
	cmd := stdioServer(t, "orphan")
	var stderr syncBuffer
	tr := startStdio(t, cmd, transport.WithStderr(&stderr), transport.WithGracePeriod(time.Second))
	m := stderr.waitMatch(t, regexp.MustCompile(`grandchild pid (\d+) holds stdout\n`))
	grandchild, _ := strconv.Atoi(m[1])
	send(t, tr, request(t, 1, "tools/list", nil))

	start := time.Now()
	err := receiveErr(t, tr)
	t.Logf("observed after %v: %v", time.Since(start), err)
	var pe *transport.ProcessError
	require.ErrorAs(t, err, &pe, "the exit ends the stream though a grandchild keeps stdout open")
	assert.ErrorIs(t, err, transport.ErrProcessExited)
	require.NotNil(t, pe.State)
	assert.Equal(t, 4, pe.State.ExitCode())
	assert.Contains(t, err.Error(), "exit status 4")
	assert.Contains(t, err.Error(), "still held open by another process")
	assert.Contains(t, err.Error(), "out of cheese", "the error quotes stderr")

	pid := tr.Process().Pid
	require.NoError(t, tr.Close())
	assertReaped(t, pid)
	waitFor(t, func() bool { return gone(grandchild) })
}

func TestClientCallEndsWhenServerExitsLeavingGrandchild(t *testing.T) {
	tr, err := transport.Command(stdioServer(t, "orphan"), transport.WithGracePeriod(time.Second))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err = client.Connect(ctx, tr, nil) // the server reads the first request and exits
	require.Error(t, err)
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "the call ended at the exit, not at its deadline")
	assert.ErrorIs(t, err, transport.ErrProcessExited)
	assert.Contains(t, err.Error(), "exit status 4")
	assert.NotContains(t, err.Error(), "transport: transport:")
	t.Logf("client.Connect: %v", err)
}

func TestStdioBrokenPipeIsProcessExit(t *testing.T) {
	cmd := stdioServer(t, "nostdin")
	var stderr syncBuffer
	tr := startStdio(t, cmd, transport.WithStderr(&stderr))
	stderr.waitMatch(t, regexp.MustCompile("closed stdin"))

	b, err := jsonrpc.Encode(request(t, 1, "ping", nil))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	err = tr.Send(ctx, b)
	t.Logf("Send: %v", err)
	var pe *transport.ProcessError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, transport.ErrProcessExited, "a broken pipe on stdin is the process ending")
	require.NotNil(t, pe.State)
	assert.Equal(t, 3, pe.State.ExitCode())
	assert.NotContains(t, err.Error(), "broken pipe")
	assert.ErrorIs(t, receiveErr(t, tr), transport.ErrProcessExited, "Send and Receive tell one story")
}

func TestStdioExitAtStartIsOneError(t *testing.T) {
	// Whichever the transport notices first, the failed write or the exit,
	// the error is the same.
	for i := range 5 {
		tr := startStdio(t, stdioServer(t, "exit"))
		b, err := jsonrpc.Encode(request(t, int64(i), "initialize", initializeParams("2025-11-25")))
		require.NoError(t, err)
		for err == nil {
			err = tr.Send(t.Context(), b)
		}
		assert.ErrorIs(t, err, transport.ErrProcessExited, "attempt %d: %v", i, err)
		assert.Contains(t, err.Error(), "exit status 3")
		require.NoError(t, tr.Close())
	}
}

func TestStdioHugeLineIsRefusedInBoundedMemoryAndDrained(t *testing.T) {
	// The server writes a 100 MB line, then exits cleanly when its stdin
	// closes: it can only get there if the transport keeps reading stdout
	// after refusing the line.
	cmd := stdioServer(t, "flood")
	tr := startStdio(t, cmd, transport.WithMaxLineSize(1<<20), transport.WithGracePeriod(20*time.Second))
	send(t, tr, request(t, 1, "initialize", initializeParams("2025-11-25")))

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := receiveErr(t, tr)
	runtime.ReadMemStats(&after)
	assert.ErrorIs(t, err, transport.ErrLineTooLong)
	assert.Contains(t, err.Error(), "more than 1048576 bytes")
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d KiB while refusing the line", allocated>>10)
	assert.Less(t, allocated, uint64(16<<20), "memory is bounded by the line limit, not the line")

	require.NoError(t, tr.Close())
	require.NotNil(t, cmd.ProcessState)
	assert.True(t, cmd.ProcessState.Success(),
		"the server finished its line and exited by itself when stdin closed, got %s", cmd.ProcessState)
}

func TestStdioGarbageThenCleanExit(t *testing.T) {
	cmd := stdioServer(t, "garbage")
	tr := startStdio(t, cmd, transport.WithGracePeriod(20*time.Second))
	send(t, tr, request(t, 1, "initialize", initializeParams("2025-11-25")))
	err := receiveErr(t, tr)
	assert.ErrorIs(t, err, transport.ErrInvalidOutput)
	assert.True(t, strings.HasPrefix(err.Error(), `stdio server "stdioserver": `), "one prefix: %v", err)
	require.NoError(t, tr.Close())
	assert.True(t, cmd.ProcessState.Success(), "got %s", cmd.ProcessState)
}
