#!/usr/bin/env bash
# run-sleeps.sh ROUNDS WORK: bench/wakeups' SubMsSleep (50 goroutines, sleeps of 20-1000 us) at
# GOMAXPROCS=2, 100,000 sleeps a run, base and new interleaved for ROUNDS rounds, with the binaries
# build.sh wrote to WORK. Each line of output is a benchmark line after the binary's name.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: run-sleeps.sh ROUNDS WORK" >&2; exit 2; }
rounds=$1 work=$2
for v in base new; do [ -x "$work/wk-$v" ] || { echo "run-sleeps.sh: no $work/wk-$v: run build.sh" >&2; exit 1; }; done
for r in $(seq 1 "$rounds"); do
	for v in base new; do
		GOMAXPROCS=2 "$work/wk-$v" -test.run '^$' -test.bench 'SubMsSleep' -test.benchtime 100000x -test.count 1 2>&1 |
			grep -E '^BenchmarkSubMsSleep' | sed "s/^/$v /"
	done
done
