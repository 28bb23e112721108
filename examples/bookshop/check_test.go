package bookshop_test

import (
	"log/slog"
	"testing"

	"github.com/mcptestkit/mcptestkit/examples/bookshop"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// The first test to write for a server: the whole protocol and error
// contract, checked against what the server declares and lists.
func TestCheckServer(t *testing.T) {
	logs := logcapture.New(t)
	mcptest.CheckServer(t, gosdktest.Server(bookshop.New(logs.Logger())), mcptest.CheckLogs(logs),
		// go-sdk v1.8.0 ends the session on a frame it cannot decode (its
		// stdio transport does the same) instead of answering -32700.
		mcptest.SkipChecks("malformed-frame"))
}

// The same invariants, driven by go test -fuzz=FuzzServer: arguments that
// conform and nearly conform to each tool's schema, and raw requests.
// Without -fuzz, go test runs the seed inputs.
func FuzzServer(f *testing.F) {
	mcptest.Fuzz(f, gosdktest.Server(bookshop.New(slog.New(slog.DiscardHandler))))
}
