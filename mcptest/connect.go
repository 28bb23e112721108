package mcptest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"runtime/pprof"
	"slices"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/inmem"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/leak"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/monitor"
	"github.com/mcptestkit/mcptestkit/mcptest/surface"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Server is an MCP server the harness can connect to. [Connect],
// [CheckServer] and [Fuzz] take any Server:
//   - one served in memory: an SDK's server is not one, its adapter is:
//     gosdktest.Server(srv) for go-sdk, mcpgotest.Server(srv) for mcp-go;
//     [ServerFunc] adapts any other Go server;
//   - a program speaking stdio, in any language: [Command];
//   - a streamable HTTP handler in the process: [Handler];
//   - a streamable HTTP endpoint: [URL];
//   - any other transport: [Transport].
//
// The harness serves a Server in memory by calling Serve with one end of a
// fresh [memtransport.Pair] for each connection: Serve serves that end
// until the connection closes (or ctx ends), then returns. It must not
// return before it has stopped using conn and every goroutine it started
// for the connection has finished (or is about to), because the harness
// checks for leaked goroutines once it returns. The servers of Command,
// Handler, URL and Transport are reached through their transport instead,
// and their Serve serves nothing.
//
// A Server may also say which protocol versions it speaks, with a method
// the harness looks for (as io.Copy looks for WriterTo):
//
//	ProtocolVersions() []string
//
// When the list has no version from 2026-07-28 on, and the test pins none
// ([WithProtocolVersion], [EachVersion]), the client starts with
// initialize at the newest version both speak instead of probing with
// server/discover first, which a legacy SDK may log as an error. A nil
// list, or one the client shares no legacy version with, changes nothing.
// And it may name the SDK release that serves it:
//
//	SDK() string // "go-sdk v1.4.0"; the SDK's name alone when its release is not known
//
// [CheckServer] then names that release where it fails a check by design of
// the SDK (go-sdk before v1.7.0 answers an unknown method with code 0), and
// says how to leave the check out.
type Server interface {
	Serve(ctx context.Context, conn *memtransport.Conn) error
}

// ServerFunc is a function that is a [Server].
type ServerFunc func(ctx context.Context, conn *memtransport.Conn) error

// Serve calls f(ctx, conn).
func (f ServerFunc) Serve(ctx context.Context, conn *memtransport.Conn) error { return f(ctx, conn) }

// Connect connects a real [client.Client] to srv and returns it after the
// handshake. srv is any [Server]: an SDK's adapter, not the SDK's server,
// or what [Command], [Handler], [URL] or [Transport] return:
//
//	c := mcptest.Connect(t, gosdktest.Server(srv)) // srv is a go-sdk *mcp.Server
//	c := mcptest.Connect(t, mcpgotest.Server(srv)) // srv is an mcp-go *server.MCPServer
//	c := mcptest.Connect(t, mcptest.Command(exec.Command("python", "server.py")))
//
// Connect serves a Server served in memory on one end of a fresh
// [memtransport.Pair]; it reaches the others through their transport, and
// records the transcript between the client and that transport. When the
// test ends (t.Cleanup) the client closes, the server must be done (Serve
// returns, the process exits), and the test fails if a goroutine the
// connection started is still running; while it runs, the harness checks
// what the package documentation lists under "What the harness checks for
// you". Connections share nothing, so Connect is safe for parallel tests.
//
// If srv is nil, was made from bad arguments (a nil command, a bad URL), or
// the handshake fails, Connect stops the test with t.Fatalf.
func Connect(t testing.TB, srv Server, opts ...Option) *client.Client {
	t.Helper()
	cfg := configure(t, connectCall, srv, opts)
	if cfg == nil {
		return nil
	}
	if x, ok := srv.(external); ok {
		return x.connect(newHarness(t, cfg, "mcptest.Connect", kindOf(srv)))
	}
	if cfg.version == "" && eachVersionOf(t) == "" {
		cfg.version = legacyStart(srv) // no probe for a server that says it is legacy
	}
	h := newHarness(t, cfg, "mcptest.Connect", inMemory)
	keep := cfg.keepFrames()
	// The user's transport options come last, so they can change this.
	pairOpts := append([]memtransport.Option{memtransport.WithTranscriptLimit(keep)}, cfg.pairOptions...)
	cliEnd, srvEnd := memtransport.Pair(pairOpts...)

	h.transcript = srvEnd.Transcript
	h.afterClose = append(h.afterClose, h.waitServe)
	serveCtx := crash.WithReporter(context.Background(), h.reportCrash)
	return h.connect(serveCtx, false, func(ctx context.Context) (client.Transport, error) {
		h.mem = inmem.Serve(ctx, srv, srvEnd, h.reportCrash)
		return cliEnd, nil
	})
}

