#!/usr/bin/env bash
# A user's view of the kit as published: a server module pinned to an SDK release and an older Go,
# whose production code installs the crash guard, adds the kit the way the README says,
#   go get github.com/mcptestkit/mcptestkit/gosdk@V        (the guard alone: production code)
#   go get github.com/mcptestkit/mcptestkit/gosdk/gosdktest@V   (the test adapter, and with it the kit)
# (mcpgo and mcpgo/mcpgotest for mcp-go) and nothing else. After each step the module builds, keeps
# its SDK release and go directive, and `go list -m all` differs from before only by additions: no
# module the user already had moves. Then its tests pass, and a default mcptest.Connect leaves the
# server's log without WARN or ERROR records.
#
# usage: .ci/usermodule.sh gosdk|mcpgo SDK-VERSION [deps]
#   deps: the module checks only, not the user's tests
# It runs inside .ci/published.sh, which serves a release candidate of the kit as
# github.com/mcptestkit/mcptestkit at $KIT_VERSION (no replace directive: what a user gets).
set -euo pipefail
kind=${1:?usage: usermodule.sh gosdk|mcpgo SDK-VERSION [deps]}
version=${2:?usage: usermodule.sh gosdk|mcpgo SDK-VERSION [deps]}
only=${3:-}
: "${KIT_VERSION:?usermodule.sh runs inside .ci/published.sh, which serves the kit at KIT_VERSION}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
export GOWORK=off

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
  adapter="$kit/gosdk/gosdktest"; serve='gosdktest.Server(NewGuarded(logs.Logger()))'
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
  adapter="$kit/mcpgo/mcpgotest"; serve='mcpgotest.Server(NewGuarded(logs.Logger()))'
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
go list -m all | sort > before.txt
godirective=$(grep '^go ' go.mod)

# moved fails when a module of the user's graph before the kit came has another version now.
moved() {
  local now
  now=$(go list -m all | sort)
  if [ -n "$(comm -23 before.txt <(echo "$now"))" ]; then
    echo "FAIL: adding $1 moved modules of the user's build (- before, + after):"
    diff before.txt <(echo "$now") | grep -E '^[<>]' | sed 's/^</-/; s/^>/+/' | grep -F -f <(comm -23 before.txt <(echo "$now") | awk '{print $1" "}') || true
    return 1
  fi
}
# kept fails when the go directive or the SDK release moved, or the other SDK came in.
kept() {
  local fail=0 other
  grep -qx "$godirective" go.mod || { echo "FAIL: the go directive moved from $godirective to $(grep '^go ' go.mod)"; fail=1; }
  grep -qE "^\s*(require )?$sdk $version( // indirect)?$" go.mod || { echo "FAIL: $sdk moved from $version"; fail=1; }
  other=$([ "$kind" = gosdk ] && echo github.com/mark3labs/mcp-go || echo github.com/modelcontextprotocol/go-sdk)
  if go list -m all | grep -q "^$other "; then echo "FAIL: the module graph names $other, an SDK the user does not use"; fail=1; fi
  return $fail
}

echo "== $sdk $version: go get $kit/$kind@$KIT_VERSION  (the production guard alone)"
case $kind in
gosdk) cat > guarded.go <<'GO'
package server

import (
	"log/slog"

	"github.com/mcptestkit/mcptestkit/gosdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewGuarded is the server as production runs it: with the crash guard.
func NewGuarded(logger *slog.Logger) *mcp.Server {
	srv := New(logger)
	srv.AddReceivingMiddleware(gosdk.Guard(logger))
	return srv
}
GO
  ;;
mcpgo) cat > guarded.go <<'GO'
package server

import (
	"log/slog"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mcptestkit/mcptestkit/mcpgo"
)

// NewGuarded is the server as production runs it: with the crash guard.
func NewGuarded(logger *slog.Logger) *server.MCPServer {
	srv := New(logger)
	mcpgo.Guard(logger)(srv)
	return srv
}
GO
  ;;
esac
go get "$kit/$kind@$KIT_VERSION"
go build ./...
kept; moved "the guard"

echo "== $sdk $version: go get $adapter@$KIT_VERSION  (the kit, for tests)"
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
go get "$adapter@$KIT_VERSION"
go mod tidy
kept; moved "the kit"
echo "== modules the kit added to the user's build (go list -m all, less those of the server alone)"
comm -13 before.txt <(go list -m all | sort)
[ "$only" = deps ] && exit 0

echo "== go.mod of the user's module"
cat go.mod
echo "== go test in the user's module"
start=$(date +%s.%N)
go test -count=1 -v ./... | grep -E '^(=== RUN|--- |ok|FAIL|PASS)'
echo "(go test took $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}") s, build included)"
