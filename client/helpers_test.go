package client

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/mcptest/gosdk"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// server is what both SDK adapters provide.
type server interface {
	Serve(ctx context.Context, conn *memtransport.Conn) error
}

// connect serves srv on one end of a memtransport pair (made with popts)
// and connects a client to the other. Cleanup closes the client and waits
// for the server.
func connect(t testing.TB, srv server, opts *Options, popts ...memtransport.Option) (*Client, *memtransport.Conn) {
	t.Helper()
	c, end, err := tryConnect(t, srv, opts, popts...)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	return c, end
}

func tryConnect(t testing.TB, srv server, opts *Options, popts ...memtransport.Option) (*Client, *memtransport.Conn, error) {
	t.Helper()
	ce, se := memtransport.Pair(popts...)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), se) }()
	c, err := Connect(t.Context(), ce, opts)
	t.Cleanup(func() {
		if c != nil {
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
		ce.Close()
		if err := <-done; err != nil {
			t.Logf("server Serve: %v", err)
		}
	})
	return c, ce, err
}

func goSDK(s *mcp.Server, opts ...gosdk.Option) server { return gosdk.Server(s, opts...) }
