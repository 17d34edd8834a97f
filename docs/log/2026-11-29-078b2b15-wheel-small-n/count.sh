#!/usr/bin/env bash
# count.sh OUT: instructions per op of small timer sets under heap, the wheel, and scratch builds
# of the wheel with these diffs (heap-only.diff: every timer in the heap, the wheel's hooks kept;
# trim.diff: two hooks made cheaper; lazy-bound.diff: the heap's bound refreshed after an add, not
# when cleanHead empties the heap), counted by cachegrind as `timerlab instr` counts (GOMAXPROCS=1,
# GOGC=off, asyncpreemptoff=1, memprofilerate=0, its ballast; Ir(3N) - Ir(N) over 2N ops).
# Run from the checkout, with build/toolchains/{heap,wheel} built. Needs valgrind, python3 and
# 1.3 GB in $TMPDIR for the scratch toolchains. About 20 minutes on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: count.sh OUT}
root=$(git -C "$here" rev-parse --show-toplevel)
mkdir -p "$out"; out=$(cd "$out" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export GOTOOLCHAIN=local GOFLAGS= GOWORK=off
# gotest GOROOT OUT [PKG]: a test binary of PKG (default: this entry's one/) at OUT, with the
# ballast that timerlab instr adds (internal/instr.ballastFile: a 256 MiB live heap leaves the
# scavenger no work, so no timer of its own decides how the set-up's 32768 timers leave the heap).
gotest() {
	local dir name
	if [ $# -eq 3 ]; then dir=$1/src/$3 name=time; else dir=$here/one name=one; fi
	printf 'package %s\n\nvar countBallast = make([]byte, 256<<20)\n' $name > "$work/ballast-$name.go"
	printf '{"Replace":{"%s/zz_ballast_test.go":"%s"}}' "$dir" "$work/ballast-$name.go" > "$work/overlay.json"
	(cd "$dir" && GOROOT=$1 "$1/bin/go" test -c -overlay="$work/overlay.json" -o "$2" .)
}
declare -A tc=([heap]=$root/build/toolchains/heap [wheel]=$root/build/toolchains/wheel)
for v in heaponly trim heaponly+trim lazy heaponly+trim+lazy; do
	cp -a "$root/build/toolchains/wheel" "$work/$v"
	for d in ${v//+/ }; do
		case $d in heaponly) d=heap-only ;; lazy) d=lazy-bound ;; esac
		patch -s -d "$work/$v" -p1 < "$here/$d.diff"
	done
	tc[$v]=$work/$v
done
for v in heap wheel heaponly trim heaponly+trim lazy heaponly+trim+lazy; do
	gotest "${tc[$v]}" "$work/$v-time.test" time
	gotest "${tc[$v]}" "$work/$v-one.test"
done
count() { # count NAME BIN BENCH N DIR
	for n in $4 $(($4 * 3)); do
		GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1,memprofilerate=0 valgrind --tool=cachegrind \
			--cache-sim=no --cachegrind-out-file="$5/cg.$1.$n" "$2" -test.run '^$' -test.cpu 1 \
			-test.bench "$3" -test.benchtime ${n}x > /dev/null 2>&1
	done
}
all="heap wheel heaponly trim heaponly+trim lazy heaponly+trim+lazy"
mkdir -p "$work/ss" "$work/reset" "$work/stop"
for v in $all; do
	count $v "$work/$v-time.test" 'BenchmarkStartStop1000$' 100 "$work/ss"
	count $v "$work/$v-time.test" 'BenchmarkReset$/^impl=func$' 20000 "$work/reset"
	count $v "$work/$v-time.test" 'BenchmarkStop$/^impl=func$' 20000 "$work/stop"
done
{
	echo "# StartStop1000, per timer (an op starts and stops 1000)"
	python3 "$here/cg.py" split "$work/ss" 100 300 200000 $all
	echo "# Reset/impl=func, per op"
	python3 "$here/cg.py" split "$work/reset" 20000 60000 40000 $all
	echo "# Stop/impl=func, per op"
	python3 "$here/cg.py" split "$work/stop" 20000 60000 40000 $all
	echo "# Stop/impl=func: the wheel's cascades"
	python3 "$here/cg.py" fn "$work/stop" 20000 60000 40000 heap wheel 'wheelAdvance|[cC]ascade' | sed -n 2p
	echo "# StartStop1000 by function, heap against wheel, then against heaponly+trim"
	python3 "$here/cg.py" fn "$work/ss" 100 300 200000 heap wheel 'wheelAdvance|[cC]ascade'
	python3 "$here/cg.py" fn "$work/ss" 100 300 200000 heap heaponly+trim
} > "$out/counts.txt"
# One timer live: AfterFunc(30 s) then Stop. Its count varies from run to run: three runs.
for r in 1 2 3; do
	mkdir -p "$work/one$r"
	for v in heap wheel lazy heaponly+trim heaponly+trim+lazy; do count $v "$work/$v-one.test" 'BenchmarkAfterFunc30sStop$' 50000 "$work/one$r"; done
	{ echo "# AfterFunc(30 s)+Stop, one timer live, run $r, per op"
	  python3 "$here/cg.py" split "$work/one$r" 50000 150000 100000 heap wheel lazy heaponly+trim heaponly+trim+lazy
	  python3 "$here/cg.py" fn "$work/one$r" 50000 150000 100000 heap wheel; } >> "$out/one.txt"
done
cat "$out/counts.txt" "$out/one.txt"
