package mcpgotest_test

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Serve an mcp-go server on the server end of a pair and send it raw
// JSON-RPC from the client end. (In a test, mcptest.Connect does all of
// this and hands back a client.)
func ExampleServer() {
	s := server.NewMCPServer("greeter", "v1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("greet", mcp.WithString("name")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("Hello, " + req.GetString("name", "stranger")), nil
	})

	ctx := context.Background()
	client, end := memtransport.Pair()
	done := make(chan error, 1)
	go func() { done <- mcpgotest.Server(s).Serve(ctx, end) }()

	_ = client.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`))
	resp, _ := client.Receive(ctx)
	fmt.Printf("%s\n", resp)

	// Malformed input is answered, and the session goes on.
	_ = client.SendRaw(ctx, []byte(`{"jsonrpc":`))
	resp, _ = client.Receive(ctx)
	fmt.Printf("%s\n", resp)

	_ = client.Close()
	fmt.Println("Serve returned:", <-done)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Hello, Ada"}]}}
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}
	// Serve returned: <nil>
}
