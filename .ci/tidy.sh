#!/usr/bin/env bash
# Checks (or with -w, makes) every module's go.mod and go.sum tidy, as `go mod tidy` run in the
# module alone (GOWORK=off: a user's build never sees go.work) would leave them.
#
#   .ci/tidy.sh       # fails, printing the diff, if a module is not tidy
#   .ci/tidy.sh -w    # tidies every module
#
# A nested module requires its siblings at the last release (v0.1.0 ...), which the go command
# would fetch from the network, and which is not this commit's code. So tidy runs on a copy of
# go.mod (-modfile) that replaces every sibling the module does not replace already with its
# directory here, the way go.work ties them for development; the added replace directives are
# dropped again before the copy is compared with (or written over) go.mod. A directory
# replacement adds no go.sum lines for the sibling, and the module's real go.sum has none for
# an unpublished sibling either, so go.sum compares as it is.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
write=false
[ "${1:-}" = -w ] && write=true
export GOWORK=off
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mapfile -t mods < <(git ls-files go.mod '*/go.mod')
declare -A dirOf
for mod in "${mods[@]}"; do
	dir=$(dirname "$mod")
	dirOf[$(awk '$1 == "module" {print $2}' "$mod")]=$dir
done

status=0
for mod in "${mods[@]}"; do
	dir=$(dirname "$mod")
	self=$(awk '$1 == "module" {print $2}' "$mod")
	# The module paths this go.mod replaces already (`replace P => ...` or a line of a replace block).
	replaced=$({ grep '=>' "$mod" || true; } | sed -E 's/^[[:space:]]*(replace[[:space:]]+)?//' | awk '{print $1}')
	work=$tmp/${dir//\//_}
	mkdir -p "$work"
	cp "$dir/go.mod" "$work/go.mod"
	[ -f "$dir/go.sum" ] && cp "$dir/go.sum" "$work/go.sum" || : >"$work/go.sum"
	added=()
	for path in "${!dirOf[@]}"; do
		[ "$path" = "$self" ] && continue
		grep -qxF "$path" <<<"$replaced" && continue
		go mod edit -replace="$path=$root/${dirOf[$path]}" "$work/go.mod"
		added+=("$path")
	done
	(cd "$dir" && go mod tidy -modfile="$work/go.mod")
	for path in "${added[@]}"; do go mod edit -dropreplace="$path" "$work/go.mod"; done
	if $write; then
		cp "$work/go.mod" "$dir/go.mod"
		if [ -s "$work/go.sum" ] || [ -f "$dir/go.sum" ]; then cp "$work/go.sum" "$dir/go.sum"; fi
		continue
	fi
	for f in go.mod go.sum; do
		[ -f "$dir/$f" ] || [ -s "$work/$f" ] || continue
		if ! diff -u --label "$dir/$f" --label "$dir/$f (tidy)" "$dir/$f" "$work/$f"; then status=1; fi
	done
done
if [ "$status" != 0 ]; then
	echo "go.mod/go.sum not tidy: run .ci/tidy.sh -w" >&2
fi
exit "$status"
