package transport_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// greeter is a small go-sdk server for the examples.
func greeter() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	type in struct {
		Name string `json:"name"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Say hello."},
		func(ctx context.Context, req *mcp.CallToolRequest, args in) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + args.Name + "!"}}}, nil, nil
		})
	return s
}

// Serve a streamable HTTP handler in-process and talk to it with the client,
// the way a remote client would, without opening a socket.
func ExampleHandler() {
	s := greeter()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true})

	ctx := context.Background()
	c, err := client.Connect(ctx, transport.Handler(h), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	res, err := c.CallTool(ctx, "greet", map[string]any{"name": "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.ProtocolVersion(), res.Content[0].(*client.TextContent).Text)
	// Output: 2026-07-28 Hello, Ada!
}

// Connect to a server over HTTP. This one keeps legacy sessions, so the
// client's 2026-07-28 probe is refused and it falls back to initialize; the
// transport keeps the session and ends it on Close.
func ExampleHTTP() {
	s := greeter()
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer srv.Close()

	ctx := context.Background()
	tr := transport.HTTP(srv.URL, transport.WithHeader("Authorization", "Bearer example"))
	c, err := client.Connect(ctx, tr, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	res, err := c.CallTool(ctx, "greet", map[string]any{"name": "Grace"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.ProtocolVersion(), tr.SessionID() != "", res.Content[0].(*client.TextContent).Text)
	// Output: 2025-11-25 true Hello, Grace!
}
