package servercheck_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// An mcp-go server over stdio shaped like mcp-grafana answers an unknown
// resource at 2025-11-25 with mcp-go's own -32002, that version's code: no
// failure (it failed the check before, which claimed to accept -32002).
// What remains are warnings, each citing a SHOULD: among them, mcp-go runs a
// handler on arguments its schema forbids unless the server is built with
// server.WithInputSchemaValidation(), and its plain result cannot be told
// from a refusal in prose (issue 39: a warning, not the MUST's failure).
func TestMCPGoStdioServerAtLegacyVersion(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcpgostdio")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/mcpgostdio").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	results := map[string]servercheck.Result{}
	err = servercheck.Run(t.Context(), servercheck.Command(exec.Command(bin)), &servercheck.Options{
		Version:  "2025-11-25",
		OnResult: func(r servercheck.Result) { results[r.Name] = r },
	})
	require.NoError(t, err)
	nf := results["resources/unknown-uri"]
	assert.Equal(t, servercheck.Pass, nf.Status, nf.Detail)
	for name, r := range results {
		if r.Status == servercheck.Warn {
			assert.Regexp(t, `SHOULD|convention`, r.Detail, "%s warns without citing the rule", name)
		}
	}
	inv := results["tools/invalid-arguments/search_dashboards"]
	assert.Equal(t, servercheck.Warn, inv.Status, "mcp-go validates inputs only with server.WithInputSchemaValidation()")
	assert.Contains(t, inv.Detail, "mcp-go validates only with server.WithInputSchemaValidation()")
}
