package gosdktest

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

// An Adapter is a go-sdk server as the mcptest harness serves it: its Serve
// method, which the harness calls once per connection, makes it an
// mcptest.Server. One Adapter may serve many connections, one after another
// or at once; each gets its own server session.
type Adapter struct {
	server *mcp.Server
	extra  func(*jsonrpc.Request) *mcp.RequestExtra
}

// Option configures an [Adapter].
type Option func(*Adapter)

// WithRequestExtra sets, on every incoming request, the transport metadata
// that an HTTP transport would provide (mcp.RequestExtra: HTTP headers, OAuth
// token info), so that auth-aware handlers can be tested in memory. The
// function is called once per request, from the connection's reading
// goroutine, with the decoded request; it may return nil.
func WithRequestExtra(extra func(*jsonrpc.Request) *mcp.RequestExtra) Option {
	return func(a *Adapter) { a.extra = extra }
}

// Server adapts s for the mcptest harness: mcptest.Connect(t,
// gosdktest.Server(s)). The Adapter serves s as it is, with the options it was
// built with (to restrict the protocol versions s offers, build it with
// mcp.ServerOptions.SupportedProtocolVersions, go-sdk v1.8.0 and later).
// Serving adds one receiving middleware to s, once however often s is
// served, that acts only on the Adapter's own sessions (see the package
// documentation).
func Server(s *mcp.Server, opts ...Option) *Adapter {
	if s == nil {
		panic("gosdk.Server: nil *mcp.Server")
	}
	a := &Adapter{server: s}
	for _, o := range opts {
		o(a)
	}
	return a
}

// Serve serves the server on conn until conn is closed (by either end) or ctx
// is done (Serve then closes conn), then waits for the session to end: the
// handlers still running are cancelled and Serve returns once they have
// returned. It returns nil when the connection ended normally, even if
// handlers were still answering, and an error when the session broke (for
// example, the SDK ends a session that receives malformed JSON, or fails to
// send a message for a reason other than the end of the connection, and
// Serve then returns that error).
//
// Values in ctx reach every handler's context; this is how the harness hands
// the panic recovery its reporter.
func (a *Adapter) Serve(ctx context.Context, conn *memtransport.Conn) error {
	if conn == nil {
		return errors.New("gosdk: Serve: nil connection")
	}
	addLastResort(a.server)
	// ended is done once the connection has ended: the layer cancels the
	// handlers still running then (see endHandlers).
	ended, endSession := context.WithCancelCause(context.Background())
	defer endSession(nil)
	ctx = context.WithValue(ctx, servingKey{}, ended)

	t := &transport{conn: conn, extra: a.extra, ready: make(chan struct{})}
	ss, err := a.server.Connect(ctx, t, nil)
	// The SDK starts reading inside Connect but finishes setting the
	// session up after; messages the client already sent must wait for it.
	close(t.ready)
	if err != nil {
		return fmt.Errorf("gosdk: connecting the server: %w", err)
	}

	select {
	case <-conn.Done():
	case <-ctx.Done():
		conn.Close()
	}
	endSession(io.EOF)
	// The connection has ended, and the session reads that as the end of its
	// input (io.EOF): the SDK's normal end. It stops reading, the handlers
	// still running are cancelled (by the SDK from v1.7.0, by endSession
	// before), and Wait returns once they have answered;
	// answers that meet the closed end are part of that normal end.
	// ServerSession.Close must not come first: it marks the session as
	// closing, after which the answer of a handler still running (and of a
	// request still queued) fails with -32004 "server is closing", which
	// jsonrpc2 records as a broken writer and Wait reports.
	waitErr := ss.Wait()
	// The session is over; Close only releases what it left (the keepalive,
	// the server's per-session bookkeeping).
	closeErr := ss.Close()
	if waitErr != nil && !closedWhileAnswering(waitErr) {
		return fmt.Errorf("gosdk: session ended: %w", waitErr)
	}
	if closeErr != nil && !errors.Is(closeErr, io.ErrClosedPipe) {
		return fmt.Errorf("gosdk: closing the session: %w", closeErr)
	}
	return nil
}

// codeServerClosing is the code of jsonrpc2's ErrServerClosing, the error of
// a message a session refuses to send once ServerSession.Close has begun.
const codeServerClosing = -32004

// closedWhileAnswering reports whether err, why the session ended, says only
// that ServerSession.Close began while an answer was still to be written.
// jsonrpc2 records that refusal as if the writer had broken, but the
// connection did not fail: a failed read or write is recorded first and
// kept. Serve no longer closes the session before it has ended, but the
// SDK's keepalive does when its pings meet the closed connection, and so may
// the server's own code.
func closedWhileAnswering(err error) bool {
	var wire *jsonrpc.Error
	return errors.As(err, &wire) && wire.Code == codeServerClosing
}
