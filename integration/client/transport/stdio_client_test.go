//go:build unix

package transport_test

import (
	"context"
	"github.com/mcptestkit/mcptestkit/internal/npx"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

func TestClientOverStdio(t *testing.T) {
	for _, pin := range []string{"", "2025-11-25"} {
		t.Run("version="+pin, func(t *testing.T) {
			cmd := stdioServer(t, "")
			tr, err := transport.Command(cmd)
			require.NoError(t, err)
			c := connectClient(t, tr, &client.Options{ProtocolVersion: pin})
			if pin == "" {
				assert.True(t, c.IsModern(), "go-sdk answers server/discover on stdio")
			} else {
				assert.Equal(t, pin, c.ProtocolVersion())
			}
			assert.Equal(t, "stdioserver", c.ServerInfo().Name)
			res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": "through the client"})
			require.NoError(t, err)
			assert.Contains(t, firstText(t, res), "through the client")

			pid := tr.Process().Pid
			require.NoError(t, c.Close())
			require.NotNil(t, cmd.ProcessState, "closing the client closed the transport and reaped the server")
			assertReaped(t, pid)
		})
	}
}

func TestClientOverStdioServerDies(t *testing.T) {
	tr, err := transport.Command(stdioServer(t, "exit"))
	require.NoError(t, err)
	_, err = client.Connect(t.Context(), tr, nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, transport.ErrProcessExited, "the client passes the transport's reason on")
	assert.Contains(t, err.Error(), "config file /nonexistent/config.toml not found")
}

// TestClientOverServerEverything runs the reference TypeScript server as a
// subprocess through npx. It is skipped where npx is not on PATH or the
// npm registry is out of reach, unless MCPTEST_NPM=1 (see internal/npx).
func TestClientOverServerEverything(t *testing.T) {
	npx := npx.Path(t, "@modelcontextprotocol/server-everything@2026.8.31")
	cmd := exec.Command(npx, "-y", "@modelcontextprotocol/server-everything@2026.8.31")
	var stderr syncBuffer
	tr, err := transport.Command(cmd, transport.WithStderr(&stderr), transport.WithGracePeriod(2*time.Second))
	require.NoError(t, err)
	// The first run may download the package: give Connect time.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	c, err := client.Connect(ctx, tr, nil)
	require.NoError(t, err, "stderr:\n%s", stderr.String())
	t.Cleanup(func() { c.Close() })

	assert.False(t, c.IsModern(), "this release is a legacy server: the client fell back to initialize")
	assert.Equal(t, "mcp-servers/everything", c.ServerInfo().Name)
	names := toolNames(t, c)
	require.Contains(t, names, "echo", "tools: %v", names)
	res, err := c.CallTool(t.Context(), "echo", map[string]any{"message": "from Go"})
	require.NoError(t, err)
	assert.Contains(t, firstText(t, res), "from Go")

	pid := tr.Process().Pid
	require.NoError(t, c.Close())
	require.NotNil(t, cmd.ProcessState)
	assertReaped(t, pid)
	t.Logf("server-everything exited: %s; stderr: %q", cmd.ProcessState, strings.TrimSpace(stderr.String()))
}
