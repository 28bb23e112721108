package sdktest

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Server is what the adapters' *Adapter types satisfy (and what the mcptest
// harness serves).
type Server interface {
	Serve(ctx context.Context, conn *memtransport.Conn) error
}

// Served is one connection to a Server, running for the length of a test.
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
	ctx := crash.WithReporter(t.Context(), func(r crash.Report) { sv.Reports <- r })
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

// Connect runs the go-sdk client's handshake over the client end, asking for
// version ("" lets the client negotiate: 2026-07-28 through server/discover,
// if the server offers it). The session is closed when the test ends.
func (sv *Served) Connect(t testing.TB, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cl := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
	cs, err := cl.Connect(t.Context(), Transport{sv.Client}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
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

// Eras returns the two eras the adapters' tests cover: legacy (the
// initialize handshake, at 2025-06-18) and 2026-07-28 (per-request versions,
// negotiated through server/discover).
func Eras() []Era {
	return []Era{
		{Name: "legacy", Version: "2025-06-18", Want: "2025-06-18"},
		{Name: "2026-07-28", Version: "", Want: "2026-07-28"},
	}
}

// EachEra runs f in one parallel subtest per era.
func EachEra(t *testing.T, f func(t *testing.T, era Era)) {
	t.Helper()
	for _, era := range Eras() {
		t.Run(era.Name, func(t *testing.T) {
			t.Parallel()
			f(t, era)
		})
	}
}

// ServeRepeatedly serves each of servers (typically several Adapters of one
// SDK server, some the same) in a subtest per Serve: first one after another,
// then all at once, so that a test can check that serving the same server
// again changes nothing. check runs on each connection, at the era of the
// server's position in the list.
func ServeRepeatedly(t *testing.T, servers []Server, check func(t *testing.T, sv *Served, era Era)) {
	t.Helper()
	t.Run("one after another", func(t *testing.T) {
		for i, s := range servers {
			era := Eras()[i%2]
			t.Run(era.Name, func(t *testing.T) { check(t, Serve(t, s), era) })
		}
	})
	t.Run("at once", func(t *testing.T) {
		for i, s := range servers {
			era := Eras()[i%2]
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
func AssertPanicAnswered(t testing.TB, cs *mcp.ClientSession, sv *Served) {
	t.Helper()
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "boom", Arguments: map[string]any{}})
	assert.Equal(t, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: `panic in tool "boom": kaboom`}, WireError(t, err))
	select {
	case r := <-sv.Reports:
		assert.Equal(t, "boom", r.Name)
	default:
		t.Error("the panic was not reported")
	}
	sv.AssertNoPanic(t) // one panic, one report
}
