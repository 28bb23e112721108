package servercheck_test

import (
	"context"
	"strings"
	"testing"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// The checks of requests a client sends by mistake, and the monitor's
// rules of _meta, error codes, subscriptions and listings, on the SDKs'
// servers at both eras: nothing fails, and what warns is the SDK's own
// (neither rejects a log level that does not exist at 2026-07-28, nor
// go-sdk at 2025-11-25: a SHOULD of server/utilities/logging).
func TestMalformedRequestChecksOnSDKServers(t *testing.T) {
	gs := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	mcp.AddTool(gs, &mcp.Tool{Name: "note", Description: "Take a note."}, func(context.Context, *mcp.CallToolRequest, noteIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	ms := mcpgoserver.NewMCPServer("m", "v0", mcpgoserver.WithLogging(), mcpgoserver.WithToolCapabilities(true))
	ms.AddTool(mcpgomcp.NewTool("note", mcpgomcp.WithDescription("Take a note."), mcpgomcp.WithString("text", mcpgomcp.Description("the text"))),
		func(ctx context.Context, r mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
			return mcpgomcp.NewToolResultText("ok"), nil
		})
	monitorRules := []string{"meta-key", "error-code", "server-request-id", "server-cancelled", "subscription", "server-info",
		"cache-scope", "list-order", "structured-text", "embedded-resource", "uri-syntax", "header-annotation"}
	for name, srv := range map[string]mcptest.Server{"go-sdk": gosdktest.Server(gs), "mcp-go": mcpgotest.Server(ms)} {
		for _, v := range []string{"", client.LatestLegacyVersion} {
			t.Run(name+"/"+v, func(t *testing.T) {
				results := map[string]servercheck.Result{}
				_ = servercheck.Run(t.Context(), inMemory(srv), &servercheck.Options{Version: v, OnResult: func(r servercheck.Result) { results[r.Name] = r }})
				for _, check := range []string{"invalid-cancellation", "version-negotiation"} {
					assert.Equal(t, servercheck.Pass, results[check].Status, "%s", results[check])
				}
				meta, level := results["required-meta"], results["invalid-log-level"]
				if v == "" {
					assert.Equal(t, servercheck.Pass, meta.Status, "%s", meta)
					assert.Equal(t, servercheck.Pass, results["stateless"].Status, "%s", results["stateless"])
					assert.Equal(t, servercheck.Pass, results["monitor/server-info"].Status, "%s", results["monitor/server-info"])
					assert.Equal(t, servercheck.Pass, results["monitor/cache-scope"].Status, "%s", results["monitor/cache-scope"])
				} else {
					assert.Equal(t, servercheck.Skip, meta.Status, "%s", meta)
				}
				if name == "mcp-go" && v != "" {
					assert.Equal(t, servercheck.Pass, level.Status, "%s", level)
				} else {
					assert.Equal(t, servercheck.Warn, level.Status, "%s", level)
					assert.Contains(t, level.Detail, "with a log level that does not exist")
				}
				assert.Equal(t, servercheck.Pass, results["monitor/meta-key"].Status, "%s", results["monitor/meta-key"])
				for _, rule := range monitorRules {
					r := results["monitor/"+rule]
					assert.Contains(t, []servercheck.Status{servercheck.Pass, servercheck.Skip}, r.Status, "%s", r)
					if r.Status == servercheck.Skip {
						assert.True(t, strings.HasPrefix(r.Detail, "not judged"), r.Detail)
					}
				}
			})
		}
	}
}
