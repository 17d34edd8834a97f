#!/usr/bin/env bash
# build.sh [WORK]: build the two bench/wakeups test binaries this entry compares, into WORK (a new
# directory from mktemp when not given; the script prints its path last):
#   wk-base  slack's toolchain as it is
#   wk-new   the same with poller-guard.diff applied to the toolchain's runtime, as an overlay
# The diff is against series 4001b961 (commit bf9e2d2): build slack's toolchain at that commit
# first. The checkout is the one this script is in (TIMERLAB_ROOT overrides it), the toolchain the
# one under its build directory (TIMERLAB_BUILD, as for scripts/lib.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${TIMERLAB_ROOT:-$(git -C "$here" rev-parse --show-toplevel)}
tc=${TIMERLAB_BUILD:-$root/build}/toolchains/slack
diff=$here/poller-guard.diff
[ -x "$tc/bin/go" ] || { echo "build.sh: no slack toolchain at $tc" >&2; exit 1; }
made=
if [ $# -ge 1 ]; then work=$1; mkdir -p "$work"; else work=$(mktemp -d); made=1; fi
src=$(mktemp -d "$work/src.XXXXXX")
cleanup() {
	local rc=$?
	rm -rf "$src"
	if [ "$rc" -ne 0 ] && [ -n "$made" ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
files=$(sed -n 's#^+++ b/\([^[:space:]]*\).*#\1#p' "$diff")
for f in $files; do mkdir -p "$src/$(dirname "$f")" && cp "$tc/$f" "$src/$f"; done
if ! patch -s -p1 -d "$src" <"$diff" >/dev/null; then
	echo "build.sh: poller-guard.diff does not apply to $tc: build it from commit bf9e2d2" >&2
	exit 1
fi
rm -rf "$work/src" && mv "$src" "$work/src"
{
	printf '{"Replace":{'
	sep=
	for f in $files; do printf '%s"%s":"%s"' "$sep" "$tc/$f" "$work/src/$f"; sep=,; done
	printf '}}\n'
} >"$work/overlay.json"
cd "$root/bench"
export GOTOOLCHAIN=local GOFLAGS= GOWORK=off
"$tc/bin/go" test -c -o "$work/wk-base" ./wakeups
"$tc/bin/go" test -c -overlay "$work/overlay.json" -o "$work/wk-new" ./wakeups
echo "$work"
