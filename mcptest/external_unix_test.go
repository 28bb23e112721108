//go:build unix

package mcptest

import (
	"os/exec"
	"testing"
	"time"

	"github.com/mcptestkit/mcptestkit/client"

	"github.com/mcptestkit/mcptestkit/client/transport"
)

// These tests rely on Unix processes: a shell, and exit by signal.

// A server that never completes the handshake (here: a process that reads
// and never writes) fails Connect within the timeout, naming the method.
func TestCommandSilentServer(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	f := runFake(t, func(tb testing.TB) {
		Connect(tb, Command(exec.Command(sh, "-c", "echo 'silent: reading stdin' >&2; cat >/dev/null")), WithClient(client.Options{Timeout: 300 * time.Millisecond}))
	})
	f.expectFailure(t,
		"mcptest.Connect: the server did not complete the handshake within 300ms",
		"no response to server/discover",
		"silent: reading stdin",
	)
}

func TestCommandMustExitWhenStdinCloses(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, Command(cmdServer(tb, "linger"), transport.WithGracePeriod(100*time.Millisecond)))
		echoes(tb, c, "x")
	})
	f.expectFailure(t,
		"the server process cmdserver did not exit by itself after its stdin closed and was stopped with a signal (signal: killed)",
		"A stdio server must exit when its stdin closes",
		"mcptest.WithoutExitCheck()",
		"cmdserver: stdin closed", // the stderr tail
	)
}
