#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned by
# package-lock.json) against cmd/conformance-client, all client scenarios in parallel, with the
# suite's mock servers bound to 127.0.0.1 only.
#
#   conformance/run.sh               every client scenario (the CI run)
#   conformance/run.sh NAME...       only these scenarios (for debugging; same verdict rules)
#
# Exit status is non-zero when a scenario fails (a FAILURE or WARNING check) and is not listed in
# conformance/expected-failures.yml, when a listed scenario passes (a stale entry), or when the
# run itself breaks. The last line is always "conformance: N passed, M failed".
#
# Needs Node >= 20 and npm (the suite is installed with `npm ci` into the git-ignored
# conformance/node_modules), and Go. Results land in the git-ignored conformance/results/run-*
# (the newest five are kept; conformance/results/latest points at this run's).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
results="$here/results"
# Each run has its own directory and binary, so runs in the same checkout (a developer and
# .ci/run, say) cannot overwrite each other's results or a binary that is executing.
out="$results/run-$(date -u +%Y%m%dT%H%M%SZ)-$$"
bin="$out/bin/conformance-client"
suite_js="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
stamp="$here/node_modules/.mcptestkit-lock"
start_s=$SECONDS

fail() {
	echo "conformance: run.sh: $*" >&2
	echo "conformance details: run broken: $*"
	echo "conformance: 0 passed, 1 failed"
	exit 2
}

command -v node >/dev/null || fail "node not found (Node >= 20 is needed)"
command -v npm >/dev/null || fail "npm not found"
command -v go >/dev/null || fail "go not found"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || fail "Node $(node --version) is too old; Node >= 20 is needed"

# 1. Install the pinned suite, only when the lock file changed since the last install.
if [ ! -f "$suite_js" ] || ! cmp -s "$here/package-lock.json" "$stamp"; then
	echo "conformance: npm ci (Node $(node --version), npm $(npm --version))" >&2
	(cd "$here" && npm ci --no-audit --no-fund --loglevel=error) >&2 || fail "npm ci failed"
	cp "$here/package-lock.json" "$stamp"
fi

# 2. Build the client once; every scenario runs this binary (no `go run` per scenario).
mkdir -p "$(dirname "$bin")"
(cd "$root" && go build -o "$bin" ./cmd/conformance-client) || fail "go build ./cmd/conformance-client failed"

# 3. Run. The shim gives the suite fs.globSync on Node 20 and binds its mock servers to
# 127.0.0.1 (it listens on all interfaces otherwise), so it is loaded on every Node version.
export NODE_OPTIONS="--import $here/node20-compat.mjs${NODE_OPTIONS:+ $NODE_OPTIONS}"
export CONFORMANCE_BIND_HOST=127.0.0.1
mkdir -p "$out"
# The suite splits --command on spaces and hands it to /bin/sh, so a quoted path survives.
cmd="'$bin'"
node "$suite_js" list --client >"$out/scenarios.txt" 2>&1 || fail "conformance list failed: $(cat "$out/scenarios.txt")"
# The suite's exit status is not used: summarize.mjs judges every scenario from its checks.json
# (the suite's rule plus one stricter one) against expected-failures.yml, which keeps the
# suite's baseline format, so `--expected-failures conformance/expected-failures.yml` works too.
set +e
if [ "$#" -eq 0 ]; then
	node "$suite_js" client --command "$cmd" --suite all --timeout 30000 -o "$out" >"$out/suite.log" 2>&1
	# sse-retry times the client's reconnection (450-700 ms for retry: 500) on the wall clock. In the
	# parallel suite it competes with 25 other scenarios for 2 cores and can land late for reasons
	# that are not the client's, so its verdict comes from a run on its own, right after.
	rm -rf "$out"/sse-retry-*
	node "$suite_js" client --command "$cmd" --scenario sse-retry --timeout 30000 -o "$out" >"$out/sse-retry.log" 2>&1
else
	pids=()
	for s in "$@"; do
		node "$suite_js" client --command "$cmd" --scenario "$s" --timeout 30000 -o "$out" \
			>"$out/$(echo "$s" | tr / _).log" 2>&1 &
		pids+=("$!")
	done
	for p in "${pids[@]}"; do wait "$p"; done
	cat "$out"/*.log >"$out/suite.log"
fi
set -e
# The suite's own per-scenario check counts, for the CI log (suite mode only).
sed -n '/=== SUITE SUMMARY ===/,$p' "$out/suite.log"

# 4. The verdict.
ln -sfn "$(basename "$out")" "$results/latest"
ls -1dt "$results"/run-* 2>/dev/null | tail -n +6 | xargs -r rm -rf
exec node "$here/summarize.mjs" --results "$out" --scenarios "$out/scenarios.txt" \
	--expected "$here/expected-failures.yml" --seconds "$((SECONDS - start_s))" ${1:+--only "$*"}
