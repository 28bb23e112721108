package main

import (
	"bytes"
	"flag"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An empty argument (mcptestkit check $URL with URL unset) is bad usage,
// never "no server": the bundled Bookshop is not checked in its place.
func TestEmptyArgumentIsUsageError(t *testing.T) {
	for _, args := range [][]string{{"check", ""}, {"list", ""}, {"call", "get_author", ""}, {"replay", ""}, {"surface", ""}} {
		r := mcptestkit(t, nil, args...)
		require.Equal(t, exitUsage, r.code, "mcptestkit %q\n%s", args, r)
		assert.Contains(t, r.stderr, "an empty argument (is a shell variable unset?)", "mcptestkit %q", args)
		assert.NotContains(t, r.stdout, "passed", "mcptestkit %q ran", args)
	}
}

// surface and serve reach no server: their help describes no SERVER and no
// connection flags, and a command after "--" is bad usage.
func TestCommandsWithoutServer(t *testing.T) {
	for _, name := range []string{"surface", "serve"} {
		r := mcptestkit(t, nil, "help", name)
		require.Equal(t, exitOK, r.code, "%s", r)
		assert.NotContains(t, r.stdout, "SERVER", "help %s", name)
		assert.NotContains(t, r.stdout, "-header", "help %s", name)
		assert.NotContains(t, r.stdout, "-timeout", "help %s", name)

		r = mcptestkit(t, nil, name, "x.json", "--", "./server")
		assert.Equal(t, exitUsage, r.code, "%s", r)
		assert.Contains(t, r.stderr, `this command reaches no server: nothing goes after "--"`)
	}
	r := mcptestkit(t, nil, "help", "check")
	assert.Contains(t, r.stdout, "SERVER is nothing")
}

// Every help text is made from the command values: "mcptestkit help" lists
// each command with its usage line and short help, and "help NAME" and
// "NAME -h" print its usage line, its long help and each of its flags.
func TestHelpFromCommands(t *testing.T) {
	var out, errs bytes.Buffer
	require.Equal(t, exitOK, run(t.Context(), []string{"help"}, terminal{stdout: &out, stderr: &errs}))
	listing := out.String()
	for _, cmd := range commands {
		name, args, _ := strings.Cut(cmd.usageLine, " ")
		assert.Regexp(t, `(?m)^  mcptestkit `+regexp.QuoteMeta(name)+` +`+regexp.QuoteMeta(args)+` +`+regexp.QuoteMeta(cmd.short)+`$`, listing)

		out.Reset()
		require.Equal(t, exitOK, run(t.Context(), []string{"help", name}, terminal{stdout: &out, stderr: &errs}), name)
		help := out.String()
		assert.True(t, strings.HasPrefix(help, "Usage: mcptestkit "+cmd.usageLine+"\n\n"+cmd.long+"\n"), "help %s:\n%s", name, help)
		fs, _, _ := cmd.newFlags()
		fs.VisitAll(func(f *flag.Flag) {
			assert.Regexp(t, `(?m)^  -`+regexp.QuoteMeta(f.Name)+`\b`, help, "help %s lists -%s", name, f.Name)
		})
		if !cmd.rawArgs {
			out.Reset()
			require.Equal(t, exitOK, run(t.Context(), []string{name, "-h"}, terminal{stdout: &out, stderr: &errs}), name)
			assert.Equal(t, help, out.String(), "%s -h", name)
		}
	}
	assert.Empty(t, errs.String())
}
