#!/usr/bin/env bash
# A user's view of the module split (issue 24): a server module pinned to an older SDK release and
# an older Go adds mcptestkit as a test dependency, runs `go mod tidy`, and keeps its SDK release
# and its go directive; its tests pass, and a default mcptest.Connect leaves the server's log
# without WARN or ERROR records.
#
# usage: .ci/usermodule.sh gosdk <go-sdk version> | mcpgo <mcp-go version>
# The kit is not tagged yet, so the user's go.mod points at this checkout with replace directives,
# exactly as a published release would be required; nothing else differs.
set -euo pipefail
kind=${1:?usage: usermodule.sh gosdk|mcpgo VERSION}
version=${2:?usage: usermodule.sh gosdk|mcpgo VERSION}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
export GOWORK=off GOFLAGS=-mod=mod

kit=github.com/mcptestkit/mcptestkit
case $kind in
gosdk)
  sdk=github.com/modelcontextprotocol/go-sdk
  cat > server.go <<'GO'
// Package server is a user's MCP server on an older go-sdk release.
package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type waitArgs struct {
	Seconds int `json:"seconds"`
}

// New returns the server; wait sleeps for the seconds it is given.
func New(logger *slog.Logger) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "user", Version: "1.0.0"}, &mcp.ServerOptions{Logger: logger})
	mcp.AddTool(srv, &mcp.Tool{Name: "wait", Description: "waits"}, func(ctx context.Context, _ *mcp.CallToolRequest, in waitArgs) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(time.Duration(in.Seconds) * time.Second):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	return srv
}
GO
  adapter="$kit/gosdk/gosdktest"; serve='gosdktest.Server(New(logs.Logger()))'
  ;;
mcpgo)
  sdk=github.com/mark3labs/mcp-go
  cat > server.go <<'GO'
// Package server is a user's MCP server on an older mcp-go release.
package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// New returns the server; wait sleeps for the seconds it is given.
func New(*slog.Logger) *server.MCPServer {
	srv := server.NewMCPServer("user", "1.0.0")
	srv.AddTool(mcp.NewTool("wait", mcp.WithDescription("waits"), mcp.WithNumber("seconds")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var seconds float64
			if args, ok := req.Params.Arguments.(map[string]any); ok {
				seconds, _ = args["seconds"].(float64)
			}
			select {
			case <-time.After(time.Duration(seconds) * time.Second):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return mcp.NewToolResultText("done"), nil
		})
	return srv
}
GO
  adapter="$kit/mcpgo/mcpgotest"; serve='mcpgotest.Server(New(logs.Logger()))'
  ;;
*) echo "usermodule.sh: unknown kind $kind (want gosdk or mcpgo)" >&2; exit 2 ;;
esac
pkg=${adapter##*/}

cat > go.mod <<EOF2
module example.com/user

go 1.25

require $sdk $version
EOF2
go mod tidy >/dev/null 2>&1 || go mod tidy
cp go.mod before.mod; cp go.sum before.sum 2>/dev/null || true

cat > server_test.go <<GO
package server

import (
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"$kit/client"
	"$kit/logcapture"
	"$kit/mcptest"
	"$adapter"
)

// A default Connect leaves the server's log without WARN or ERROR: the
// adapter tells the harness which protocol versions the SDK release speaks.
func TestWait(t *testing.T) {
	logs := logcapture.New(t)
	c := mcptest.Connect(t, $serve)
	res, err := c.CallTool(t.Context(), "wait", map[string]any{"seconds": 0})
	if err != nil {
		t.Fatal(err)
	}
	mcptest.Assert(t).Text(res, "done")
	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
}

// Inside a synctest bubble an hour-long call completes at once.
func TestWaitAnHourInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := logcapture.New(t)
		c := mcptest.Connect(t, $serve, mcptest.WithClient(client.Options{Timeout: 2 * time.Hour}))
		start := time.Now()
		res, err := c.CallTool(t.Context(), "wait", map[string]any{"seconds": 3600})
		if err != nil {
			t.Fatal(err)
		}
		mcptest.Assert(t).Text(res, "done")
		if got := time.Since(start); got != time.Hour {
			t.Errorf("the call took %v of fake time, want 1h", got)
		}
	})
}
GO
if [ -n "${USERMODULE_EXTRA_TEST:-}" ]; then cp "$USERMODULE_EXTRA_TEST" extra_test.go; fi
go mod edit -require=$kit@v0.0.0-00010101000000-000000000000 -replace=$kit=$root \
  -require=$kit/$kind@v0.0.0-00010101000000-000000000000 -replace=$kit/$kind=$root/$kind
go mod tidy

echo "== go.mod of the user's module after adding mcptestkit and go mod tidy"
cat go.mod
fail=0
if ! grep -q "^go 1.25$" go.mod; then echo "FAIL: the go directive moved (want go 1.25)"; fail=1; fi
if ! grep -qE "^\s*(require )?$sdk $version( // indirect)?$" go.mod; then echo "FAIL: $sdk moved from $version"; fail=1; fi
other=$([ "$kind" = gosdk ] && echo github.com/mark3labs/mcp-go || echo github.com/modelcontextprotocol/go-sdk)
if go list -m all | grep -q "^$other "; then echo "FAIL: the module graph names $other, an SDK the user does not use"; fail=1; fi
echo "== modules a $kind-only user downloads for mcptestkit (go list -m all, less those of the server alone)"
comm -13 <(GOFLAGS=-mod=mod go list -modfile=before.mod -m all | sort) <(go list -m all | sort)
[ $fail = 0 ] || exit 1
echo "== go test in the user's module"
start=$(date +%s.%N)
go test -count=1 -v ./... | grep -E '^(=== RUN|--- |ok|FAIL|PASS)'
echo "(go test took $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}") s, build included)"
