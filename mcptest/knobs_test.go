package mcptest

import "time"

// Knobs for the harness's own tests.

// withLeakWait sets the leak wait and checks the connection at once, as a
// test that expects a leak must: a census made later would report it on
// whichever test made it.
func withLeakWait(d time.Duration) Option {
	return func(c *config) { c.leakWait, c.leakNow = d, true }
}

func withTranscriptLimits(head, tail, lineBytes int) Option {
	return func(c *config) { c.head, c.tail, c.lineMax = head, tail, lineBytes }
}

func withVerbatimTranscript(on bool) Option { return func(c *config) { c.verbatim = on } }
