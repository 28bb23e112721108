package gosdktest_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/release"
	"github.com/mcptestkit/mcptestkit/internal/faketb"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// The checks a go-sdk server fails by design of its release name the
// release the test binary links, and how to leave the check out: every
// release ends a session on a frame that is not JSON; releases before
// v1.7.0 answer an unknown method with code 0 (gosdk/testreleases.sh runs
// this at the floor, v1.2.0, and at v1.8.0).
func TestCheckServerNamesTheLinkedRelease(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text."}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
		return nil, echoOut{Echo: in.Text}, nil
	})
	a := gosdktest.Server(s)
	linked := release.Linked()
	sdk := "go-sdk"
	if linked != "" {
		sdk += " " + linked
	}
	assert.Equal(t, sdk, a.SDK())
	t.Logf("linked: %s", sdk)

	f := faketb.Run(t, func(tb testing.TB) { mcptest.CheckServer(tb, a) })
	f.ExpectFailure(t, "malformed-frame: sent a frame that is not valid JSON",
		"\n("+sdk+`, which serves this server, ends a session on a frame it cannot decode, as its stdio transport does: `+
			`for this server this is the SDK's behaviour; leave the check out with mcptest.SkipChecks("malformed-frame"))`)
	skip := []string{"malformed-frame"}
	if linked == "" || !release.Older(linked, "v1.7.0") {
		assert.NotContains(t, f.Text(), "unknown-method:", "go-sdk v1.7.0 and later answer -32601")
	} else {
		f.ExpectFailure(t, `unknown-method: sent mcptestkit/no-such-method; got JSON-RPC error 0 "JSON RPC not handled: \"mcptestkit/no-such-method\" unsupported"`,
			"expected: JSON-RPC error -32601 (Method not found)\n("+sdk+", which serves this server, answers an unknown method with code 0 (fixed in go-sdk v1.7.0): "+
				`for this server that is the SDK's behaviour; upgrade go-sdk, or leave the check out with mcptest.SkipChecks("unknown-method"))`)
		skip = append(skip, "unknown-method")
	}

	// Leaving the checks out, as the hints say, leaves nothing failing.
	faketb.Run(t, func(tb testing.TB) { mcptest.CheckServer(tb, a, mcptest.SkipChecks(skip...)) }).ExpectPass(t)
}
