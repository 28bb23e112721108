package mcpgotest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

// notificationBuffer is how many notifications a connection's session holds
// by default before the server refuses one.
const notificationBuffer = 1024

// An Adapter is an mcp-go server as the mcptest harness serves it: its Serve
// method, which the harness calls once per connection, makes it an
// mcptest.Server. One Adapter may serve many connections, one after another
// or at once; each gets its own session.
type Adapter struct {
	server      *server.MCPServer
	versions    []string // nil: every version
	notifyBuf   int
	contextFunc func(context.Context) context.Context
}

// Option configures an [Adapter].
type Option func(*Adapter)

// WithProtocolVersions makes the server support only the listed protocol
// versions (of those the linked mcp-go release speaks) on connections served
// by this adapter: server/discover advertises only these, a legacy
// initialize asking for another version is answered with the newest listed
// one it can negotiate, and a per-request (2026-07-28) request at an
// unlisted version is refused with -32022 (unsupported protocol version).
// Use it to test a server against a client stuck on an older version, or to
// pin one era. mcp-go has no server option for this (go-sdk has, and its
// adapter leaves it to mcp.ServerOptions.SupportedProtocolVersions), so the
// adapter does it on its side of the connection: it answers the refusals
// itself, changes the version an initialize request asks for and the
// versions server/discover lists; the server is not changed.
func WithProtocolVersions(versions ...string) Option {
	return func(a *Adapter) { a.versions = slices.Clone(versions) }
}

// WithNotificationBuffer sets how many notifications each connection's
// session holds, waiting for the connection's writer, before the server
// refuses more (default 1024): mcp-go does not wait, it returns
// server.ErrNotificationChannelBlocked to the sender (and reports it to its
// OnError hooks). An n below 1 panics, because it is a programming error.
func WithNotificationBuffer(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("mcpgotest.WithNotificationBuffer: n must be at least 1, got %d", n))
	}
	return func(a *Adapter) { a.notifyBuf = n }
}

// WithContextFunc lets a test put values in the context every request of a
// connection is handled with (what server.WithStdioContextFunc or
// server.WithHTTPContextFunc do for mcp-go's transports), for example the
// authenticated user an auth middleware would have set.
func WithContextFunc(f func(context.Context) context.Context) Option {
	return func(a *Adapter) { a.contextFunc = f }
}

// ProtocolVersions returns the protocol versions the adapter's connections
// speak, newest first: those the linked mcp-go release implements
// (mcp.ValidProtocolVersions, which every supported release has), narrowed
// by [WithProtocolVersions]. It lists 2026-07-28 only from mcp-go v1.0.0,
// so the harness can tell a server that cannot answer server/discover
// without sending it. It returns nil if none is left; the caller may modify
// the slice.
func (a *Adapter) ProtocolVersions() []string {
	var out []string
	for _, v := range mcp.ValidProtocolVersions {
		if a.versions == nil || slices.Contains(a.versions, v) {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(x, y string) int { return strings.Compare(y, x) })
	return out
}

// offered returns the versions WithProtocolVersions lists that the release
// speaks, in the order given.
func (a *Adapter) offered() []string {
	out := make([]string, 0, len(a.versions))
	for _, v := range a.versions {
		if slices.Contains(mcp.ValidProtocolVersions, v) {
			out = append(out, v)
		}
	}
	return out
}

// Server adapts s for the mcptest harness: mcptest.Connect(t,
// mcpgotest.Server(s)). Serving does not change s: each connection registers a
// session with s for its length (as mcp-go's own transports do), and the
// last-resort recovery runs on the adapter's goroutines.
func Server(s *server.MCPServer, opts ...Option) *Adapter {
	if s == nil {
		panic("mcpgo.Server: nil *server.MCPServer")
	}
	a := &Adapter{server: s, notifyBuf: notificationBuffer}
	for _, o := range opts {
		o(a)
	}
	return a
}

// Serve serves the server on conn until conn is closed (by either end) or ctx
// is done; then it stops reading, cancels the requests still running, waits
// for them, unregisters the session and returns. It returns nil when the
// connection ended normally.
//
// Values in ctx reach every handler's context; this is how the harness hands
// the panic recovery its reporter.
func (a *Adapter) Serve(ctx context.Context, conn *memtransport.Conn) error {
	if conn == nil {
		return errors.New("mcpgo: Serve: nil connection")
	}
	if a.contextFunc != nil {
		ctx = a.contextFunc(ctx)
	}
	// Handlers run under a context that Serve cancels itself, after closing
	// the connection, so a handler woken by the end cannot slip a last
	// message out after ctx is done. It keeps ctx's values.
	handlerCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()

	c := &connection{
		a:          a,
		conn:       conn,
		ctx:        handlerCtx,
		out:        make(chan outgoing),
		stop:       make(chan struct{}),
		writerDone: make(chan struct{}),
	}
	c.session = newSession(c, "mcptest-"+rand.Text(), a.notifyBuf)
	if err := a.server.RegisterSession(handlerCtx, c.session); err != nil {
		return fmt.Errorf("mcpgo: registering session %s: %w", c.session.id, err)
	}
	base := a.server.WithContext(handlerCtx, c.session)

	go c.writeLoop()
	c.readLoop(ctx, base)

	// The connection ended or ctx is done. Close the end (a no-op if it is
	// closed already) so the client sees the end too, cancel what is still
	// running, and wait for it before letting the writer go.
	conn.Close()
	cancel()
	c.handlers.Wait()
	a.server.UnregisterSession(context.WithoutCancel(handlerCtx), c.session.id)
	close(c.stop)
	<-c.writerDone
	return nil
}

// connection is the state of one Serve call.
type connection struct {
	a       *Adapter
	conn    *memtransport.Conn
	ctx     context.Context // cancelled once Serve has stopped reading and closed conn
	session *session

	handlers   sync.WaitGroup // one per request being handled
	requests   sync.Map       // request id (JSON text) -> *inflight, while it is handled
	out        chan outgoing  // responses and server→client requests, to the writer
	stop       chan struct{}  // closed once no handler is left to write
	writerDone chan struct{}
}
