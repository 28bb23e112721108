package gosdk_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/gosdk"
	"github.com/mcptestkit/mcptestkit/guard"
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

type authorIn struct {
	Title string `json:"title"`
}

func ExampleGuard() {
	ctx := context.Background()
	logger := stdoutLogger()

	catalog := map[string]string{"Dune": "Frank Herbert"}
	srv := mcp.NewServer(&mcp.Implementation{Name: "bookshop", Version: "v1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, &mcp.Tool{Name: "get_author"}, func(_ context.Context, _ *mcp.CallToolRequest, in authorIn) (*mcp.CallToolResult, any, error) {
		if in.Title == "" {
			panic("empty title") // a bug: the client must not see this text
		}
		author, ok := catalog[in.Title]
		if !ok {
			return nil, nil, fmt.Errorf("No book titled %q in the catalog.", in.Title)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: author}}}, nil, nil
	})
	srv.AddReceivingMiddleware(gosdk.Guard(logger)) // the one line a server needs

	// Serve in memory and call the tool, as any client would.
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := srv.Connect(ctx, st, nil)
	defer ss.Wait()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()

	for _, title := range []string{"Nothing", ""} {
		res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_author", Arguments: authorIn{Title: title}})
		fmt.Printf("client sees isError=%v %q\n", res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// level=INFO msg="tool returned an error" method=tools/call tool=get_author error="No book titled \"Nothing\" in the catalog."
	// client sees isError=true "No book titled \"Nothing\" in the catalog."
	// level=ERROR msg="tool handler panicked" method=tools/call tool=get_author panic="empty title" stack="goroutine …"
	// client sees isError=true "Error executing tool get_author"
}
