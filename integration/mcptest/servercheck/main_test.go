package servercheck_test

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// inMemory serves srv on a fresh in-memory connection for each connection
// the checks open: these tests call servercheck's engine directly, as a
// program would.
func inMemory(srv mcptest.Server) servercheck.Dialer { return servercheck.InProcess(srv) }

// url is a Dialer for a streamable HTTP endpoint.
func url(u string) servercheck.Dialer {
	return func(context.Context) (client.Transport, error) { return transport.HTTP(u), nil }
}
