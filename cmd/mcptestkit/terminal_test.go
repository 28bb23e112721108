package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On a terminal the report has colour and a progress line; NO_COLOR turns
// the colour off. script(1) gives the command a pseudo-terminal.
func TestTerminal(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Skip("needs script(1) (util-linux) to run the command on a pseudo-terminal")
	}
	bin, err := binary()
	require.NoError(t, err)
	onTerminal := func(noColor bool) string {
		ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, scriptBin, "-qec", shellQuote([]string{bin, "check", "--run", "tools/calls"}), "/dev/null")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "TERM=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "TERM=xterm")
		if noColor {
			cmd.Env = append(cmd.Env, "NO_COLOR=1")
		}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	out := onTerminal(false)
	assert.Contains(t, out, ansiGreen+"PASS"+ansiReset+"  tools/calls/get_author")
	assert.Contains(t, out, clearLine+"  [1 done] running tools/calls/get_author ...")
	assert.Contains(t, out, ansiGreen+"2 passed"+ansiReset+", 0 failed")

	out = onTerminal(true)
	assert.NotContains(t, out, ansiGreen)
	assert.Contains(t, out, "PASS  tools/calls/get_author")
	assert.Contains(t, out, "running tools/calls/get_author ...") // the progress line stays
}
