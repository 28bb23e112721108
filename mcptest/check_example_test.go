package mcptest_test

import (
	"testing"

	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// The first test of a server: every check of package servercheck, each a
// subtest. With the server's logs, a crash must also log one ERROR record
// with its stack.
func ExampleCheckServer() {
	_ = func(t *testing.T) {
		logs := logcapture.New(t)
		// The server under test, logging to logs.Logger(), behind its SDK's
		// adapter: gosdktest.Server(bookshop.New(logs.Logger())) for the
		// go-sdk Bookshop of examples/bookshop.
		var srv mcptest.Server
		mcptest.CheckServer(t, srv,
			mcptest.CheckLogs(logs),
			// go-sdk ends the session on a frame it cannot decode.
			mcptest.SkipChecks("malformed-frame"))
	}
}

// Fuzz the server's tools with go test -fuzz=FuzzServer.
func ExampleFuzz() {
	_ = func(f *testing.F) {
		var srv mcptest.Server // gosdktest.Server(s), mcpgotest.Server(s)
		mcptest.Fuzz(f, srv)
	}
}
