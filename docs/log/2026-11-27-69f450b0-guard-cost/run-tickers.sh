#!/usr/bin/env bash
# run-tickers.sh WORK: bench/wakeups' StaggeredTickers (1000 tickers of 10 ms, GOMAXPROCS=2),
# -test.benchtime=1s as the harness runs it, 6 interleaved rounds, with the five binaries that
# run-sleeps.sh WORK built there.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: run-tickers.sh WORK" >&2; exit 2; }
work=$1
run() { local v=$1 b=$1 g=; case $v in pwait2) b=heap g=epollpwait2=1 ;; esac
	GODEBUG=$g "$work/w.$b" -test.run '^$' -test.bench 'StaggeredTickers$' -test.benchtime 1s; }
rm -f "$work"/tickers-*.txt
for r in 1 2 3 4 5 6; do
	for v in pwait2 heap slack guardfree nodefer; do run $v | grep '^Benchmark' >> "$work/tickers-$v.txt"; done
done
