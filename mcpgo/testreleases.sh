#!/usr/bin/env bash
# testreleases.sh runs this module's tests against the OLDEST mark3labs/mcp-go
# release it supports (the one go.mod requires, so that a user's server pinned
# to it does not move) and against the NEWEST, resolved when the script runs
# (the go command's @latest: the newest release on the module proxy, so the
# matrix never ages; NEWEST=vX.Y.Z names another), and says which release
# each run used. Arguments go to both go test runs (e.g. -count=1 -run
# TestGuard). CI calls it; so can you, from anywhere.
set -euo pipefail

cd "$(dirname "$0")"
export GOWORK=off # the module alone, as a user gets it: not the workspace's newest mcp-go
mcpgo=github.com/mark3labs/mcp-go
newest=${NEWEST:-$(go list -m -f '{{.Version}}' "$mcpgo@latest")}

release() { go list -m "$@" -f '{{.Version}}' "$mcpgo"; }

echo "== oldest supported: $mcpgo $(release) (go.mod)"
go test -race "$@" ./...

# The newest release goes in a copy of go.mod, so the module's own stays at
# the floor.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp go.mod "$tmp/new.mod"
cp go.sum "$tmp/new.sum"
go get -modfile="$tmp/new.mod" "$mcpgo@$newest"
echo "== newest: $mcpgo $(release -modfile="$tmp/new.mod") (${NEWEST:+NEWEST}${NEWEST:-@latest, resolved now})"
go test -modfile="$tmp/new.mod" -race "$@" ./...
