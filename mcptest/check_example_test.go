package mcptest_test

import (
	"log/slog"
	"testing"

	"github.com/mcptestkit/mcptestkit/examples/bookshop"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// The first test of a server: every check of package servercheck, each a
// subtest. With the server's logs, a crash must also log one ERROR record
// with its stack.
func ExampleCheckServer() {
	_ = func(t *testing.T) {
		logs := logcapture.New(t)
		mcptest.CheckServer(t, gosdktest.Server(bookshop.New(logs.Logger())),
			mcptest.CheckLogs(logs),
			// go-sdk ends the session on a frame it cannot decode.
			mcptest.SkipChecks("malformed-frame"))
	}
}

// Fuzz the server's tools with go test -fuzz=FuzzServer.
func ExampleFuzz() {
	_ = func(f *testing.F) {
		mcptest.Fuzz(f, gosdktest.Server(bookshop.New(slog.New(slog.DiscardHandler))))
	}
}
