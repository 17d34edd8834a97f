#!/usr/bin/env bash
# count.sh OUT: where pwait2-slack's instructions over pristine upstream go with its GODEBUG off
# (timerslack=0) and on (timerslack=1, the variant's setting), by function: package time's StartStop1000, Sleep1000 and
# Stop/impl=func, counted by cachegrind as `timerlab instr` counts (GOMAXPROCS=1, GOGC=off,
# asyncpreemptoff=1, memprofilerate=0, its 256 MiB ballast; Ir(3N) - Ir(N) over 2N ops).
# Run from the checkout, with build/toolchains/{upstream,pwait2-slack} built. Needs valgrind and
# python3. About 10 minutes on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: count.sh OUT}
root=$(git -C "$here" rev-parse --show-toplevel)
cg=$here/../2026-11-29-078b2b15-wheel-small-n/cg.py
mkdir -p "$out"; out=$(cd "$out" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export GOTOOLCHAIN=local GOFLAGS= GOWORK=off
printf 'package time\n\nvar countBallast = make([]byte, 256<<20)\n' > "$work/ballast.go"
for v in upstream pwait2-slack; do
	g=$root/build/toolchains/$v
	printf '{"Replace":{"%s/src/time/zz_ballast_test.go":"%s"}}' "$g" "$work/ballast.go" > "$work/overlay.json"
	(cd "$g/src/time" && GOROOT=$g "$g/bin/go" test -c -overlay="$work/overlay.json" -o "$work/$v.test" .)
done
count() { # count NAME BIN GODEBUG BENCH N DIR
	for n in $5 $(($5 * 3)); do
		GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1,memprofilerate=0$3 valgrind --tool=cachegrind \
			--cache-sim=no --cachegrind-out-file="$6/cg.$1.$n" "$2" -test.run '^$' -test.cpu 1 \
			-test.bench "$4" -test.benchtime ${n}x > /dev/null 2>&1
	done
}
run() { # run DIR BENCH N: upstream, pwait2-slack off (timerslack=0) and on (timerslack=1)
	mkdir -p "$work/$1"
	count upstream "$work/upstream.test" "" "$2" $3 "$work/$1"
	count off "$work/pwait2-slack.test" ",timerslack=0" "$2" $3 "$work/$1"
	count on "$work/pwait2-slack.test" ",timerslack=1" "$2" $3 "$work/$1"
}
run ss 'BenchmarkStartStop1000$' 100
run stop 'BenchmarkStop$/^impl=func$' 20000
for r in 1 2 3; do run sleep$r 'BenchmarkSleep1000$' 200; done
{
	echo "# StartStop1000, per timer (an op starts and stops 1000): upstream, off, on"
	python3 "$cg" fn "$work/ss" 100 300 200000 upstream off
	python3 "$cg" fn "$work/ss" 100 300 200000 upstream on
	echo "# Stop/impl=func, per op"
	python3 "$cg" fn "$work/stop" 20000 60000 40000 upstream off
	python3 "$cg" fn "$work/stop" 20000 60000 40000 upstream on
	for r in 1 2 3; do
		echo "# Sleep1000, per sleep (an op is 1000 goroutines sleeping 1 ns), run $r"
		python3 "$cg" fn "$work/sleep$r" 200 600 400000 upstream off
	done
} > "$out/counts.txt"
cat "$out/counts.txt"
