#!/usr/bin/env bash
# run.sh OLD.json [OUT]: Burst B/op of heap, wheel (chunks, series cdaa695a) and wheel-arrays (the
# series before, 31a84616, as an overlay on the wheel toolchain), 6 interleaved rounds, into
# OUT/VARIANT-{100K,1M}.txt (OUT: a new directory from mktemp when not given; the script prints its
# path last). The files beside this script are the entry's run.
#
# OLD.json is the overlay of the series before on the wheel toolchain, written by
# TIMERLAB_WORK=DIR scripts/overlay.sh wheel list runtime (build/overlay/wheel.json), DIR a work
# checkout of that series (a git worktree of build/work/go at its commit before ea404e2).
# The checkout is the one this script is in (TIMERLAB_ROOT overrides it), the toolchains those
# under its build directory (TIMERLAB_BUILD, as for scripts/lib.sh).
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: run.sh OLD.json [OUT]" >&2; exit 2; }
old=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -f "$old" ] || { echo "run.sh: no overlay $1" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
root=${TIMERLAB_ROOT:-$(git -C "$here" rev-parse --show-toplevel)}
B=${TIMERLAB_BUILD:-$root/build}/toolchains
for tc in heap wheel; do [ -x "$B/$tc/bin/go" ] || { echo "run.sh: no $tc toolchain at $B/$tc" >&2; exit 1; }; done
if [ $# -eq 2 ]; then out=$(mkdir -p "$2" && cd "$2" && pwd); else out=$(mktemp -d); fi
cd "$root/bench"
for r in 1 2 3 4 5 6; do
	for v in heap wheel wheel-arrays; do
		tc=$v ov=
		if [ $v = wheel-arrays ]; then tc=wheel ov=-overlay=$old; fi
		GOTOOLCHAIN=local GOROOT=$B/$tc $B/$tc/bin/go test $ov ./timers -run '^$' -bench 'Burst/timers=100K' -benchtime=20x -benchmem >>"$out/$v-100K.txt" 2>&1
		GOTOOLCHAIN=local GOROOT=$B/$tc $B/$tc/bin/go test $ov ./timers -run '^$' -bench 'Burst/timers=1M' -benchtime=4x -benchmem >>"$out/$v-1M.txt" 2>&1
	done
done
echo "$out"
