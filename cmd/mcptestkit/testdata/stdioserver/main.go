// Command stdioserver is the stdio server the mcptestkit command's tests
// check: the Bookshop example served on stdin/stdout with go-sdk. With
// STDIOSERVER_BROKEN=1 it serves a broken server instead: a tool without a
// description whose handler panics with no crash guard installed, so the
// process dies on the first call.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/examples/bookshop"
)

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	s := bookshop.New(logger)
	if os.Getenv("STDIOSERVER_BROKEN") == "1" {
		s = broken()
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintf(os.Stderr, "stdioserver: %v\n", err)
		os.Exit(1)
	}
}

type explodeIn struct {
	Fuse string `json:"fuse"`
}

func broken() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "broken", Version: "0.0.1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "explode"}, func(ctx context.Context, _ *mcp.CallToolRequest, in explodeIn) (*mcp.CallToolResult, any, error) {
		panic("the fuse " + in.Fuse + " was lit")
	})
	return s
}
