package surface

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBinaryPackage(t *testing.T) {
	assert.Equal(t, "github.com/mcptestkit/mcptestkit/mcptest/surface", binaryPackage())
}

// Two packages never share a report file in a directory.
func TestReportNamesDoNotCollide(t *testing.T) {
	names := map[string]string{}
	for _, pkg := range []string{"example.com/a_b", "example.com/a/b", "example.com/a.b", "example.com/a-b", "example.com/A/b"} {
		n := reportName(pkg)
		assert.NotContains(t, n, "/")
		assert.Empty(t, names[n], "%s and %s share %s", names[n], pkg, n)
		names[n] = pkg
	}
	assert.True(t, strings.HasPrefix(reportName("example.com/a/b"), "example.com_a_b-"))
}

func called(server, tool string, n int) *Report {
	return &Report{Servers: map[string]*Server{server: {Tools: map[string]*Tool{
		tool:     {Declared: true, Calls: map[string]int{Tests: n}},
		"unused": {Declared: true},
	}}}}
}

// Test binaries that write one report file at once each add their part;
// a binary that writes again replaces its own part.
func TestBinariesShareAReportFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "surface.json")
	var wg sync.WaitGroup
	for i, pkg := range []string{"example.com/a", "example.com/b", "example.com/c", "example.com/d"} {
		wg.Go(func() { assert.NoError(t, mergeInto(path, pkg, called("srv", "tool"+pkg[len(pkg)-1:], i+1))) })
	}
	wg.Wait()
	r, err := Load(path)
	require.NoError(t, err)
	s := r.Servers["srv"]
	for i, tool := range []string{"toola", "toolb", "toolc", "toold"} {
		assert.Equal(t, i+1, s.Tools[tool].Calls[Tests], tool)
	}
	assert.Equal(t, []string{"tool unused"}, r.Missing(Tests))

	require.NoError(t, mergeInto(path, "example.com/a", called("srv", "toola", 7)))
	r, err = Load(path)
	require.NoError(t, err)
	assert.Equal(t, 7, r.Servers["srv"].Tools["toola"].Calls[Tests], "a binary's second write replaces its first")
	assert.Equal(t, 2, r.Servers["srv"].Tools["toolb"].Calls[Tests])
	_, err = os.Stat(path + ".lock")
	assert.ErrorIs(t, err, os.ErrNotExist, "the lock is left behind")
}

// A report with a null entry or a negative count is refused, saying where.
func TestLoadRefusesBrokenReports(t *testing.T) {
	dir := t.TempDir()
	for doc, want := range map[string]string{
		`{"servers":{"s":null}}`:                                                  "servers.s is null",
		`{"servers":{"s":{"tools":{"t":null}}}}`:                                  "servers.s.tools.t is null",
		`{"servers":{"s":{"tools":{"t":{"arguments":{"a":null}}}}}}`:              "servers.s.tools.t.arguments.a is null",
		`{"servers":{"s":{"prompts":{"p":null}}}}`:                                "servers.s.prompts.p is null",
		`{"servers":{"s":{"resources":{"r":null}}}}`:                              "servers.s.resources.r is null",
		`{"servers":{"s":{"tools":{"t":{"calls":{"tests":-3}}}}}}`:                "servers.s.tools.t.calls.tests is -3: a count is never negative",
		`{"servers":{"s":{"tools":{"t":{"outcomes":{"tests":{"success":-1}}}}}}}`: "servers.s.tools.t.outcomes.tests.success is -1",
		`{"servers":{"s":{"templates":{"x":{"reads":{"tests":-1}}}}}}`:            "servers.s.templates.x.reads.tests is -1",
	} {
		p := filepath.Join(dir, "r.json")
		require.NoError(t, os.WriteFile(p, []byte(doc), 0o644))
		_, err := Load(p)
		assert.ErrorContains(t, err, want, doc)
	}
	var r Report
	r.Merge(&Report{Servers: map[string]*Server{"s": nil, "t": {Tools: map[string]*Tool{"x": nil}}}})
	assert.NotPanics(t, func() { _ = r.Listing(Tests) })
}

// A name with a newline cannot forge a line of the listing.
func TestListingQuotesNames(t *testing.T) {
	r := called("srv\n\tnever exercised:", "get\n\ttool forged", 0)
	out := r.Listing(Tests)
	for _, line := range strings.Split(out, "\n") {
		assert.NotEqual(t, "\ttool forged", line, "a forged line:\n%s", out)
	}
	assert.Contains(t, out, `tool "get\n\ttool forged"`)
	assert.Contains(t, out, `mcp surface of "srv\n\tnever exercised:"`)
}
