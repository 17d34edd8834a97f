#!/usr/bin/env bash
# rounds.sh OUT ROUNDS [NAME=GOROOT ...]: bench/timers' Burst at 1M timers and TimeoutVsN at 4M,
# each round a fresh process per toolchain, the toolchains interleaved within a round, with the
# `timers` set's -test.benchtime of 1s (so Burst runs one burst, its first). Writes OUT/NAME.txt
# (benchfmt, one file per toolchain) and OUT/benchstat.txt. Default toolchains: heap and wheel of
# build/toolchains. Needs golang.org/x/perf's benchstat (fetched through the module proxy).
# About 25 s a round per toolchain on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(git -C "$here" rev-parse --show-toplevel)
out=${1:?usage: rounds.sh OUT ROUNDS [NAME=GOROOT ...]}
rounds=${2:?usage: rounds.sh OUT ROUNDS [NAME=GOROOT ...]}
shift 2
[ $# -gt 0 ] || set -- heap="$root/build/toolchains/heap" wheel="$root/build/toolchains/wheel"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export GOTOOLCHAIN=local GOFLAGS= GOWORK=off
names=()
for a in "$@"; do
	[ -x "${a#*=}/bin/go" ] || { echo "rounds.sh: no toolchain at ${a#*=}" >&2; exit 1; }
	n=${a%%=*}
	(cd "$root/bench/timers" && GOROOT=${a#*=} "${a#*=}/bin/go" test -c -o "$work/$n.test" .)
	names+=("$n")
done
(cd "$root" && go build -o "$work/benchstat" golang.org/x/perf/cmd/benchstat)
mkdir -p "$out"
for n in "${names[@]}"; do : > "$work/$n.txt"; done
for r in $(seq "$rounds"); do
	for n in "${names[@]}"; do
		for b in 'Burst/timers=1M' 'TimeoutVsN/N=4M'; do
			"$work/$n.test" -test.run '^$' -test.bench "^Benchmark$b\$" -test.benchtime 1s \
				-test.benchmem >> "$work/$n.txt"
		done
	done
	echo "rounds.sh: round $r of $rounds" >&2
done
for n in "${names[@]}"; do cp "$work/$n.txt" "$out/$n.txt"; done
(cd "$out" && "$work/benchstat" "${names[@]/%/.txt}") > "$out/benchstat.txt"
cat "$out/benchstat.txt"
