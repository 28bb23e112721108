package gosdktest_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Serve a go-sdk server on the server end of a pair and send it raw
// JSON-RPC from the client end. (In a test, mcptest.Connect does all of
// this and hands back a client.)
func ExampleServer() {
	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Name string `json:"name"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name}}}, nil, nil
	})

	ctx := context.Background()
	client, server := memtransport.Pair()
	done := make(chan error, 1)
	go func() { done <- gosdktest.Server(s).Serve(ctx, server) }()

	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"v0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`,
	} {
		_ = client.Send(ctx, []byte(msg))
	}
	_, _ = client.Receive(ctx) // the initialize result
	resp, _ := client.Receive(ctx)
	fmt.Printf("%s\n", resp)

	_ = client.Close()
	fmt.Println("Serve returned:", <-done)
	// Output:
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Hello, Ada"}]}}
	// Serve returned: <nil>
}
