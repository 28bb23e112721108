#!/usr/bin/env bash
# What a user outside this repository gets (issue 29): the commit under test is released as a
# release candidate by ./release.sh in a clone, the clone is served to the go command as if it were
# github.com/mcptestkit/mcptestkit (a git url rewrite given through GIT_CONFIG_*, GOPRIVATE for the
# kit's modules, the module proxy for everything else, a module cache of its own), and then, as the
# README tells a user:
#   1. go install .../cmd/mcptestkit@VERSION (and @latest) installs, and `mcptestkit check` passes;
#   2. a go-sdk v1.4.0 server module `go get`s only .../gosdk/gosdktest, an mcp-go v0.46.0 one only
#      .../mcpgo/mcpgotest, and their tests pass (.ci/usermodule.sh);
#   3. the production guards alone (.../gosdk, .../mcpgo) install and build;
#   4. at the SDK releases the CI matrix tests (the newest resolved when it runs), adding the kit only adds modules to the user's
#      `go list -m all`: no version of a module the user already had moves.
# It tests what is committed (HEAD), not the work tree's changes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
export GOMODCACHE=$work/modcache
cleanup() { go clean -modcache 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

kit=github.com/mcptestkit/mcptestkit
[ -z "$(git -C "$root" status --porcelain -- '*go.mod')" ] ||
	echo "published.sh: note: go.mod changes that are not committed are not part of what this tests"

# 1. A release candidate of HEAD, cut by the release script, in a clone without the tags of
# earlier releases (the candidate is then what @latest means).
git clone -q --no-tags "$root" "$work/src"
base=$(grep -E "^\s*(require\s+)?$kit v" "$work/src/gosdk/go.mod" | awk '{print $NF}')
version=${PUBLISHED_VERSION:-$base-rc.ci}
(cd "$work/src" && GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@localhost.invalid GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@localhost.invalid ./release.sh "$version")
git clone -q --bare "$work/src" "$work/kit.git"

# 2. The go command fetches github.com/mcptestkit/mcptestkit from that clone; everything else from
# the module proxy (through this machine's module cache first, so only the kit is new).
export GIT_CONFIG_COUNT=2
export GIT_CONFIG_KEY_0="url.file://$work/kit.git.insteadOf" GIT_CONFIG_VALUE_0="https://$kit"
export GIT_CONFIG_KEY_1=protocol.file.allow GIT_CONFIG_VALUE_1=always
export GOPRIVATE="$kit,$kit/*" GOWORK=off GOFLAGS="-modcacherw ${GOFLAGS:-}"
export GOPROXY="file://$(cd "$root" && env -u GOMODCACHE go env GOMODCACHE)/cache/download,$(go env GOPROXY)"
export KIT_VERSION=$version

echo "== go install $kit/cmd/mcptestkit@$version"
export GOBIN=$work/bin
(cd "$work" && go install "$kit/cmd/mcptestkit@$version")
"$GOBIN/mcptestkit" check
rm -f "$GOBIN/mcptestkit"
echo "== go install $kit/cmd/mcptestkit@latest"
(cd "$work" && go install "$kit/cmd/mcptestkit@latest")
[ "$(go version -m "$GOBIN/mcptestkit" | awk '$1 == "mod" {print $3}')" = "$version" ] ||
	{ echo "FAIL: @latest did not install $version:"; go version -m "$GOBIN/mcptestkit"; exit 1; }

echo "== a user's module adds only the adapter, and its tests pass"
"$root/.ci/usermodule.sh" gosdk v1.4.0
"$root/.ci/usermodule.sh" mcpgo v0.46.0

echo "== the production guard alone, and nothing of the user's build moves, at each SDK release CI tests"
# The newest releases are resolved now, as the SDK matrix (*/testreleases.sh) resolves them.
newest() { (cd "$work" && go list -m -f '{{.Version}}' "$1@latest"); }
for release in v1.2.0 "$(newest github.com/modelcontextprotocol/go-sdk)"; do "$root/.ci/usermodule.sh" gosdk "$release" deps; done
for release in v0.50.0 "$(newest github.com/mark3labs/mcp-go)"; do "$root/.ci/usermodule.sh" mcpgo "$release" deps; done
