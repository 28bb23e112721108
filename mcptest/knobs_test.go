package mcptest

import (
	"context"
	"fmt"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Knobs for the harness's own tests.

// withLeakWait sets the leak wait and checks the connection at once, as a
// test that expects a leak must: a census made later would report it on
// whichever test made it.
func withLeakWait(d time.Duration) Option {
	return func(c *config) { c.leakWait, c.knobs.leakNow = d, true }
}

func withTranscriptLimits(head, tail, lineBytes int) Option {
	return func(c *config) { c.head, c.tail, c.lineMax = head, tail, lineBytes }
}

// withChecks edits the options CheckServer and Fuzz give servercheck.
func withChecks(edit func(*servercheck.Options)) Option {
	return func(c *config) { c.knobs.checks = edit }
}

// memDialer serves srv in memory for each connection, as CheckServer does,
// for the tests that call servercheck's engine themselves.
func memDialer(srv Server) servercheck.Dialer {
	return func(ctx context.Context) (client.Transport, error) {
		cli, end := memtransport.Pair()
		s := serve(context.WithoutCancel(ctx), srv, end, func(r crash.Report) { crash.Deliver(ctx, r) })
		return &stopOnClose{Conn: cli, s: s}, nil
	}
}

type stopOnClose struct {
	*memtransport.Conn
	s *served
}

func (c *stopOnClose) Close() error {
	err := c.Conn.Close()
	if end, _ := c.s.stop(5*time.Second, func() time.Duration { return time.Second }); end != returned {
		return fmt.Errorf("Serve did not return when its connection closed (%d)", end)
	}
	return err
}

func withVerbatimTranscript(on bool) Option { return func(c *config) { c.verbatim = on } }
