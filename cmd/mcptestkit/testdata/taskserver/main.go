// Command taskserver is the stdio server with task tools that the
// mcptestkit command's tests call: the Reports of examples/tasks (mcp-go
// v1.2.1), which has tasks at 2025-11-25 only.
package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptestkit/mcptestkit/examples/tasks"
)

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := server.ServeStdio(tasks.New(logger)); err != nil {
		fmt.Fprintf(os.Stderr, "taskserver: %v\n", err)
		os.Exit(1)
	}
}
