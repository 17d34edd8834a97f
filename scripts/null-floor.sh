#!/usr/bin/env bash
# null-floor.sh OUT: measure the floor under any timer set, the cost of AfterFunc+Stop that no
# timer set can remove, beside heap and wheel, and write the figures to OUT.
# null-floor.sh --toolchain-only: only derive the null toolchain (build/floor/null).
#
# The null toolchain is heap's toolchain with one change in runtime/time.go: needsAdd answers false
# for a timer whose argument is a func, which is what time.AfterFunc passes. Such a timer is
# allocated, initialised, locked, modified and stopped as in heap, but maybeAdd never runs for it:
# it takes no P's timers lock, enters no timer set, wakes no netpoller and never fires. Sleeps,
# channel timers, netpoll deadlines and the runtime's own timers are untouched; every AfterFunc
# user is not (context deadlines, the test binary's -test.timeout alarm), so the benchmarks run
# under `timeout` here. What AfterFunc+Stop costs with it is allocation, the timer's own lock, the
# collector's work for the N live timers and the page faults on fresh memory: the floor under
# BenchmarkCostVsN and BenchmarkTimeoutVsN (docs/log/2026-11-25-06cde09d-null-floor.md).
#
# The three bench/timers test binaries (heap, wheel, null) run in ROUNDS interleaved rounds
# (default 12), the order rotated each round; OUT gets heap.txt, wheel.txt, null.txt and
# benchstat.txt. OUT is written beside itself and renamed into place when complete; an existing
# OUT is replaced only if it holds nothing but those files.
#
# Invariants:
#   - heap's and wheel's toolchains must be built from the current series (their stamps match),
#     as timerlab bench requires.
#   - build/floor/null exists only as a finished null toolchain whose change was checked: an
#     AfterFunc timer built with it does not fire within a second, while with heap's it does.
#   - One null-floor.sh at a time (lock build/floor/.lock); a failed or interrupted run leaves
#     neither a half-made toolchain nor a half-written OUT.
source "$(dirname "$0")/lib.sh"

rounds=${ROUNDS:-12}
out=
case ${1:-} in
--toolchain-only) ;;
"" | -*) die "usage: null-floor.sh OUT | --toolchain-only" ;;
*) out=$(realpath -m "$1") ;;
esac
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS=$rounds: want a positive number of rounds"

# The files a measurement writes, and so all an OUT it replaces may hold.
out_files=(heap.txt wheel.txt null.txt benchstat.txt)

# The line of needsAdd the change follows, and the change.
anchor='need := t.state&timerHeaped == 0 && t.when > 0 && (!t.isChan || t.blocked > 0)'
null_lines='	if e := efaceOf(&t.arg); e._type != nil && e._type.Kind() == abi.Func {
		need = false // timerlab null floor: an AfterFunc timer enters no timer set
	}'

# The temporary directories of this run, and an earlier OUT while it is moved aside.
null_tmp= out_tmp= check_tmp= out_old=

