package servercheck

import (
	"context"
	"time"

	"github.com/mcptestkit/mcptestkit/mcptest/internal/inmem"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// InProcess returns a Dialer that serves srv in this process: each
// connection calls srv.Serve with one end of a fresh [memtransport.Pair]
// and talks to the other. srv has the shape of mcptest.Server, so an SDK
// server's adapter (gosdktest.Server, mcpgotest.Server) or an
// mcptest.ServerFunc is one:
//
//	err := servercheck.Run(ctx, servercheck.InProcess(gosdktest.Server(srv)), opts)
//
// Serve runs with the values of the dial's context but not its
// cancellation, so that a panic the adapter's last-resort recovery reports
// reaches the checks; so does one in Serve's own goroutine, which is
// recovered. Closing the connection stops the server as mcptest's harness
// does: it closes the server's end and waits up to 5 seconds for Serve to
// return, then cancels Serve's context and waits up to 5 seconds more.
// Close returns an error when Serve did not return when its connection
// closed; one still running after both waits is left running.
//
// It is why servercheck, which otherwise reaches servers through client
// alone, imports memtransport: the in-memory connection is a package below
// both, of the standard library only, that knows nothing of MCP or testing.
func InProcess(srv interface {
	Serve(ctx context.Context, conn *memtransport.Conn) error
}) Dialer {
	return inmem.Dialer(srv, inmem.StopWithin(inProcessGrace))
}

// inProcessGrace is how long closing a connection of [InProcess] waits for
// Serve to return, once before and once after cancelling its context.
const inProcessGrace = 5 * time.Second
