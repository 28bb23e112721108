package servercheck_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/examples/bookshop"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Run the checks outside a test, reporting each as it finishes.
func Example() {
	// Any Dialer: here the server's streamable HTTP handler, called in the
	// process; servercheck.Command(exec.Command(...)) for a program.
	srv := bookshop.New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	dial := func(context.Context) (client.Transport, error) { return transport.Handler(h), nil }
	failed := 0
	err := servercheck.Run(context.Background(), dial, &servercheck.Options{
		Run:  "tools",
		Skip: []string{"tools/cancellation"},
		OnResult: func(r servercheck.Result) {
			if r.Status == servercheck.Fail {
				failed++
			}
			fmt.Println(r.Status, r.Name)
		},
	})
	fmt.Println(failed, err)
	// Output:
	// pass tools/list
	// pass tools/names
	// pass tools/descriptions
	// pass tools/schemas/books_by_author
	// pass tools/schemas/get_author
	// pass tools/x-mcp-header
	// pass tools/calls/books_by_author
	// pass tools/calls/get_author
	// pass tools/invalid-arguments/books_by_author
	// pass tools/invalid-arguments/get_author
	// pass tools/unknown-tool
	// skip tools/progress
	// skip tools/cancellation
	// 0 <nil>
}
