// Package npx finds npx for the module's tests that run an npm MCP server
// (the reference servers of @modelcontextprotocol), and decides whether they
// can run: without npx, or with the npm registry out of reach, npx would
// fail, or hang for minutes retrying, long after the test's point is lost.
// Such a test is skipped then, saying why, unless MCPTEST_NPM=1 asks for it
// to run anyway (CI, where Node and the network are part of the job).
package npx

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Env is the environment variable that makes a missing npx or an
// unreachable registry fail the test instead of skipping it.
const Env = "MCPTEST_NPM"

// probeTimeout bounds the look at the registry.
const probeTimeout = 5 * time.Second

// Path returns the path of npx, ready to run pkg ("name@version"). It
// skips the test (or fails it, when MCPTEST_NPM=1) if npx is not on PATH or
// the registry does not answer for pkg within a few seconds.
func Path(t testing.TB, pkg string) string {
	t.Helper()
	path, err := exec.LookPath("npx")
	if err != nil {
		stop(t, "npx is not on PATH (install Node.js to run "+pkg+")")
		return ""
	}
	if why := unreachable(t.Context(), registry(), pkg); why != "" {
		stop(t, why)
		return ""
	}
	return path
}

func stop(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(Env) == "1" {
		t.Fatalf("%s (%s=1: required)", why, Env)
	}
	t.Skipf("%s; set %s=1 to make this a failure", why, Env)
}

// registry is the npm registry npx would use.
func registry() string {
	if r := os.Getenv("npm_config_registry"); r != "" {
		return strings.TrimSuffix(r, "/") + "/"
	}
	return "https://registry.npmjs.org/"
}

// unreachable asks the registry for pkg's metadata and says why npx could
// not fetch it, or "" when it could.
func unreachable(ctx context.Context, registry, pkg string) string {
	name := pkg
	if i := strings.LastIndex(pkg, "@"); i > 0 { // "@scope/name@1.2.3"
		name = pkg[:i]
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, registry+strings.Replace(name, "/", "%2f", 1), nil)
	if err != nil {
		return "the npm registry " + registry + " is not a URL: " + err.Error()
	}
	defer http.DefaultClient.CloseIdleConnections()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "the npm registry " + registry + " is out of reach (" + err.Error() + ")"
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "the npm registry " + registry + " has no " + name + " (HTTP " + resp.Status + ")"
	}
	return ""
}
