package mcptest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// Issue 39: a stdio server whose process dies in a tool call is reported
// fully by the first check that hits it: the exit status and what the
// process wrote on stderr, not only "the connection broke".
func TestCheckServerStdioCrashReportedFirst(t *testing.T) {
	t.Parallel()
	var got *servercheck.Result
	err := servercheck.Run(t.Context(), servercheck.Command(cmdServer(t, "")), &servercheck.Options{Run: "tools/calls/crash", Calls: 1,
		OnResult: func(r servercheck.Result) {
			if r.Name == "tools/calls/crash" {
				got = &r
			}
		}})
	require.Error(t, err)
	require.NotNil(t, got)
	assert.Equal(t, servercheck.Fail, got.Status)
	assert.Contains(t, got.Detail, "exit status 3")
	assert.Contains(t, got.Detail, "cmdserver: crash: the database handle is gone")
	t.Logf("%s", got)
}
