#!/usr/bin/env bash
# Runs this module's tests with the go-sdk releases it supports: the OLDEST,
# which go.mod requires (what a user pinned to an old go-sdk links), and the
# NEWEST, resolved when the script runs (the go command's @latest: the newest
# release on the module proxy), so the matrix never ages; or with the
# releases named as arguments. A release other than the floor is selected in
# a copy of go.mod (-modfile), so go.mod, go.sum and the workspace are left
# as they are. Each run says which release it linked and how long it took.
#
#   ./testreleases.sh                  # oldest (go.mod) and newest (@latest)
#   ./testreleases.sh v1.4.1 v1.6.1    # those releases
#
# GOFLAGS passes on (GOFLAGS=-count=1 to ignore the test cache).
set -euo pipefail

cd "$(dirname "$0")"
export GOWORK=off # the module alone, as a user's build sees it

sdk=github.com/modelcontextprotocol/go-sdk
floor=$(go list -m -f '{{.Version}}' "$sdk")
if [ "$#" -eq 0 ]; then
	newest=$(go list -m -f '{{.Version}}' "$sdk@latest")
	echo "=== go-sdk releases: oldest supported $floor (go.mod), newest $newest (@latest, resolved now)"
	set -- "$floor"
	[ "$newest" != "$floor" ] && set -- "$floor" "$newest"
fi

# sdkpackages lists the go-sdk packages this module's code and tests import.
sdkpackages() {
	go list -f '{{join .Imports "\n"}}
{{join .TestImports "\n"}}
{{join .XTestImports "\n"}}' ./... | grep "^$sdk/" | sort -u
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for release in "$@"; do
	modflag=()
	if [ "$release" != "$floor" ]; then
		cp go.mod "$tmp/$release.mod"
		cp go.sum "$tmp/$release.sum" # -modfile=x.mod goes with x.sum
		modflag=(-modfile="$tmp/$release.mod")
		# Get the SDK packages the module's code and tests import, not only
		# the module, so that go.sum has what building them needs.
		mapfile -t pkgs < <(sdkpackages)
		go get "${modflag[@]}" "${pkgs[@]/%/@$release}"
	fi
	linked=$(go list "${modflag[@]}" -m -f '{{.Version}}' "$sdk")
	echo "=== go-sdk $linked: go test -race ./..."
	start=$SECONDS
	go test "${modflag[@]}" -race ./...
	echo "=== go-sdk $linked: passed in $((SECONDS - start))s"
done
