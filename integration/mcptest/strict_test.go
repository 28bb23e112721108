package mcptest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/internal/faketb"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

type noteIn struct {
	Text string `json:"text"`
}

// undescribed is a go-sdk server whose one tool has no description: a
// convention broken, not a MUST of the specification.
func undescribed() mcptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "note"}, func(context.Context, *mcp.CallToolRequest, noteIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "noted"}}}, nil, nil
	})
	return gosdktest.Server(s)
}

// A warning passes the test and says so; StrictChecks makes it fail.
func TestCheckServerWarnsAndStrictFails(t *testing.T) {
	skipMalformed := mcptest.SkipChecks("malformed-frame") // go-sdk ends the session on it
	f := faketb.Run(t, func(tb testing.TB) { mcptest.CheckServer(tb, undescribed(), skipMalformed) })
	f.ExpectPass(t)
	if !strings.Contains(f.Text(), `warning: tools without a description: ["note"]`) {
		t.Errorf("the passing test does not log the warning; its output:\n%s", f.Text())
	}

	f = faketb.Run(t, func(tb testing.TB) { mcptest.CheckServer(tb, undescribed(), skipMalformed, mcptest.StrictChecks()) })
	f.ExpectFailure(t, "warning: tools without a description: [\"note\"]")
}
