package release

import (
	"cmp"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

var (
	v2026   = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
	v202511 = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
	v202506 = []string{"2025-06-18", "2025-03-26", "2024-11-05"}
)

func TestProtocolVersions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		version string
		want    []string
	}{
		{"v1.8.0", v2026},
		{"v1.7.0", v2026},
		{"v1.7.0-pre.2", v2026},
		{"v1.7.0-pre.1", v2026},
		{"v2.0.0", v2026},
		{"v1.8.1-0.20260801120000-0123456789ab", v2026}, // a commit after v1.8.0
		{"v1.7.0-pre.1.0.20260601120000-0123456789ab", v2026},
		{"v1.6.1", v202511},
		{"v1.6.0-pre.1", v202511},
		{"v1.3.1", v202511},
		{"v1.2.0", v202511},
		{"v1.2.0+incompatible", v202511},
		{"v1.1.0", v202506},
		{"v1.0.0", v202506},
		// a commit after v1.6.1 may already speak 2026-07-28
		{"v1.6.2-0.20260601120000-0123456789ab", nil},
		{"v1.7.0-0.20260601120000-0123456789ab", nil},
		{"v1.0.0-rc.1", nil},
		{"v0.8.0", nil},
		{"", nil},
		{"(devel)", nil},
		{"v1.8", nil},
		{"v1.x.0", nil},
	} {
		assert.Equal(t, tc.want, ProtocolVersions(tc.version), tc.version)
	}
}

func TestSpeaks(t *testing.T) {
	t.Parallel()
	speaks, known := Speaks("v1.8.0", "2026-07-28")
	assert.True(t, speaks && known)
	speaks, known = Speaks("v1.2.0", "2026-07-28")
	assert.True(t, !speaks && known)
	_, known = Speaks("", "2026-07-28")
	assert.False(t, known)
}

func TestOlder(t *testing.T) {
	t.Parallel()
	assert.True(t, Older("v1.6.1", "v1.7.0-pre.1"))
	assert.True(t, Older("v1.2.0", "v1.7.0-pre.1"))
	assert.False(t, Older("v1.7.0-pre.1", "v1.7.0-pre.1"))
	assert.False(t, Older("v1.8.0", "v1.7.0-pre.1"))
	assert.True(t, Older("", "v1.7.0-pre.1"), "unknown")
	assert.True(t, Older("v1.8.1-0.20260801120000-0123456789ab", "v1.7.0-pre.1"), "a pseudo-version is not known to be as new")
}

func TestSince(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "v1.7.0-pre.1", Since("2026-07-28"))
	assert.Equal(t, "v1.2.0", Since("2025-11-25"))
	assert.Equal(t, "v1.0.0", Since("2024-11-05"))
	assert.Empty(t, Since("2099-01-01"))
}

func TestCompare(t *testing.T) {
	t.Parallel()
	// In semver's order, each before the next.
	order := []string{"v1.0.0-alpha", "v1.0.0-alpha.1", "v1.0.0-alpha.beta", "v1.0.0-beta", "v1.0.0-beta.2",
		"v1.0.0-beta.11", "v1.0.0-rc.1", "v1.0.0", "v1.0.1", "v1.2.0", "v1.10.0", "v10.0.0"}
	for i := range order {
		for j := range order {
			c, ok := compare(order[i], order[j])
			assert.True(t, ok)
			assert.Equal(t, cmp.Compare(i, j), c, "%s vs %s", order[i], order[j])
		}
	}
	c, ok := compare("v1.2.0+meta", "v1.2.0")
	assert.True(t, ok)
	assert.Zero(t, c, "build metadata does not count")
}

func TestLinked(t *testing.T) {
	t.Parallel()
	sdk := func(version string, replace *debug.Module) []*debug.Module {
		return []*debug.Module{{Path: "example.com/other", Version: "v9.9.9"}, {Path: Module, Version: version, Replace: replace}}
	}
	assert.Equal(t, "v1.2.0", linked(sdk("v1.2.0", nil)))
	assert.Equal(t, "v1.3.1", linked(sdk("v1.2.0", &debug.Module{Path: Module, Version: "v1.3.1"})), "replaced by another release")
	assert.Empty(t, linked(sdk("v1.2.0", &debug.Module{Path: "../go-sdk"})), "replaced by a directory")
	assert.Empty(t, linked(sdk("v1.2.0", &debug.Module{Path: "example.com/fork", Version: "v1.2.0"})), "replaced by a fork")
	assert.Empty(t, linked(nil))
}

func TestFromFile(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{
		"/home/u/go/pkg/mod/github.com/modelcontextprotocol/go-sdk@v1.2.0/mcp/server.go":          "v1.2.0",
		"github.com/modelcontextprotocol/go-sdk@v1.8.0/mcp/server.go":                             "v1.8.0", // -trimpath
		"C:/Users/u/go/pkg/mod/github.com/modelcontextprotocol/go-sdk@v1.7.0-pre.1/mcp/server.go": "v1.7.0-pre.1",
		"/m/github.com/modelcontextprotocol/go-sdk@v1.7.0-!r!c.1/mcp/server.go":                   "v1.7.0-RC.1",
		"/work/go-sdk/mcp/server.go": "", // replaced by a directory
		"/work/app/vendor/github.com/modelcontextprotocol/go-sdk/mcp/server.go":                       "",
		"/home/u/go/pkg/mod/example.com/fork/github.com/modelcontextprotocol/go-sdk@v1.2.0":           "",
		"/home/u/go/pkg/mod/example.com/xgithub.com/modelcontextprotocol/go-sdk@v1.2.0/mcp/server.go": "",
	} {
		assert.Equal(t, want, fromFile(file), file)
	}
}

// The test binary links go-sdk (test binaries' build information lists no
// dependencies, so this is the file-name route).
func TestLinkedInThisBinary(t *testing.T) {
	t.Parallel()
	v := Linked()
	if v == "" {
		t.Skip("go-sdk is replaced by a directory or a fork: its release is unknown")
	}
	assert.NotNil(t, ProtocolVersions(v), "go-sdk %s", v)
	t.Logf("go-sdk %s speaks %v", v, ProtocolVersions(v))
}
