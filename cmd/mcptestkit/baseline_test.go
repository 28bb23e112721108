package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// The baseline is keyed by rule and subject, sorted, one finding a line;
// a warning in it does not cover the check failing; an entry whose check
// passes now is reported as gone.
func TestBaselineJudge(t *testing.T) {
	calls := servercheck.Rule{ID: "tools/calls/<tool>", Level: servercheck.Fail}
	names := servercheck.Rule{ID: "tools/names", Level: servercheck.Warn}
	rep := &report{}
	rep.add(servercheck.Result{Name: "tools/names", Status: servercheck.Warn, Detail: "message one", Rule: names})
	rep.add(servercheck.Result{Name: "tools/calls/zeta", Status: servercheck.Fail, Rule: calls})
	rep.add(servercheck.Result{Name: "tools/calls/alpha", Status: servercheck.Warn, Rule: calls})
	file := filepath.Join(t.TempDir(), "baseline.json")
	require.NoError(t, baselineOf(rep).write(file))
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, `{
  "version": 1,
  "findings": [
    {"check":"tools/calls/<tool>","subject":"alpha","status":"warn"},
    {"check":"tools/calls/<tool>","subject":"zeta","status":"fail"},
    {"check":"tools/names","status":"warn"}
  ]
}
`, string(data))
	base, err := readBaseline(file)
	require.NoError(t, err)

	// The same findings, in other words: nothing new.
	again := &report{Strict: true}
	again.add(servercheck.Result{Name: "tools/names", Status: servercheck.Warn, Detail: "message two", Rule: names})
	again.add(servercheck.Result{Name: "tools/calls/zeta", Status: servercheck.Fail, Rule: calls})
	again.add(servercheck.Result{Name: "tools/calls/alpha", Status: servercheck.Fail, Rule: calls}) // was a warning
	again.add(servercheck.Result{Name: "tools/calls/beta", Status: servercheck.Fail, Rule: calls})  // new
	regressions, gone := base.judge(again)
	assert.Equal(t, []string{"tools/calls/alpha", "tools/calls/beta"}, regressions)
	assert.Empty(t, gone)

	fixed := &report{}
	fixed.add(servercheck.Result{Name: "tools/calls/zeta", Status: servercheck.Pass, Rule: calls})
	regressions, gone = base.judge(fixed)
	assert.Empty(t, regressions)
	require.Len(t, gone, 1, "tools/names and alpha did not run: not gone")
	assert.Equal(t, "tools/calls/zeta", gone[0].String())

	_, err = readBaseline(filepath.Join(t.TempDir(), "none.json"))
	assert.ErrorContains(t, err, "write it with --update-baseline")
}

// check --update-baseline writes the findings; --baseline then passes on
// them and fails on a finding the file does not hold.
func TestCheckBaseline(t *testing.T) {
	bin := serverBinary(t)
	env := []string{"STDIOSERVER_BROKEN=1"}
	file := filepath.Join(t.TempDir(), "mcptestkit-baseline.json")
	sel := []string{"--run", "tools/(calls|descriptions)", "--fuzz-calls", "4"}

	r := mcptestkit(t, env, append(append([]string{"check", "--baseline", file, "--update-baseline"}, sel...), "--", bin)...)
	require.Equal(t, exitOK, r.code, "%s", r)
	assert.Contains(t, r.stderr, "wrote 2 finding(s) to the baseline")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(data), `{"check":"tools/calls/<tool>","subject":"explode","status":"fail"}`)

	r = mcptestkit(t, env, append(append([]string{"check", "--baseline", file, "--strict"}, sel...), "--", bin)...)
	require.Equal(t, exitOK, r.code, "%s", r)
	assert.Contains(t, r.stderr, "every failing check is in the baseline")

	require.NoError(t, os.WriteFile(file, []byte(`{"version": 1, "findings": [{"check": "tools/descriptions", "status": "warn"}]}`), 0o644))
	r = mcptestkit(t, env, append(append([]string{"check", "--baseline", file}, sel...), "--", bin)...)
	require.Equal(t, exitFail, r.code, "%s", r)
	assert.Contains(t, r.stderr, "1 finding(s) not in the baseline "+file+": tools/calls/explode\n")

	r = mcptestkit(t, nil, "check", "--update-baseline")
	assert.Equal(t, exitUsage, r.code, "%s", r)
	assert.Contains(t, r.stderr, "give --baseline FILE")
}
