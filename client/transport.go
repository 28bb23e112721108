package client

import "context"

// Transport carries whole JSON-RPC messages between a client and one server.
// Each Send and each Receive is exactly one message (the encoded JSON of one
// request, notification or response); framing is the transport's business.
//
// A [github.com/mcptestkit/mcptestkit/memtransport.Conn] is a Transport, and
// package [github.com/mcptestkit/mcptestkit/client/transport] has the stdio
// subprocess and streamable HTTP transports.
//
// The client calls Send from several goroutines at once and Receive from one.
//
// A Transport that wraps another (to record or log messages) should have a
// method Unwrap() Transport returning it, so that the client reaches what
// the inner transport offers beyond these three methods (the streamable
// HTTP transport's per-tool headers).
type Transport interface {
	// Send delivers one message. The transport owns msg once Send is called;
	// the caller does not touch it again.
	Send(ctx context.Context, msg []byte) error
	// Receive blocks until the next message arrives, ctx is done, or the
	// connection ends. The caller owns the returned slice. After the
	// connection ends, every call returns a non-nil error.
	Receive(ctx context.Context) ([]byte, error)
	// Close ends the connection and releases everything the transport holds.
	// It is safe to call more than once.
	Close() error
}
