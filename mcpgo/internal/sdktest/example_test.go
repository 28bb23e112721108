package sdktest_test

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// The test kit's client talks to the adapter over a memtransport pair: the
// client end is a client.Transport. (In a test, adaptertest.Serve and
// Served.Connect do this and clean up.)
func Example() {
	srv := server.NewMCPServer("greeter", "v1")
	srv.AddTool(mcp.NewTool("greet", mcp.WithString("name")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("Hello, " + req.GetString("name", "")), nil
	})

	ctx := context.Background()
	end, srvEnd := memtransport.Pair()
	done := make(chan error, 1)
	go func() { done <- mcpgotest.Server(srv).Serve(ctx, srvEnd) }()

	c, err := client.Connect(ctx, end, &client.Options{ProtocolVersion: "2025-06-18"})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := c.CallTool(ctx, "greet", map[string]any{"name": "Ada"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.ProtocolVersion(), res.Text())
	fmt.Println("close:", c.Close(), "Serve:", <-done)
	// Output:
	// 2025-06-18 Hello, Ada
	// close: <nil> Serve: <nil>
}
