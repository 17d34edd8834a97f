#!/usr/bin/env bash
# startstop.sh A=BIN B=BIN: instructions per timer of time's BenchmarkStartStop1000, by function,
# for two test binaries of package time (as `timerlab instr` builds them: its --out DIR/bin/V/),
# measured as (Ir(300x) - Ir(100x)) / 200,000 under cachegrind, in the environment of timerlab instr
# (without its ballast). Prints B against A, the functions that differ most first.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
a=${1%%=*} abin=${1#*=} b=${2%%=*} bbin=${2#*=}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for v in "$a=$abin" "$b=$bbin"; do
	name=${v%%=*} bin=${v#*=}
	for n in 100 300; do
		GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1,memprofilerate=0 valgrind --tool=cachegrind \
			--cache-sim=no --cachegrind-out-file="$work/cg.$name.$n" "$bin" -test.run x \
			-test.bench 'BenchmarkStartStop1000$' -test.benchtime ${n}x > /dev/null 2>&1
	done
done
cd "$work" && python3 "$here/by-function.py" "$a" "$b"
