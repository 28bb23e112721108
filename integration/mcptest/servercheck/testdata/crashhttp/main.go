// Command crashhttp is a go-sdk server over streamable HTTP whose tool
// "boom" crashes the process, as a panic in a goroutine of a handler
// does: TestCheckServerHTTPProcessDies checks what CheckServer says of it.
//
// Usage: crashhttp ADDR
package main

import (
	"context"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "crashhttp", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Says its text again."}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "boom", Description: "Crashes the server."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			panic("boom: a goroutine's panic, which nothing recovers") // ends the process
		}()
		<-done
		time.Sleep(time.Second)
		return nil, nil, nil
	})
	srv := &http.Server{Addr: os.Args[1], Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)}
	log.Fatal(srv.ListenAndServe())
}