# cleanup, on any exit, removes this run's temporary directories, and puts an earlier OUT back if
# the run stopped between moving it aside and moving the new one in.
cleanup() {
	if [ -n "$out_old" ] && [ ! -e "$out" ]; then
		mv -T "$out_old" "$out"
	fi
	rm -rf "$null_tmp" "$out_tmp" "$check_tmp" "$out_old"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# require_out: OUT's parent exists, and OUT, if it exists, is an earlier output of this script:
# a directory of regular files named as out_files, nothing else.
require_out() {
	local f name
	[ -d "$(dirname "$out")" ] || die "no directory $(dirname "$out") to write $out in"
	[ -e "$out" ] || [ -L "$out" ] || return 0
	[ -d "$out" ] && [ ! -L "$out" ] || die "$out exists and is not a directory"
	while IFS= read -r -d '' f; do
		name=$(basename "$f")
		[ -f "$f" ] && [ ! -L "$f" ] && is_out_file "$name" ||
			die "$out holds $name, which null-floor.sh does not write: name a new directory"
	done < <(find "$out" -mindepth 1 -maxdepth 1 -print0)
}

# is_out_file NAME succeeds when NAME is one of out_files.
is_out_file() {
	local f
	for f in "${out_files[@]}"; do
		[ "$1" = "$f" ] && return 0
	done
	return 1
}

# require_current VARIANT fails unless VARIANT's toolchain is built from the current series.
require_current() {
	require_toolchain "$1"
	toolchain_current "$1" ||
		die "$1's toolchain at $(toolchain_dir "$1") is not built from the current series: run scripts/build-toolchain.sh $1"
}

# derive_null: copy heap's toolchain to build/floor/null with the change, and check it.
derive_null() {
	local dest="$TL_BUILD/floor/null" timego n
	rm -rf "$TL_BUILD"/floor/.null.tmp.*
	null_tmp=$(mktemp -d "$TL_BUILD/floor/.null.tmp.XXXXXX")
	cp -a "$(toolchain_dir heap)/." "$null_tmp"
	timego="$null_tmp/src/runtime/time.go"
	n=$(grep -cxF "	$anchor" "$timego" || true)
	[ "$n" = 1 ] || die "heap's runtime/time.go has $n lines '$anchor' (want 1): the null change no longer applies"
	awk -v anchor="	$anchor" -v add="$null_lines" '{ print } $0 == anchor { print add }' "$timego" >"$timego.new"
	mv "$timego.new" "$timego"
	check_fires "$(toolchain_dir heap)" fired
	check_fires "$null_tmp" null
	rm -rf "$dest"
	mv "$null_tmp" "$dest"
	null_tmp=
	step "null toolchain at $dest"
}

# check_fires GOROOT WANT: a program built with GOROOT starts an AfterFunc timer due in 1 ms and
# sleeps a second; it must print WANT: fired (heap's, the control) or null.
check_fires() {
	local got
	check_tmp=$(mktemp -d)
	cat >"$check_tmp/main.go" <<'EOF'
package main

import (
	"fmt"
	"time"
)

func main() {
	fired := make(chan bool, 1)
	time.AfterFunc(time.Millisecond, func() { fired <- true })
	time.Sleep(time.Second)
	select {
	case <-fired:
		fmt.Println("fired")
	default:
		fmt.Println("null")
	}
}
EOF
	got=$(cd "$check_tmp" && GOTOOLCHAIN=local GOFLAGS= timeout --foreground 300 "$1/bin/go" run main.go 2>&1 9>&- | head -n 1) || true
	rm -rf "$check_tmp"
	check_tmp=
	[ "$got" = "$2" ] || die "check program built with $1 printed '$got' (want $2)"
}

# measure: build the three test binaries and run the rounds into OUT.
measure() {
	local bin v r k vs=(heap wheel null)
	rm -rf "$(dirname "$out")/.$(basename "$out").tmp."*
	out_tmp=$(mktemp -d "$(dirname "$out")/.$(basename "$out").tmp.XXXXXX")
	for v in "${vs[@]}"; do
		case $v in
		null) bin="$TL_BUILD/floor/null/bin/go" ;;
		*) bin="$(toolchain_dir "$v")/bin/go" ;;
		esac
		step "go test -c ./timers with $v's toolchain"
		(cd "$TL_ROOT/bench" && GOTOOLCHAIN=local GOFLAGS= "$bin" test -c -o "$out_tmp/$v.test" ./timers 9>&-) ||
			die "cannot build bench/timers with $v's toolchain"
	done
	for r in $(seq 1 "$rounds"); do
		step "round $r of $rounds"
		for k in 0 1 2; do
			v=${vs[$(((r + k) % 3))]}
			timeout --foreground 600 "$out_tmp/$v.test" -test.run '^$' -test.bench '^Benchmark(TimeoutVsN|CostVsN)$/^N=(1K|4M)$' \
				-test.benchmem >>"$out_tmp/$v.txt" 9>&- || die "$v's benchmark failed in round $r"
		done
	done
	rm -f "$out_tmp"/*.test
	(cd "$TL_ROOT" && go run golang.org/x/perf/cmd/benchstat -filter '.unit:sec/op' \
		heap="$out_tmp/heap.txt" wheel="$out_tmp/wheel.txt" null="$out_tmp/null.txt" 9>&-) >"$out_tmp/benchstat.txt" ||
		die "benchstat failed"
	replace_out
	cat "$out/benchstat.txt"
}

# replace_out: move the finished out_tmp to OUT. An earlier OUT, checked again now, is moved
# aside first and removed last; cleanup puts it back if the new one did not get in.
replace_out() {
	require_out
	if [ -e "$out" ]; then
		out_old="$out_tmp.old"
		mv -T "$out" "$out_old"
	fi
	mv -T "$out_tmp" "$out"
	out_tmp=
	rm -rf "$out_old"
	out_old=
}

[ -z "$out" ] || require_out
require_current heap
[ -z "$out" ] || require_current wheel
mkdir -p "$TL_BUILD/floor"
exec 9>"$TL_BUILD/floor/.lock"
flock -n 9 || die "another null-floor.sh is running (lock $TL_BUILD/floor/.lock)"
derive_null
[ -z "$out" ] || measure
