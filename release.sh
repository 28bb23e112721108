#!/usr/bin/env bash
# Cuts a release of every published module of mcptestkit, the way Go's multi-module
# repositories do it: one commit in which each go.mod of the repository requires its sibling
# modules at VERSION, and one tag per published module on that commit (VERSION for the root,
# gosdk/VERSION, mcpgo/VERSION, examples/VERSION, cmd/VERSION). integration is never
# published. Nothing is pushed: the script prints the push command.
#
#   ./release.sh v0.2.0
#
# Between releases each go.mod names the last release of its siblings; go.work (and the
# replace directives of the modules that are never installed with `go install`) build the
# work tree as it is.
set -euo pipefail

usage() { echo "usage: ./release.sh vMAJOR.MINOR.PATCH[-PRERELEASE]  (MAJOR 0 or 1)" >&2; exit 2; }
[ "$#" -eq 1 ] || usage
version=$1
# Semantic versioning as the go command takes it; v2 and later would need a /v2 module path.
if ! [[ $version =~ ^v[01]\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$ ]]; then
	echo "release.sh: $version is not a version the go command takes for this module path (vMAJOR.MINOR.PATCH[-PRERELEASE], MAJOR 0 or 1)" >&2
	exit 2
fi

cd "$(dirname "$0")"
kit=github.com/mcptestkit/mcptestkit
unpublished=(integration)

if [ -n "$(git status --porcelain)" ]; then
	echo "release.sh: the work tree has changes; a release is cut from a clean commit:" >&2
	git status --short >&2
	exit 1
fi

# requirements lists the modules of this repository that go.mod file $1 requires.
requirements() {
	grep -v '=>' "$1" | sed -nE "s#^[[:space:]]*(require[[:space:]]+)?($kit(/[^[:space:]]+)?)[[:space:]]+v[^[:space:]]+.*#\2#p"
}

# The modules of the repository: every go.mod the go command would build as one, which leaves out
# those under testdata and under directories whose names begin with "." or "_" (fixtures of tests,
# never published, whose requirements are what their tests need).
mapfile -t mods < <(git ls-files go.mod '*/go.mod' | grep -Ev '(^|/)(testdata|[._][^/]*)/')
tags=()
for mod in "${mods[@]}"; do
	dir=$(dirname "$mod")
	for u in "${unpublished[@]}"; do [ "$dir" = "$u" ] && continue 2; done
	if [ "$dir" = . ]; then tags+=("$version"); else tags+=("$dir/$version"); fi
done
for tag in "${tags[@]}"; do
	if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
		echo "release.sh: tag $tag already exists" >&2
		exit 1
	fi
done

# Every requirement of a module of this repository moves to the release.
for mod in "${mods[@]}"; do
	while read -r path; do
		go mod edit -require="$path@$version" "$mod"
	done < <(requirements "$mod")
done

if [ -n "$(git status --porcelain)" ]; then
	if ! git commit -q -a -m "Release $version: every module requires its siblings at $version"; then
		# Leave the tree as it was found (clean, checked above): no half-made release.
		git checkout -q -- "${mods[@]}"
		echo "release.sh: the release commit failed (above); the go.mod files are restored and nothing is tagged" >&2
		exit 1
	fi
fi
for tag in "${tags[@]}"; do
	git tag -a -m "mcptestkit ${tag}" "$tag"
done
echo "tagged $(git rev-parse --short HEAD): ${tags[*]}"
echo "publish with: git push origin HEAD ${tags[*]}"
