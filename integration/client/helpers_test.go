package client_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/mcptestkit/mcptestkit/client"

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

func eventOptions(events chan<- string) *Options {
	return &Options{
		OnToolListChanged:     func() { events <- "tools" },
		OnPromptListChanged:   func() { events <- "prompts" },
		OnResourceListChanged: func() { events <- "resources" },
		OnResourceUpdated:     func(uri string) { events <- "updated " + uri },
	}
}

// expectEvent waits for the next event; the fixtures' servers send them
// promptly (go-sdk after a 10ms debounce).
func expectEvent(t *testing.T, events <-chan string, want string) {
	t.Helper()
	select {
	case got := <-events:
		require.Equal(t, want, got)
	case <-t.Context().Done():
		t.Fatalf("no %q event", want)
	}
}
