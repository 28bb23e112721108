package mcpgo_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptestkit/mcptestkit/guard"
	"github.com/mcptestkit/mcptestkit/mcpgo"
)

// stdoutLogger logs as text to stdout without the time, and with the stack
// cut to its first line, so that the example's output is stable.
func stdoutLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			switch a.Key {
			case slog.TimeKey:
				return slog.Attr{}
			case guard.StackKey:
				return slog.String(a.Key, "goroutine …")
			}
			return a
		},
	}))
}

func ExampleGuard() {
	ctx := context.Background()
	logger := stdoutLogger()

	catalog := map[string]string{"Dune": "Frank Herbert"}
	srv := server.NewMCPServer("bookshop", "1.0",
		mcpgo.Guard(logger, guard.ToolErrorsAsResults), // first, so that it is the outermost middleware
	)
	srv.AddTool(mcp.NewTool("get_author", mcp.WithString("title")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		title := req.GetString("title", "")
		if title == "" {
			panic("empty title") // a bug: the client must not see this text
		}
		author, ok := catalog[title]
		if !ok {
			return nil, fmt.Errorf("No book titled %q in the catalog.", title)
		}
		return mcp.NewToolResultText(author), nil
	})

	// Call the tool in process, as any client would.
	c, _ := client.NewInProcessClient(srv)
	defer c.Close()
	_ = c.Start(ctx)
	_, _ = c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION}})

	for _, title := range []string{"Nothing", ""} {
		req := mcp.CallToolRequest{}
		req.Params.Name = "get_author"
		req.Params.Arguments = map[string]any{"title": title}
		res, _ := c.CallTool(ctx, req)
		fmt.Printf("client sees isError=%v %q\n", res.IsError, res.Content[0].(mcp.TextContent).Text)
	}
	// Output:
	// level=INFO msg="tool returned an error" method=tools/call tool=get_author error="No book titled \"Nothing\" in the catalog."
	// client sees isError=true "No book titled \"Nothing\" in the catalog."
	// level=ERROR msg="tool handler panicked" method=tools/call tool=get_author panic="empty title" stack="goroutine …"
	// client sees isError=true "Error executing tool get_author"
}
