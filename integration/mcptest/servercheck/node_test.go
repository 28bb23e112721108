package servercheck_test

import (
	"net"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/npx"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// Issue 31: each kind of defect the checks missed, planted one at a time in
// a hand-written Node server over HTTP (testdata/nodehttp, no SDK, no
// dependency): the correct server passes every check, and each defect is
// caught by the check that owns its rule, at the rule's level.
func TestNodeServerDefects(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv(npx.Env) == "1" {
			t.Fatalf("node not found (%s=1: required): %v", npx.Env, err)
		}
		t.Skipf("node not found: %v; set %s=1 to make this a failure", err, npx.Env)
	}
	for _, tc := range []struct {
		defect string
		check  string
		status servercheck.Status
	}{
		{"", "", servercheck.Pass},
		{"session-unknown-served", "http/sessions", servercheck.Fail},
		{"protocol-version-accepted", "http/protocol-version", servercheck.Fail},
		{"notification-answered", "http/notifications", servercheck.Fail},
		{"version-echoed", "version-negotiation", servercheck.Fail},
		{"discover-failing", "version-negotiation", servercheck.Fail},
		{"subscribe-unimplemented", "capabilities", servercheck.Fail},
		{"cancel-ignored", "tools/cancellation", servercheck.Warn},
		{"not-found-bare", "resources/unknown-uri", servercheck.Warn},
	} {
		name := tc.defect
		if name == "" {
			name = "correct"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			u := startNode(t, node, tc.defect)
			results := map[string]servercheck.Result{}
			_ = servercheck.Run(t.Context(), url(u), &servercheck.Options{Calls: 4,
				OnResult: func(r servercheck.Result) { results[r.Name] = r }})
			for n, r := range results {
				if n == tc.check {
					assert.Equal(t, tc.status, r.Status, "%s", r)
					continue
				}
				if n == "http/delete" && tc.defect == "session-unknown-served" {
					continue // a request with the ended session's id is served too
				}
				assert.Contains(t, []servercheck.Status{servercheck.Pass, servercheck.Skip}, r.Status, "%s", r)
			}
			if tc.check != "" {
				require.Contains(t, results, tc.check)
			}
		})
	}
}

// startNode runs testdata/nodehttp with the defect on a free port of
// 127.0.0.1 until the test ends and returns its URL.
func startNode(t *testing.T, node, defect string) string {
	t.Helper()
	_, port, _ := net.SplitHostPort(freeAddr(t))
	cmd := exec.Command(node, "testdata/nodehttp/server.mjs", port)
	cmd.Env = append(os.Environ(), "DEFECT="+defect)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	waitListening(t, net.JoinHostPort("127.0.0.1", port))
	return "http://127.0.0.1:" + port + "/"
}
