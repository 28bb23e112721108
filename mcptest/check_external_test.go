package mcptest

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// Over stdio, a tool that kills the process and one that never answers
// each fail their check, and the checks after them still run on a fresh
// process.
func TestCheckTransportStdio(t *testing.T) {
	t.Parallel()
	bin, err := cmdServerBuild()
	if err != nil {
		t.Fatal(err)
	}
	f := runFake(t, func(tb testing.TB) {
		CheckTransport(tb, servercheck.Command(exec.Command(bin)), func(o *servercheck.Options) { o.Timeout = 2 * time.Second })
	})
	f.expectFailure(t,
		"tools/calls/crash: called tool \"crash\" with arguments {}\nthe connection broke",
		"tools/calls/hang: called tool \"hang\" with arguments {}\nno answer within 2s",
	)
	out := f.output()
	for _, unexpected := range []string{"tools/calls/echo:", "tools/unknown-tool:", "handshake/"} {
		if strings.Contains(out, unexpected) {
			t.Errorf("unexpected failure %q:\n%s", unexpected, out)
		}
	}
}

// A streamable HTTP handler in the process passes like the server it
// serves.
func TestCheckTransportHTTPHandler(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		CheckTransport(tb, servercheck.Handler(probeServer().handler()))
	})
	f.expectPass(t)
}
