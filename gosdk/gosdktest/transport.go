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

// transport is the mcp.Transport for one Serve call.
type transport struct {
	conn  *memtransport.Conn
	extra func(*jsonrpc.Request) *mcp.RequestExtra
	ready chan struct{} // closed once Server.Connect has returned
}

var (
	_ mcp.Transport  = (*transport)(nil)
	_ mcp.Connection = (*connection)(nil)
)

func (t *transport) Connect(context.Context) (mcp.Connection, error) {
	return &connection{t: t}, nil
}

// errWriteClosed is what Write returns on an ended connection. It matches
// io.EOF, which the SDK treats as a normal end rather than a failure.
var errWriteClosed = fmt.Errorf("gosdk: writing to a closed connection: %w", io.EOF)

type connection struct {
	t       *transport
	started bool // Read has seen ready; only the SDK's one reader touches it
}

// Read returns the next message from the client. A closed connection reads
// as io.EOF, the SDK's signal for a normal end. Malformed input is an error,
// which ends the session, as the SDK's own stdio transport does.
func (c *connection) Read(ctx context.Context) (jsonrpc.Message, error) {
	conn := c.t.conn
	if !c.started {
		select {
		case <-c.t.ready:
			c.started = true
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-conn.Done():
			return nil, io.EOF
		}
	}
	data, err := conn.Receive(ctx)
	if err != nil {
		if errors.Is(err, io.ErrClosedPipe) {
			return nil, io.EOF
		}
		return nil, err
	}
	msg, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("gosdk: decoding a message from the client: %w (message: %s)", err, clip(data))
	}
	if req, ok := msg.(*jsonrpc.Request); ok && c.t.extra != nil {
		if extra := c.t.extra(req); extra != nil {
			req.Extra = extra
		}
	}
	return msg, nil
}

// Write encodes msg the way the SDK's transports do and sends it.
func (c *connection) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := encode(msg)
	if err != nil {
		return fmt.Errorf("gosdk: encoding a message for the client: %w", err)
	}
	if err := c.t.conn.Send(ctx, data); err != nil {
		if errors.Is(err, io.ErrClosedPipe) {
			return errWriteClosed
		}
		return fmt.Errorf("gosdk: sending a message to the client: %w", err)
	}
	return nil
}

func (c *connection) Close() error { return c.t.conn.Close() }

// SessionID is empty, as for the SDK's stdio transport.
func (c *connection) SessionID() string { return "" }

// clip shortens a message for an error text.
func clip(data []byte) string {
	const limit = 200
	if len(data) > limit {
		return fmt.Sprintf("%q… (%d bytes)", data[:limit], len(data))
	}
	return fmt.Sprintf("%q", data)
}
