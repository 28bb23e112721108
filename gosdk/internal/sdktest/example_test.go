package sdktest_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// The go-sdk client talks to an adapter over a memtransport pair, at the
// newest version both ends of the linked release speak.
func ExampleTransport() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "greet"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Name string `json:"name"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name}}}, nil, nil
	})

	ctx := context.Background()
	client, server := memtransport.Pair()
	done := make(chan error, 1)
	go func() { done <- gosdktest.Server(srv).Serve(ctx, server) }()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil).
		Connect(ctx, sdktest.Transport{Conn: client}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	fmt.Println("close:", cs.Close(), "Serve:", <-done)
	// Output:
	// Hello, Ada
	// close: <nil> Serve: <nil>
}
