package sdktest

import (
	"context"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Transport is a go-sdk client mcp.Transport over a memtransport end, the
// client side of a pair whose server end an adapter serves.
type Transport struct {
	// Conn is the client's end of the pair.
	Conn *memtransport.Conn
}

var _ mcp.Transport = Transport{}

// Connect returns the connection over t.Conn; it never fails.
func (t Transport) Connect(context.Context) (mcp.Connection, error) {
	return connection(t), nil
}

type connection struct {
	Conn *memtransport.Conn
}

// Read returns the next message. A closed connection reads as io.EOF, the
// go-sdk's signal for a normal end.
func (c connection) Read(ctx context.Context) (jsonrpc.Message, error) {
	data, err := c.Conn.Receive(ctx)
	if errors.Is(err, io.ErrClosedPipe) {
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	return jsonrpc.DecodeMessage(data)
}

func (c connection) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.Conn.Send(ctx, data)
}

func (c connection) Close() error { return c.Conn.Close() }

// SessionID is empty, as for a stdio connection.
func (c connection) SessionID() string { return "" }
