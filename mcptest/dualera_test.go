package mcptest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// Issue 39: a dual-era server whose server/discover lists only 2026-07-28
// still answers initialize: version-negotiation asks it there (and catches
// a version echoed back), and ping is checked at 2025-11-25, not skipped.
func TestCheckServerDualEraListingOnlyTheNewest(t *testing.T) {
	t.Parallel()
	for _, echo := range []bool{false, true} {
		srv := probeServer(echoTool())
		srv.listed = []string{client.Version20260728}
		srv.echoVersion = echo
		results := map[string]servercheck.Result{}
		_ = servercheck.Run(t.Context(), memDialer(srv), &servercheck.Options{Run: "ping|version-negotiation",
			OnResult: func(r servercheck.Result) { results[r.Name] = r }})
		ping := results["ping"]
		assert.Equal(t, servercheck.Pass, ping.Status, "%s", ping)
		assert.Contains(t, ping.Detail, "lists no legacy version, but it answered initialize at 2025-11-25: ping checked there")
		vn := results["version-negotiation"]
		if echo {
			assert.Equal(t, servercheck.Fail, vn.Status, "%s", vn)
			assert.Contains(t, vn.Detail, "which does not exist; the server agreed to it")
			continue
		}
		assert.Equal(t, servercheck.Pass, vn.Status, "%s", vn)
		assert.Contains(t, vn.Detail, "lists no legacy version, but it answers initialize: its legacy era is checked too")
	}
}

// Issue 39: on a dual-era server the tools are called in both eras: a tool
// that crashes the legacy path only (its 2026-07-28 path fine) fails
// tools/calls, which called it at 2026-07-28 alone before.
func TestCheckServerCallsToolsInBothEras(t *testing.T) {
	t.Parallel()
	srv := probeServer(newTool("era", func(_ context.Context, c *fakeCall) (*fakeResult, error) {
		if !c.req.modern() {
			return &fakeResult{isError: true, text: "panic: legacy path broken\n\ngoroutine 7 [running]:"}, nil // crash text shown to the client
		}
		return fakeText("fine"), nil
	}))
	var got *servercheck.Result
	_ = servercheck.Run(t.Context(), memDialer(srv), &servercheck.Options{Run: "tools/calls", Calls: 2,
		OnResult: func(r servercheck.Result) {
			if r.Name == "tools/calls/era" {
				got = &r
			}
		}})
	if assert.NotNil(t, got) {
		assert.Equal(t, servercheck.Fail, got.Status, "%s", got)
		assert.Contains(t, got.Detail, "at 2025-11-25 (the server's legacy era): called tool \"era\"")
	}
}
