package mcptest

import "time"

// Knobs for the harness's own tests.

func withLeakWait(d time.Duration) Option { return func(c *config) { c.leakWait = d } }

func withTranscriptLimits(head, tail, lineBytes int) Option {
	return func(c *config) { c.head, c.tail, c.lineMax = head, tail, lineBytes }
}

func withVerbatimTranscript(on bool) Option { return func(c *config) { c.verbatim = on } }
