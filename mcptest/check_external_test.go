package mcptest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Over stdio, a tool that kills the process and one that never answers
// each fail their check, and the checks after them still run on a fresh
// process: the Command server starts a copy of its command for each
// connection. The checks keep the default timeout: it bounds every start,
// handshake and call of the checks, and only the hang must run it out.
func TestCheckServerCommand(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) { CheckServer(tb, Command(cmdServer(tb, ""))) })
	f.expectFailure(t,
		"tools/calls/crash: called tool \"crash\" with arguments {}\nthe connection broke",
		"tools/calls/hang: called tool \"hang\" with arguments {}\nno answer within 10s",
	)
	out := f.output()
	for _, unexpected := range []string{"tools/calls/echo:", "tools/unknown-tool:", "handshake/"} {
		if strings.Contains(out, unexpected) {
			t.Errorf("unexpected failure %q:\n%s", unexpected, out)
		}
	}
}

// A streamable HTTP handler in the process passes like the server it
// serves, and so does its endpoint over a socket.
func TestCheckServerHandlerAndURL(t *testing.T) {
	t.Parallel()
	h := probeServer().handler()
	runFake(t, func(tb testing.TB) { CheckServer(tb, Handler(h)) }).expectPass(t)
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	runFake(t, func(tb testing.TB) { CheckServer(tb, URL(hs.URL)) }).expectPass(t)
}

// A Transport server's dial function opens each connection of the checks:
// a fresh in-memory pair served by the fake each time.
func TestCheckServerTransport(t *testing.T) {
	t.Parallel()
	var dials atomic.Int32
	dial := func(ctx context.Context) (client.Transport, error) {
		dials.Add(1)
		return memDialer(probeServer())(ctx)
	}
	runFake(t, func(tb testing.TB) { CheckServer(tb, Transport(dial)) }).expectPass(t)
	if n := dials.Load(); n < 2 {
		t.Errorf("the checks dialled %d time(s); they open a connection per protocol version at least", n)
	}
}

// Bad arguments to a constructor fail CheckServer and Fuzz as they fail
// Connect, before anything starts.
func TestCheckServerBadArguments(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		srv  Server
		want string
	}{
		{nil, "mcptest.CheckServer: the server is nil"},
		{Command(nil), "mcptest.CheckServer: mcptest.Command: the command is nil"},
		{Handler(nil), "mcptest.CheckServer: mcptest.Handler: the handler is nil"},
		{URL("localhost:8080/mcp"), `mcptest.CheckServer: mcptest.URL: bad URL "localhost:8080/mcp"`},
		{Transport(nil), "mcptest.CheckServer: mcptest.Transport: the dial function is nil"},
	} {
		runFake(t, func(tb testing.TB) { CheckServer(tb, c.srv) }).expectFailure(t, c.want)
	}
}

// The Serve method of a server the harness reaches through a transport
// says so, and closes the connection it was given, so that a client on the
// other end fails at once.
func TestExternalServeServesNothing(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		srv     Server
		instead string
	}{
		{Command(exec.Command("true")), "servercheck.Command"},
		{Handler(http.NotFoundHandler()), "transport.Handler"},
		{URL("http://127.0.0.1:1/mcp"), "transport.HTTP"},
		{Transport(memDialer(probeServer())), "servercheck.Run"},
	} {
		cli, srv := memtransport.Pair()
		err := c.srv.Serve(t.Context(), srv)
		if err == nil || !strings.Contains(err.Error(), "its Serve method serves nothing") || !strings.Contains(err.Error(), c.instead) {
			t.Errorf("%T.Serve: %v, want an error that says to use %s", c.srv, err, c.instead)
		}
		if _, err := cli.Receive(t.Context()); err == nil {
			t.Errorf("%T.Serve left the connection open", c.srv)
		}
	}
}
