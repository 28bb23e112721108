package servercheck_test

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// buildStdioServer builds testdata/stdioserver into a temporary directory.
func buildStdioServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "stdioserver")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/stdioserver").CombinedOutput()
	require.NoError(t, err, "go build ./testdata/stdioserver: %s", out)
	return bin
}

func runStdio(t *testing.T, bin, run string) map[string]servercheck.Result {
	t.Helper()
	results := map[string]servercheck.Result{}
	err := servercheck.Run(t.Context(), servercheck.Command(exec.Command(bin), transport.WithGracePeriod(200*time.Millisecond)), &servercheck.Options{
		Run:      run,
		OnResult: func(r servercheck.Result) { results[r.Name] = r },
	})
	require.NoError(t, err)
	return results
}

// Over stdio, the transport will not send a frame that is not JSON:
// malformed-frame is skipped before it starts a process of its own, and the
// shutdown check sees one connection.
func TestMalformedFrameOverStdioStartsNoProcess(t *testing.T) {
	bin := buildStdioServer(t)
	results := runStdio(t, bin, "^(malformed-frame|shutdown)$")
	mf := results["malformed-frame"]
	assert.Equal(t, servercheck.Skip, mf.Status)
	assert.Equal(t, "the stdio transport will not send a frame that is not JSON: this check runs over in-memory connections (mcptest.CheckServer of a Server served in memory)", mf.Detail)
	sd := results["shutdown"]
	assert.Equal(t, servercheck.Pass, sd.Status, sd.Detail)
	assert.Equal(t, "the server process exited by itself on all 1 connections once its stdin closed", sd.Detail)
}

// A server that does not exit when its stdin closes is stopped with a
// signal after the grace period, every time: a warning, once.
func TestShutdownWarnsOnceForAServerIgnoringStdinClosing(t *testing.T) {
	bin := buildStdioServer(t)
	t.Setenv("STDIOSERVER_IGNORE_EOF", "1")
	results := runStdio(t, bin, "^(handshake|shutdown)$")
	sd := results["shutdown"]
	require.Equal(t, servercheck.Warn, sd.Status, sd.Detail)
	assert.Contains(t, sd.Detail, "the server process did not exit cleanly by itself after its stdin closed, on ")
	assert.Contains(t, sd.Detail, "(the first: signal: terminated)")
	assert.Contains(t, sd.Detail, "basic/lifecycle")
	for name, r := range results {
		if name != "shutdown" {
			assert.NotContains(t, r.Detail, "stdin", "%s reports the shutdown too", name)
		}
	}
}
