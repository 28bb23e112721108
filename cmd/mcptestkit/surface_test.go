package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/surface"
)

// Reports of two packages and of a check run merge; the listing names what
// the tests never exercised, and --require turns that into exit status 1.
func TestSurfaceMergesReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tool := func(calls map[string]int) map[string]*surface.Tool {
		return map[string]*surface.Tool{
			"get_author":      {Declared: true, Calls: calls, Outcomes: map[string]map[string]int{surface.Tests: {"success": 1}}},
			"books_by_author": {Declared: true},
		}
	}
	write := func(name string, r *surface.Report) string {
		p := filepath.Join(dir, name)
		require.NoError(t, r.WriteFile(p))
		return p
	}
	a := write("a.json", &surface.Report{Servers: map[string]*surface.Server{"Bookshop": {Tools: tool(map[string]int{surface.Tests: 1})}}})
	b := write("b.json", &surface.Report{Servers: map[string]*surface.Server{"Bookshop": {Tools: tool(map[string]int{surface.Tests: 2})}}})
	c := write("check.json", &surface.Report{Servers: map[string]*surface.Server{"Bookshop": {Tools: map[string]*surface.Tool{
		"books_by_author": {Declared: true, Calls: map[string]int{surface.Check: 5}}}}}})

	r := mcptestkit(t, nil, "surface", a, b, c)
	require.Equal(t, exitOK, r.code, "%s", r.stderr)
	assert.Contains(t, r.stdout, "mcp surface of Bookshop (tests): tools 1/2")
	assert.Contains(t, r.stdout, "never exercised:\n\ttool books_by_author\n")

	merged := filepath.Join(dir, "merged.json")
	r = mcptestkit(t, nil, "surface", "--require", "-o", merged, a, b, c)
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.stderr, "1 declared item(s) never exercised")
	m, err := surface.Load(merged)
	require.NoError(t, err)
	assert.Equal(t, 3, m.Servers["Bookshop"].Tools["get_author"].Calls[surface.Tests])

	r = mcptestkit(t, nil, "surface", "--require", "--exempt", "books_by_author", a, b)
	assert.Equal(t, exitOK, r.code, "%s", r.stderr)
	r = mcptestkit(t, nil, "surface", "--require", "--source", "check", a, b, c)
	assert.Equal(t, exitFail, r.code, "get_author was never called by the checks: %s", r.stdout)

	r = mcptestkit(t, nil, "surface", filepath.Join(dir, "none.json"))
	assert.Equal(t, exitUsage, r.code)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{"), 0o644))
	r = mcptestkit(t, nil, "surface", filepath.Join(dir, "bad.json"))
	assert.Contains(t, r.stderr, "bad.json: not a surface report")
}

// mcptestkit check with MCPTEST_SURFACE set writes its calls as the checks'.
func TestCheckWritesSurface(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "check.json")
	r := mcptestkit(t, []string{"MCPTEST_SURFACE=" + p}, "check")
	require.Equal(t, exitOK, r.code, "%s", r.stderr)
	rep, err := surface.Load(p)
	require.NoError(t, err)
	s := rep.Servers["Bookshop"]
	require.NotNil(t, s, "%v", rep.Servers)
	assert.Positive(t, s.Tools["get_author"].Calls[surface.Check])
	assert.Zero(t, s.Tools["get_author"].Calls[surface.Tests])
}

// A report with a null entry or a negative count is refused, saying where,
// rather than crashing or counting it; a name with a newline is quoted, so
// that it cannot forge a line of the listing.
func TestSurfaceRefusesBrokenReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for doc, want := range map[string]string{
		`{"servers":{"s":null}}`:                                   "servers.s is null",
		`{"servers":{"s":{"tools":{"t":null}}}}`:                   "servers.s.tools.t is null",
		`{"servers":{"s":{"tools":{"t":{"calls":{"tests":-3}}}}}}`: "servers.s.tools.t.calls.tests is -3",
	} {
		p := filepath.Join(dir, "r.json")
		require.NoError(t, os.WriteFile(p, []byte(doc), 0o644))
		r := mcptestkit(t, nil, "surface", p)
		assert.Equal(t, exitUsage, r.code, "%s: %s", doc, r.stderr)
		assert.Contains(t, r.stderr, want)
	}
	p := filepath.Join(dir, "nl.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"servers":{"s":{"tools":{"a\n\ttool forged":{"declared":true}}}}}`), 0o644))
	r := mcptestkit(t, nil, "surface", p)
	require.Equal(t, exitOK, r.code, "%s", r.stderr)
	assert.NotContains(t, r.stdout, "\n\ttool forged\n", "a forged line")
}
