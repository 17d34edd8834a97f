#!/usr/bin/env bash
# run-tickers.sh ROUNDS WORK: bench/wakeups' StaggeredTickers (1000 tickers of 10 ms) at
# GOMAXPROCS=2 for 1 s a run, base and new interleaved for ROUNDS rounds, with the binaries build.sh
# wrote to WORK. Each line of output is a benchmark line after the binary's name.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: run-tickers.sh ROUNDS WORK" >&2; exit 2; }
rounds=$1 work=$2
for v in base new; do [ -x "$work/wk-$v" ] || { echo "run-tickers.sh: no $work/wk-$v: run build.sh" >&2; exit 1; }; done
for r in $(seq 1 "$rounds"); do
	for v in base new; do
		GOMAXPROCS=2 "$work/wk-$v" -test.run '^$' -test.bench 'StaggeredTickers$' -test.benchtime 1s -test.count 1 2>&1 |
			grep -E '^BenchmarkStaggered' | sed "s/^/$v /"
	done
done
