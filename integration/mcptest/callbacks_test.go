package mcptest_test

//lint:file-ignore SA1019 sampling, roots and logging are deprecated as of 2026-07-28 (SEP-2577) but still served, and the kit tests them at every version

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// Issue 39: the check client answers what a tool asks of it (elicitation,
// sampling, roots), so the tool's path is checked, not skipped as "not
// judged": before, tools/calls/ask was skipped for want of callbacks.
func TestCheckServerAnswersInputRequests(t *testing.T) {
	t.Parallel()
	type askIn struct {
		Topic string `json:"topic"`
	}
	srv := probeServer(func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Ask the user, the model and the roots."},
			func(ctx context.Context, req *mcp.CallToolRequest, in askIn) (*mcp.CallToolResult, any, error) {
				el, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
					"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string", "minLength": 1}}, "required": []any{"name"}}})
				if err != nil {
					return nil, nil, err
				}
				name, _ := el.Content["name"].(string)
				if el.Action != "accept" || name == "" {
					return nil, nil, fmt.Errorf("elicitation not accepted with a name: %+v", el)
				}
				msg, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
					Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}})
				if err != nil {
					return nil, nil, err
				}
				roots, err := req.Session.ListRoots(ctx, nil)
				if err != nil {
					return nil, nil, err
				}
				if len(roots.Roots) == 0 || !strings.HasPrefix(roots.Roots[0].URI, "file://") {
					return nil, nil, fmt.Errorf("no file root: %+v", roots.Roots)
				}
				text := msg.Content.(*mcp.TextContent).Text
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " / " + text}}}, nil, nil
			})
	})
	hs := httptest.NewServer(gosdkHTTP(srv))
	t.Cleanup(func() {
		hs.Close()
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
	})
	dial := func(context.Context) (client.Transport, error) { return transport.HTTP(hs.URL), nil }
	for _, version := range []string{client.Version20251125, client.Version20250618} {
		var got *servercheck.Result
		err := servercheck.Run(t.Context(), dial, &servercheck.Options{Version: version, Run: "tools/calls/ask", Calls: 2,
			OnResult: func(r servercheck.Result) { got = &r }})
		assert.NoError(t, err, version)
		if assert.NotNil(t, got, version) {
			assert.Equal(t, servercheck.Pass, got.Status, "%s: %s", version, got)
			assert.Contains(t, got.Detail, "succeeded, 0 tool error(s)", version)
		}
	}
}
