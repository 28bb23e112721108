package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// A go-sdk server with one tool, served in memory.
func exampleServer() *gosdktest.Adapter {
	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	type in struct {
		Name string `json:"name,omitempty"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "greet"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		if a.Name == "" {
			return nil, nil, errors.New("name is required")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + a.Name + "!"}}}, nil, nil
	})
	return gosdktest.Server(s)
}

func Example() {
	ctx := context.Background()
	clientEnd, serverEnd := memtransport.Pair()
	served := make(chan error, 1)
	go func() { served <- exampleServer().Serve(ctx, serverEnd) }()

	c, err := client.Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		c.Close()
		<-served
	}()
	fmt.Println("protocol:", c.ProtocolVersion(), "server:", c.ServerInfo().Name)

	res, err := c.CallTool(ctx, "greet", map[string]any{"name": "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text())

	// A failing tool is a result, not an error.
	res, err = c.CallTool(ctx, "greet", map[string]any{})
	fmt.Println(err, res.IsError, res.Text())

	// A protocol error is an *client.Error.
	_, err = c.CallTool(ctx, "wave", nil)
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code == client.CodeInvalidParams, e.Message)
	}
	// Output:
	// protocol: 2026-07-28 server: greeter
	// Hello, Ada!
	// <nil> true name is required
	// true unknown tool "wave"
}

func ExampleConnect_pinned() {
	ctx := context.Background()
	clientEnd, serverEnd := memtransport.Pair()
	served := make(chan error, 1)
	go func() { served <- exampleServer().Serve(ctx, serverEnd) }()

	// Pin a legacy version: the initialize handshake, no probe.
	c, err := client.Connect(ctx, clientEnd, &client.Options{ProtocolVersion: client.Version20250618})
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		c.Close()
		<-served
	}()
	for tool, err := range c.Tools(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(c.ProtocolVersion(), tool.Name)
	}
	// Output:
	// 2025-06-18 greet
}

func ExampleWithProgress() {
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "worker", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "work", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for i := 1; i <= 2; i++ {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 2})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	clientEnd, serverEnd := memtransport.Pair()
	served := make(chan error, 1)
	go func() { served <- gosdktest.Server(s).Serve(ctx, serverEnd) }()
	c, err := client.Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		c.Close()
		<-served
	}()

	res, err := c.CallTool(ctx, "work", nil, client.WithProgress(func(p client.Progress) {
		fmt.Printf("progress %v/%v\n", p.Progress, p.Total)
	}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text())
	// Output:
	// progress 1/2
	// progress 2/2
	// done
}
