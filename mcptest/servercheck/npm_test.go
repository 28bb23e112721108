package servercheck_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

func runNPM(t *testing.T, pkg string) map[string]servercheck.Result {
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip("npx is not on PATH (install Node.js to run " + pkg + ")")
	}
	results := map[string]servercheck.Result{}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	err = servercheck.Run(ctx, servercheck.Command(npx, []string{"-y", pkg}, transport.WithGracePeriod(2*time.Second)), &servercheck.Options{
		Timeout: 30 * time.Second,
		OnResult: func(r servercheck.Result) {
			results[r.Name] = r
			t.Logf("%s", r)
		},
	})
	t.Logf("Run: %v", err)
	return results
}

func TestServerEverything(t *testing.T) {
	runNPM(t, "@modelcontextprotocol/server-everything@2026.8.31")
}

func TestServerMemory(t *testing.T) {
	runNPM(t, "@modelcontextprotocol/server-memory@2026.8.31")
}