// configure returns the configuration of fn (Connect, CheckServer or Fuzz)
// given srv and opts, or fails the test and returns nil: when srv is nil or
// was made from bad arguments (a nil command, a bad URL), when an option
// does not apply to fn, or when two options pin different versions.
func configure(t testing.TB, fn call, srv Server, opts []Option) *config {
	t.Helper()
	name := "mcptest." + fn.String()
	if srv == nil {
		t.Fatalf("%s: the server is nil", name)
		return nil
	}
	cfg := newConfig(opts)
	msg := cfg.misused(fn) // goleak's rule: an option that cannot apply is a mistake to report
	if msg == "" {
		msg = cfg.versionConflict
	}
	if x, ok := srv.(external); ok && msg == "" {
		if err := x.check(); err != nil {
			msg = err.Error()
		}
	}
	if msg != "" {
		t.Fatalf("%s: %s", name, msg)
		return nil
	}
	return cfg
}

// legacyStart returns the version at which to start a connection to srv
// with initialize, without the server/discover probe: the newest legacy
// version the client and srv speak, when srv lists its versions (see
// [Server]) and none is 2026-07-28 or later. "" means probe as usual.
func legacyStart(srv Server) string {
	s, ok := srv.(interface{ ProtocolVersions() []string })
	if !ok {
		return ""
	}
	best := ""
	for _, v := range s.ProtocolVersions() {
		if !client.IsLegacy(v) {
			return ""
		}
		if v > best && slices.Contains(client.SupportedVersions(), v) {
			best = v
		}
	}
	return best
}

// keepFrames is how many messages the connection's transcript keeps.
func (c *config) keepFrames() int { return transcriptFrames }

// connect is what the connections to every kind of server share: it runs
// open and the handshake inside the connection's label, registers the
// cleanup, and fails the test if the handshake fails. With record set, the
// transport open returns is wrapped in a recorder for the transcript.
func (h *harness) connect(base context.Context, record bool, open func(ctx context.Context) (client.Transport, error)) *client.Client {
	t, cfg := h.t, h.cfg
	t.Helper()
	copts := cfg.client
	// In an EachVersion subtest the connection speaks the subtest's version
	// unless the test pinned another.
	subtestVersion := eachVersionOf(t)
	copts.ProtocolVersion = cmp.Or(cfg.version, subtestVersion)
	inEach := subtestVersion != "" && copts.ProtocolVersion == subtestVersion
	h.missing = missingCallbacks(&copts)
	h.catchClientPanics(&copts)
	for _, n := range cfg.notifications {
		next := copts.OnNotification
		copts.OnNotification = func(method string, params json.RawMessage) {
			n.record(method, params)
			if next != nil {
				next(method, params)
			}
		}
	}
	connectCtx, cancel := t.Context(), context.CancelFunc(func() {})
	if cfg.timeout > 0 {
		connectCtx, cancel = context.WithTimeout(connectCtx, cfg.timeout)
	}
	defer cancel()

	var err error
	h.start = cfg.leakCensus().Connecting()
	// Everything started inside pprof.Do carries the connection's label: the
	// server's goroutines, the transport's and the client's reader. That is
	// how the leak check tells them from other tests' goroutines.
	pprof.Do(base, pprof.Labels(leak.Key, h.label), func(ctx context.Context) {
		var tr client.Transport
		if tr, err = open(ctx); err != nil {
			return
		}
		if record {
			label := ""
			if cfg.leakCheck {
				label = h.label
			}
			rec := newRecorder(tr, cfg.keepFrames(), label)
			h.transcript, tr = rec.transcript, rec
		}
		tr = surface.Observe(tr, surface.Tests)
		if cfg.monitor != MonitorOff {
			h.monitor = monitor.New()
			tr = monitor.Wrap(tr, h.monitor)
		}
		h.tr = tr
		h.client, err = client.Connect(connectCtx, tr, &copts)
	})
	if h.tr == nil { // nothing was started
		cfg.leakCensus().Closed()
		t.Fatalf("%s: %v", h.name, err)
		return nil
	}
	for _, tr := range cfg.transcriptTo {
		tr.attach(h.transcript)
	}
	// The testing package keeps a finished test's cleanups until its parent
	// test ends: in a suite of parallel subtests, every test's at once. So
	// the cleanup lets go of the harness once it has run, and with it the
	// client, the transports and the transcript.
	hp := h
	t.Cleanup(func() {
		t.Helper() // what the cleanup prints is labelled with the test's line that called Connect
		h := hp
		hp = nil
		h.cleanup()
	})
	h.startWatchdog()
	if err != nil {
		h.handshakeFailed = true
		if errors.Is(err, context.DeadlineExceeded) && cfg.timeout > 0 {
			t.Fatalf("%s: the server did not complete the handshake within %v: %v", h.name, cfg.timeout, err)
		}
		t.Fatalf("%s: %v%s", h.name, err, versionHint(copts.ProtocolVersion, inEach, err))
		return nil
	}
	if got := h.client.ProtocolVersion(); inEach && got != subtestVersion {
		t.Fatalf("%s: %s", h.name, versionMismatch(subtestVersion, got))
		return nil
	}
	for _, n := range cfg.notifications {
		n.attach(h.client.Done(), cfg.timeout)
	}
	for _, note := range capabilityNotes(&copts, h.client.ProtocolVersion(), h.client.Capabilities()) {
		t.Logf("%s", note)
	}
	return h.client
}
