#!/usr/bin/env bash
# count.sh OUT [NAME=GOROOT ...]: instructions per op of small timer sets, counted by cachegrind as
# `timerlab instr` counts them (GOMAXPROCS=1, GOGC=off, asyncpreemptoff=1, memprofilerate=0, its
# 256 MiB ballast; Ir(3N) - Ir(N) over 2N ops), for each toolchain named (default: heap and wheel
# of build/toolchains). package time's StartStop1000, Reset/impl=func and Stop/impl=func (32768
# timers of an hour live), and AfterFunc(30 s)+Stop with no other timer (the one-benchmark module
# of the 078b2b15 entry). Needs valgrind and python3; about 5 minutes a toolchain on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prev=$here/../2026-11-29-078b2b15-wheel-small-n # its one/ module and cg.py
root=$(git -C "$here" rev-parse --show-toplevel)
out=${1:?usage: count.sh OUT [NAME=GOROOT ...]}
shift
[ $# -gt 0 ] || set -- heap="$root/build/toolchains/heap" wheel="$root/build/toolchains/wheel"
mkdir -p "$out"; out=$(cd "$out" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export GOTOOLCHAIN=local GOFLAGS= GOWORK=off
names=()
declare -A tc
for a in "$@"; do
	[ -x "${a#*=}/bin/go" ] || { echo "count.sh: no toolchain at ${a#*=}" >&2; exit 1; }
	tc[${a%%=*}]=${a#*=}
	names+=("${a%%=*}")
done
# gotest GOROOT OUT [PKG]: a test binary of PKG (default: the one-benchmark module) at OUT, with
# the ballast that timerlab instr adds.
gotest() {
	local dir name
	if [ $# -eq 3 ]; then dir=$1/src/$3 name=time; else dir=$prev/one name=one; fi
	printf 'package %s\n\nvar countBallast = make([]byte, 256<<20)\n' $name > "$work/ballast-$name.go"
	printf '{"Replace":{"%s/zz_ballast_test.go":"%s"}}' "$dir" "$work/ballast-$name.go" > "$work/overlay.json"
	(cd "$dir" && GOROOT=$1 "$1/bin/go" test -c -overlay="$work/overlay.json" -o "$2" .)
}
for v in "${names[@]}"; do
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
mkdir -p "$work/ss" "$work/reset" "$work/stop" "$work/one"
for v in "${names[@]}"; do # two at a time: cachegrind is single-threaded
	count "$v" "$work/$v-time.test" 'BenchmarkStartStop1000$' 100 "$work/ss" &
	count "$v" "$work/$v-time.test" 'BenchmarkReset$/^impl=func$' 20000 "$work/reset"
	wait
	count "$v" "$work/$v-time.test" 'BenchmarkStop$/^impl=func$' 20000 "$work/stop" &
	count "$v" "$work/$v-one.test" 'BenchmarkAfterFunc30sStop$' 50000 "$work/one"
	wait
done
{
	echo "# StartStop1000, per timer (an op starts and stops 1000)"
	python3 "$prev/cg.py" split "$work/ss" 100 300 200000 "${names[@]}"
	echo "# Reset/impl=func, per op"
	python3 "$prev/cg.py" split "$work/reset" 20000 60000 40000 "${names[@]}"
	echo "# Stop/impl=func, per op"
	python3 "$prev/cg.py" split "$work/stop" 20000 60000 40000 "${names[@]}"
	echo "# AfterFunc(30 s)+Stop, no other timer live, per op"
	python3 "$prev/cg.py" split "$work/one" 50000 150000 100000 "${names[@]}"
	for f in ss reset stop one; do
		echo "# $f by function, ${names[0]} against ${names[1]:-${names[0]}}"
		python3 "$prev/cg.py" fn "$work/$f" $(case $f in ss) echo 100 300 200000 ;; one) echo 50000 150000 100000 ;; *) echo 20000 60000 40000 ;; esac) "${names[0]}" "${names[1]:-${names[0]}}" > "$work/fn.txt"
		sed -n 1,12p "$work/fn.txt"
	done
} > "$out/counts.txt"
cat "$out/counts.txt"
