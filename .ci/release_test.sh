#!/usr/bin/env bash
# Tests ./release.sh (issue 42) in throwaway clones of HEAD that carry the work tree's release.sh and
# a test fixture module under testdata:
#   1. the fixture's go.mod is neither edited nor tagged: it is no module of the repository;
#   2. when the release commit fails (a pre-commit hook refuses it), the script fails, leaves the
#      tree clean (the go.mod files as they were) and tags nothing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@localhost.invalid GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@localhost.invalid
kit=github.com/mcptestkit/mcptestkit
fixture=internal/fixture/testdata/usermod/go.mod
fail() { echo "release_test.sh: FAIL: $*" >&2; exit 1; }

clone() {
	git clone -q --no-tags "$root" "$1"
	cp "$root/release.sh" "$1/release.sh"
	mkdir -p "$(dirname "$1/$fixture")"
	printf 'module example.com/usermod\n\ngo 1.25\n\nrequire %s v0.0.1\n' "$kit" >"$1/$fixture"
	git -C "$1" add -A
	git -C "$1" commit -q -m "the work tree's release.sh, and a fixture module under testdata"
}

clone "$work/a"
(cd "$work/a" && ./release.sh v0.9.0) >/dev/null
tags=$(git -C "$work/a" tag)
grep -qx v0.9.0 <<<"$tags" || fail "no tag v0.9.0: $tags"
grep -qx gosdk/v0.9.0 <<<"$tags" || fail "no tag gosdk/v0.9.0: $tags"
! grep -q testdata <<<"$tags" || fail "a module under testdata was tagged: $tags"
grep -q "$kit v0.0.1" "$work/a/$fixture" || fail "the fixture's go.mod was edited: $(cat "$work/a/$fixture")"
grep -q "$kit v0.9.0" "$work/a/gosdk/go.mod" || fail "gosdk/go.mod does not require the release"
echo "release_test.sh: a module under testdata is left alone"

clone "$work/b"
printf '#!/bin/sh\necho "pre-commit: refused" >&2\nexit 1\n' >"$work/b/.git/hooks/pre-commit"
chmod +x "$work/b/.git/hooks/pre-commit"
if (cd "$work/b" && ./release.sh v0.9.0) 2>"$work/err"; then
	fail "release.sh succeeded though its commit failed"
fi
grep -q "nothing is tagged" "$work/err" || fail "release.sh did not say why it failed: $(cat "$work/err")"
[ -z "$(git -C "$work/b" status --porcelain)" ] || fail "the tree is left dirty: $(git -C "$work/b" status --short)"
[ -z "$(git -C "$work/b" tag)" ] || fail "tags were made: $(git -C "$work/b" tag)"
echo "release_test.sh: a failed release commit leaves the tree clean and untagged"
