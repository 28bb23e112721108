package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The built command answers version, -version and --version alike, with what
// its build information says (a test build from the work tree is "(devel)").
func TestVersion(t *testing.T) {
	var first string
	for _, arg := range []string{"version", "-version", "--version"} {
		r := mcptestkit(t, nil, arg)
		require.Equal(t, exitOK, r.code, "%s", r)
		assert.True(t, strings.HasPrefix(r.stdout, "mcptestkit "), "mcptestkit %s printed %q", arg, r.stdout)
		assert.Contains(t, r.stdout, runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)
		assert.Empty(t, r.stderr)
		if first == "" {
			first = r.stdout
		}
		assert.Equal(t, first, r.stdout, "mcptestkit %s", arg)
	}

	r := mcptestkit(t, nil, "version", "extra")
	assert.Equal(t, exitUsage, r.code, "%s", r)
	assert.Contains(t, r.stderr, `takes no arguments, got ["extra"]`)

	r = mcptestkit(t, nil, "help", "version")
	assert.Equal(t, exitOK, r.code, "%s", r)
	assert.Contains(t, r.stdout, "Usage: mcptestkit version")
}

func TestVersionText(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	released := &debug.BuildInfo{
		GoVersion: "go1.25.5",
		Main:      debug.Module{Path: "github.com/mcptestkit/mcptestkit/cmd", Version: "v0.1.0"},
		Deps:      []*debug.Module{{Path: kitModule, Version: "v0.1.0"}, {Path: "github.com/stretchr/testify", Version: "v1.12.1"}},
	}
	assert.Equal(t, "mcptestkit v0.1.0, built with go1.25.5 "+platform+"\n", versionText(released, true))

	checkout := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Path: "github.com/mcptestkit/mcptestkit/cmd", Version: "v0.1.1-0.20261206030000-0123456789ab"},
		Deps:      []*debug.Module{{Path: kitModule, Version: "v0.1.0"}},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-12-06T03:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	assert.Equal(t, "mcptestkit v0.1.1-0.20261206030000-0123456789ab ("+kitModule+" v0.1.0), revision 0123456789abcdef0123456789abcdef01234567 of 2026-12-06T03:00:00Z with local changes, built with go1.26.0 "+platform+"\n",
		versionText(checkout, true))

	workspace := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Path: "github.com/mcptestkit/mcptestkit/cmd", Version: "(devel)"},
		Deps:      []*debug.Module{{Path: kitModule, Version: "v0.1.0", Replace: &debug.Module{Path: "../"}}},
	}
	assert.Equal(t, "mcptestkit (devel) ("+kitModule+" ../), built with go1.26.0 "+platform+"\n", versionText(workspace, true))

	assert.Equal(t, "mcptestkit (unknown version: no build information) "+runtime.Version()+" "+platform+"\n", versionText(nil, false))
}
