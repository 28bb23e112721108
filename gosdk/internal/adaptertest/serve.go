package adaptertest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Served is one connection to a server, running for the length of a test.
// Tests that look at the adapter's own crash reports use it; the others use
// mcptest.Connect, which fails the test on such a report.
type Served struct {
	// Client is the client end of the pair.
	Client *memtransport.Conn
	// Reports receives each panic the adapter's last-resort recovery
	// reported, in order (buffered; a test reads what it provoked).
	Reports chan crash.Report

	result chan error // what Serve returned
}

// Serve runs s.Serve on the server end of a fresh pair, made with opts, with
// a crash reporter that feeds Served.Reports. When the test ends it closes
// the client end, waits for Serve, fails the test if Serve returned an
// error, and logs the transcript if the test failed.
func Serve(t testing.TB, s mcptest.Server, opts ...memtransport.Option) *Served {
	t.Helper()
	c, end := memtransport.Pair(opts...)
	sv := &Served{Client: c, Reports: make(chan crash.Report, 16), result: make(chan error, 1)}
	// Not t.Context(): it ends before the cleanup below, and Serve is to
	// stop because the client end closed.
	ctx := crash.WithReporter(context.Background(), func(r crash.Report) { sv.Reports <- r })
	go func() { sv.result <- s.Serve(ctx, end) }()
	t.Cleanup(func() {
		c.Close()
		if err := <-sv.result; err != nil {
			t.Errorf("Serve: %v", err)
		}
		if t.Failed() {
			t.Logf("transcript:\n%s", c.Transcript())
		}
	})
	return sv
}

// Connect connects the test kit's client over the client end, asking for
// version ("" starts era-neutrally: 2026-07-28 through server/discover if
// the server offers it, else the initialize handshake). The client is
// closed when the test ends.
func (sv *Served) Connect(t testing.TB, version string) *client.Client {
	t.Helper()
	c, err := client.Connect(t.Context(), sv.Client, &client.Options{
		ClientInfo:      client.Implementation{Name: "test-client", Version: "v0.0.1"},
		ProtocolVersion: version,
	})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// AssertNoPanic fails the test if the adapter has reported a panic (one the
// server should have recovered itself), and reports whether it had not.
func (sv *Served) AssertNoPanic(t testing.TB) bool {
	t.Helper()
	select {
	case r := <-sv.Reports:
		t.Errorf("the adapter's last-resort recovery reported a panic in %s %q: %v", r.Method, r.Name, r.Value)
		return false
	default:
		return true
	}
}

// Era is one protocol generation a test runs in.
type Era struct {
	// Name names the subtest.
	Name string
	// Version is what the client asks for: a legacy version for the
	// initialize handshake, or "" to let it negotiate 2026-07-28.
	Version string
	// Want is the version the session should end up with.
	Want string
}

// Modern reports whether the era is 2026-07-28.
func (e Era) Modern() bool { return e.Want == client.Version20260728 }

// Eras returns the two eras the adapters' tests cover: legacy (the
// initialize handshake, at 2025-06-18, which every SDK release the adapters
// build with speaks) and 2026-07-28 (per-request versions, negotiated
// through server/discover).
func Eras() []Era {
	return []Era{
		{Name: "legacy", Version: client.Version20250618, Want: client.Version20250618},
		{Name: client.Version20260728, Version: "", Want: client.Version20260728},
	}
}

// EachEra runs f in one parallel subtest per era, after skipUnlessSpeaks,
// which skips the subtest when the linked SDK release does not speak the
// era's version (the SDK's sdktest knows how to tell and whom to name).
func EachEra(t *testing.T, skipUnlessSpeaks func(t testing.TB, version string), f func(t *testing.T, era Era)) {
	t.Helper()
	for _, era := range Eras() {
		t.Run(era.Name, func(t *testing.T) {
			t.Parallel()
			skipUnlessSpeaks(t, era.Want)
			f(t, era)
		})
	}
}

// EraOf returns the era of the i-th connection of a test that alternates
// them: legacy, 2026-07-28, legacy, ...; every one legacy unless modern
// (the linked SDK release speaks 2026-07-28), so that such a test still
// makes all its connections.
func EraOf(i int, modern bool) Era {
	if !modern {
		return Eras()[0]
	}
	return Eras()[i%2]
}

// ServeRepeatedly serves each of servers (typically several Adapters of one
// SDK server, some the same) in a subtest per Serve: first one after
// another, then all at once, so that a test can check that serving the same
// server again changes nothing. check runs on each connection, at the era
// of the server's position in the list ([EraOf], with modern): what is
// tested is serving again, not the era.
func ServeRepeatedly(t *testing.T, servers []mcptest.Server, modern bool, check func(t *testing.T, sv *Served, era Era)) {
	t.Helper()
	t.Run("one after another", func(t *testing.T) {
		for i, s := range servers {
			era := EraOf(i, modern)
			t.Run(era.Name, func(t *testing.T) { check(t, Serve(t, s), era) })
		}
	})
	t.Run("at once", func(t *testing.T) {
		for i, s := range servers {
			era := EraOf(i, modern)
			t.Run(era.Name, func(t *testing.T) {
				t.Parallel()
				check(t, Serve(t, s), era)
			})
		}
	})
}

// AssertPanicAnswered calls the tool "boom", which panics with "kaboom",
// and checks that the adapter answered -32603 naming the panic and reported
// it once.
func AssertPanicAnswered(t testing.TB, c *client.Client, sv *Served) {
	t.Helper()
	_, err := c.CallTool(t.Context(), "boom", map[string]any{})
	assert.Equal(t, &client.Error{Code: client.CodeInternalError, Message: `panic in tool "boom": kaboom`}, WireError(t, err))
	select {
	case r := <-sv.Reports:
		assert.Equal(t, "boom", r.Name)
	default:
		t.Error("the panic was not reported")
	}
	sv.AssertNoPanic(t) // one panic, one report
}
