package mcptest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Every option applies to some of the calls that take Options; given to
// another, it fails the test naming the option, the calls it applies to and
// the call it was given to (goleak's rule), instead of being dropped.
func TestOptionGivenToTheWrongCallFails(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		call func(tb testing.TB)
		want string
	}{
		{"check option to Connect", func(tb testing.TB) { Connect(tb, probeServer(), SkipChecks("ping")) },
			"mcptest.Connect: mcptest.SkipChecks applies to CheckServer, not Connect"},
		{"two to Connect", func(tb testing.TB) { Connect(tb, probeServer(), StrictChecks(), Since(client.Version20250618)) },
			"mcptest.Connect: mcptest.StrictChecks applies to CheckServer, not Connect; mcptest.Since applies to EachVersion, not Connect"},
		{"connection option to CheckServer", func(tb testing.TB) { CheckServer(tb, goodServer(), WithTranscript(&Transcript{})) },
			"mcptest.CheckServer: mcptest.WithTranscript applies to Connect, not CheckServer"},
		{"golden option to CheckServer", func(tb testing.TB) { CheckServer(tb, goodServer(), IgnoreFields("id")) },
			"mcptest.CheckServer: mcptest.IgnoreFields applies to Golden, not CheckServer"},
		{"version option to Golden", func(tb testing.TB) { Assert(tb).Golden("never-written", 1, Before(client.Version20260728)) },
			"mcptest.Before applies to EachVersion, not Golden"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runFake(t, tc.call).expectFailure(t, tc.want)
		})
	}

	_, err := Normalize(1, WithoutLeakCheck())
	require.EqualError(t, err, "mcptest.WithoutLeakCheck applies to Connect, CheckServer and Fuzz, not Golden")
	_, err = selectVersions([]Option{Verbatim()})
	require.EqualError(t, err, "mcptest.Verbatim applies to Golden, not EachVersion")
}

// The options that apply to several calls work in each: the connection
// options in CheckServer, CheckLogs in Fuzz (compiled, not run here).
func TestSharedOptionsApply(t *testing.T) {
	t.Parallel()
	runCheck(t, goodServer(), WithClient(client.Options{Timeout: 5 * time.Second}), WithProtocolVersion(client.Version20250618),
		IgnoreLeaks("example.com/none"), SkipChecks("tools/calls")).expectPass(t)
	cfg := newConfig([]Option{CheckLogs(nil), WithoutLeakCheck()})
	assert.Empty(t, cfg.misused(fuzzCall))
}

// The connections of CheckServer go through the harness: a goroutine the
// server leaves behind after them fails the test as it fails Connect's.
func TestCheckServerFindsLeaks(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	runCheck(t, spawnServer(release), withLeakWait(leakedWait)).expectFailure(t,
		"mcptest: goroutine leak:",
		"blockForever",
		"mcptest.IgnoreLeaks",
	)
	runCheck(t, spawnServer(release), IgnoreLeaks("github.com/mcptestkit/mcptestkit/mcptest.blockForever")).expectPass(t)
	runCheck(t, spawnServer(release), WithoutLeakCheck()).expectPass(t)
}

// A Serve that does not return when a connection of the checks closes
// fails CheckServer as it fails Connect's cleanup.
func TestCheckServerServeMustReturn(t *testing.T) {
	t.Parallel()
	stubborn := ServerFunc(func(ctx context.Context, conn *memtransport.Conn) error {
		err := goodServer().Serve(context.WithoutCancel(ctx), conn)
		<-ctx.Done() // returns only once cancelled
		return err
	})
	runCheck(t, stubborn, WithClient(client.Options{Timeout: time.Second}), withChecks(func(o *servercheck.Options) { o.Run = "ping" })).expectFailure(t,
		"mcptest: Serve did not return within 1s after a connection of the checks closed; it returned only when its context was cancelled.",
	)
}

// A nil Option is ignored, wherever Options are taken, so that an option can
// be chosen conditionally; it neither panics nor counts as misused.
func TestNilOptionIgnored(t *testing.T) {
	t.Parallel()
	var maybe Option // a condition that did not hold
	c := Connect(t, probeServer(), maybe, WithProtocolVersion(client.Version20250618), nil)
	require.NoError(t, c.Ping(t.Context()))
	assert.Equal(t, client.Version20250618, c.ProtocolVersion())

	runFake(t, func(tb testing.TB) { Connect(tb, probeServer(), nil, SkipChecks("ping")) }).
		expectFailure(t, "mcptest.Connect: mcptest.SkipChecks applies to CheckServer, not Connect")
	got, err := Normalize(map[string]any{"a": 1}, nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"a": 1}`, string(got))
	_, err = selectVersions([]Option{nil, Since(client.Version20250618)})
	require.NoError(t, err)
}
