// Command cmdserver is the stdio MCP server mcptest's Command server tests
// start as a subprocess: a go-sdk server with tools that answer, hang and
// crash. CMDSERVER_MODE picks how it behaves around the session:
//
//	(unset)       serve until stdin closes, then exit 0
//	exit          write two lines on stderr and exit 3 before reading anything
//	linger        serve, then keep running after stdin closed (ignores SIGTERM)
//	fail-on-exit  serve, then exit 1 after stdin closed
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

func main() {
	mode := os.Getenv("CMDSERVER_MODE")
	if mode == "exit" {
		fmt.Fprintln(os.Stderr, "cmdserver: loading config")
		fmt.Fprintln(os.Stderr, "cmdserver: fatal: no such file /nonexistent/cmdserver.toml")
		os.Exit(3)
	}
	if mode == "linger" {
		signal.Ignore(syscall.SIGTERM)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "cmdserver", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			fmt.Fprintf(os.Stderr, "cmdserver: echo %q\n", in.Text)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Answer only when cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "cmdserver: hang: waiting for cancellation")
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Answer with 1 MB of text."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("a", 1<<20)}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit with status 3 in the middle of a call."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "cmdserver: crash: the database handle is gone")
			os.Exit(3)
			return nil, nil, nil
		})
	err := s.Run(context.Background(), &mcp.StdioTransport{})
	fmt.Fprintf(os.Stderr, "cmdserver: stdin closed (%v)\n", err)
	switch mode {
	case "linger":
		for {
			time.Sleep(time.Hour) // until SIGKILL
		}
	case "fail-on-exit":
		os.Exit(1)
	}
}
