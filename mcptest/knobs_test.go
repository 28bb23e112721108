package mcptest

import (
	"time"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// Knobs for the harness's own tests.

// withLeakWait sets the leak wait and checks the connection at once, as a
// test that expects a leak must: a census made later would report it on
// whichever test made it.
func withLeakWait(d time.Duration) Option {
	return func(c *config) { c.leakWait, c.knobs.leakNow = d, true }
}

// withChecks edits the options CheckServer and Fuzz give servercheck.
func withChecks(edit func(*servercheck.Options)) Option {
	return func(c *config) { c.knobs.checks = edit }
}

// memDialer serves srv in memory for each connection, for the tests that
// call servercheck's engine themselves.
func memDialer(srv Server) servercheck.Dialer { return servercheck.InProcess(srv) }

func withVerbatimTranscript(on bool) Option { return func(c *config) { c.verbatim = on } }
