package servercheck_test

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// server is what these tests serve in memory: an SDK's adapter.
type server interface {
	Serve(ctx context.Context, conn *memtransport.Conn) error
}

// inMemory is a Dialer that serves srv on a fresh in-memory connection for
// each connection the checks open, as mcptest.CheckServer does (with more
// care: a Serve that does not return is reported there); these tests call
// servercheck's engine directly, as a program would.
func inMemory(srv server) servercheck.Dialer {
	return func(ctx context.Context) (client.Transport, error) {
		cli, end := memtransport.Pair()
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = srv.Serve(context.WithoutCancel(ctx), end)
		}()
		return &served{Conn: cli, end: end, done: done}, nil
	}
}

type served struct {
	*memtransport.Conn
	end  *memtransport.Conn
	done chan struct{}
}

func (s *served) Close() error {
	err := s.Conn.Close()
	_ = s.end.Close()
	<-s.done
	return err
}

// url is a Dialer for a streamable HTTP endpoint.
func url(u string) servercheck.Dialer {
	return func(context.Context) (client.Transport, error) { return transport.HTTP(u), nil }
}
