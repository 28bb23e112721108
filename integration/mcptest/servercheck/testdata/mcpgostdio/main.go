// Command mcpgostdio is an mcp-go server over stdio shaped like
// github.com/grafana/mcp-grafana: a resource whose unknown URIs mcp-go
// answers with its own not-found error (-32002 up to 2025-11-25).
package main

import (
	"context"
	"log"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	s := server.NewMCPServer("grafana-shaped", "v0", server.WithResourceCapabilities(false, false))
	s.AddResource(mcp.NewResource("dashboards://home", "home", mcp.WithMIMEType("application/json")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "dashboards://home", MIMEType: "application/json", Text: `{"title":"Home"}`}}, nil
		})
	s.AddTool(mcp.NewTool("search_dashboards", mcp.WithDescription("Searches dashboards by title."), mcp.WithString("query", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("no dashboards match " + req.GetString("query", "")), nil
		})
	if err := server.ServeStdio(s); err != nil {
		log.Fatal(err)
	}
}
