package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/examples/bookshop"
	"github.com/mcptestkit/mcptestkit/internal/cassette"
	"github.com/mcptestkit/mcptestkit/internal/npx"
)

// inspector is the MCP Inspector release whose command line is the "real
// client" of these tests: a client this repository did not write.
const inspector = "@modelcontextprotocol/inspector@2.12.0"

// runInspector runs the Inspector's command line with args and returns
// what it printed on stdout.
func runInspector(t *testing.T, npxPath string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute) // the first run may download it
	defer cancel()
	cmd := exec.CommandContext(ctx, npxPath, append([]string{"-y", inspector, "--cli"}, args...)...)
	cmd.Env = append(os.Environ(), "MCP_INSPECTOR_SECRET_STORE=memory")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "the Inspector %q failed; stderr:\n%s", args, stderr.String())
	return stdout.String()
}

// sameSession reports whether a fresh recording holds the same messages as
// the committed cassette at path, in the same order each way (their times,
// and how the two directions interleave, vary from run to run); with
// MCPTEST_UPDATE=1 the fresh one is committed instead.
func sameSession(t *testing.T, fresh, path string) {
	t.Helper()
	if os.Getenv("MCPTEST_UPDATE") == "1" {
		data, err := os.ReadFile(fresh)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, data, 0o644))
		return
	}
	messages := func(p string) (cassette.Header, map[string][]string) {
		c, err := cassette.ReadFile(p)
		require.NoError(t, err)
		out := map[string][]string{}
		for _, f := range c.Frames {
			var m bytes.Buffer
			require.NoError(t, json.Compact(&m, f.Msg))
			out[f.Dir] = append(out[f.Dir], m.String())
		}
		return c.Header, out
	}
	gotHead, got := messages(fresh)
	wantHead, want := messages(path)
	assert.Equal(t, wantHead, gotHead)
	assert.Equal(t, want, got, "%s is not what recording the session gives today: if that is meant, run again with MCPTEST_UPDATE=1", path)
}

// The MCP Inspector's command line, launched as its users launch it,
// records its session with the Bookshop through the stdio proxy (the
// Inspector's config names `mcptestkit record -o ... -- server` as the
// server) and through the HTTP proxy (the Inspector pointed at it, with a
// secret in its Authorization header). Each recording is the cassette the
// Bookshop example commits and replays both ways
// (examples/bookshop/testdata/inspector-*.cassette).
func TestInspectorRecordsThroughTheProxies(t *testing.T) {
	npxPath := npx.Path(t, inspector)
	bin, err := binary()
	require.NoError(t, err)
	examples := "../../examples/bookshop/testdata/"

	t.Run("stdio", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "inspector-stdio.cassette")
		config, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"bookshop": map[string]any{
			"command": bin, "args": []string{"record", "-o", path, "--", serverBinary(t)},
		}}})
		cfgPath := filepath.Join(dir, "inspector.json")
		require.NoError(t, os.WriteFile(cfgPath, config, 0o644))
		out := runInspector(t, npxPath, "--config", cfgPath, "--server", "bookshop",
			"--method", "tools/call", "--tool-name", "get_author", "--tool-arg", "title=Dune")
		assert.Contains(t, out, "Frank Herbert", "the Inspector got its answer through the proxy")
		sameSession(t, path, examples+"inspector-stdio.cassette")
	})

	t.Run("http", func(t *testing.T) {
		target := serveSDK(t, bookshop.New(slog.New(slog.DiscardHandler)), nil)
		path := filepath.Join(t.TempDir(), "inspector-http.cassette")
		cmd, proxyURL := startHTTPProxy(t, path, target.URL+"/mcp")
		out := runInspector(t, npxPath, proxyURL, "--transport", "http", "--header", "Authorization: Bearer "+headerSecret,
			"--method", "tools/call", "--tool-name", "get_author", "--tool-arg", "title=Dune")
		assert.Contains(t, out, "Frank Herbert")
		require.NoError(t, cmd.Process.Signal(os.Interrupt))
		require.NoError(t, cmd.Wait())
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.NotContains(t, string(data), headerSecret)
		sameSession(t, path, examples+"inspector-http.cassette")
	})
}
