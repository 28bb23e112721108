package sdktest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Server is what the adapter's *Adapter satisfies (and what the mcptest
// harness serves).
type Server interface {
	Serve(ctx context.Context, conn *memtransport.Conn) error
}

// Served is one connection to a Server, running for the length of a test.
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
func Serve(t testing.TB, s Server, opts ...memtransport.Option) *Served {
	t.Helper()
	c, end := memtransport.Pair(opts...)
	sv := &Served{Client: c, Reports: make(chan crash.Report, 16), result: make(chan error, 1)}
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

// Connect connects a client over the client end, asking for version (""
// starts era-neutrally: 2026-07-28 through server/discover if the server
// offers it, else the initialize handshake). opts may be nil; its
// ProtocolVersion is replaced by version. The client is closed when the test
// ends.
func (sv *Served) Connect(t testing.TB, version string, opts *client.Options) *client.Client {
	t.Helper()
	var o client.Options
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = version
	if o.ClientInfo.Name == "" {
		o.ClientInfo = client.Implementation{Name: "test-client", Version: "v0.0.1"}
	}
	c, err := client.Connect(t.Context(), sv.Client, &o)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// Transcript returns what crossed the connection so far.
func (sv *Served) Transcript() memtransport.Transcript { return sv.Client.Transcript() }

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

// ServeRepeatedly serves each of servers (typically several Adapters of one
// mcp-go server, some the same) in a subtest per Serve: first one after
// another, then all at once, so that a test can check that serving the same
// server again changes nothing. check runs on each connection, at the era of
// the server's position in the list: the eras alternate, on a release
// without 2026-07-28 every connection is legacy (what is tested is serving
// again, not the era).
func ServeRepeatedly(t *testing.T, servers []Server, check func(t *testing.T, sv *Served, era Era)) {
	t.Helper()
	eraOf := func(i int) Era {
		if !SpeaksModern() {
			return Eras()[0]
		}
		return Eras()[i%2]
	}
	t.Run("one after another", func(t *testing.T) {
		for i, s := range servers {
			era := eraOf(i)
			t.Run(era.Name, func(t *testing.T) { check(t, Serve(t, s), era) })
		}
	})
	t.Run("at once", func(t *testing.T) {
		for i, s := range servers {
			era := eraOf(i)
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
	assert.Equal(t, WireErr(client.CodeInternalError, `panic in tool "boom": kaboom`), WireError(t, err))
	select {
	case r := <-sv.Reports:
		assert.Equal(t, "boom", r.Name)
	default:
		t.Error("the panic was not reported")
	}
	sv.AssertNoPanic(t) // one panic, one report
}
