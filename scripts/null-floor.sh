#!/usr/bin/env bash
# null-floor.sh OUT: measure the floor under any timer set, the cost of AfterFunc+Stop that no
# timer set can remove, beside heap and wheel, and write the figures to OUT.
# null-floor.sh --toolchain-only: only derive the null toolchain (build/floor/null).
#
# The null toolchain is heap's toolchain with one change in runtime/time.go: needsAdd answers false
# for a timer whose argument is a func, which is what time.AfterFunc passes. Such a timer is
# allocated, initialised, locked and stopped exactly as in heap, but never enters a timer set (and
# never fires). Sleeps, channel timers, netpoll deadlines and the runtime's own timers are untouched.
# What AfterFunc+Stop costs with it is allocation, the timer's own lock, the collector's work for
# the N live timers and the page faults on fresh memory: the floor under BenchmarkCostVsN and
# BenchmarkTimeoutVsN, whatever the timer set (docs/wheel.md, "The floor under any timer set").
#
# The three bench/timers test binaries (heap, wheel, null) run in ROUNDS interleaved rounds
# (default 12), the order rotated each round; OUT gets heap.txt, wheel.txt, null.txt and
# benchstat.txt. OUT is written beside itself and renamed into place when complete.
#
# Invariants:
#   - heap's and wheel's toolchains must be built from the current series (their stamps match),
#     as timerlab bench requires.
#   - build/floor/null exists only as a finished null toolchain whose change was checked: an
#     AfterFunc timer built with it does not fire while a Sleep returns.
source "$(dirname "$0")/lib.sh"

rounds=${ROUNDS:-12}
mode=measure
case ${1:-} in
--toolchain-only) mode=toolchain ;;
"" | -*) die "usage: null-floor.sh OUT | --toolchain-only" ;;
*) out=$(realpath -m "$1") ;;
esac
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS=$rounds: want a positive number of rounds"

# The line of needsAdd the change follows, and the change.
anchor='need := t.state&timerHeaped == 0 && t.when > 0 && (!t.isChan || t.blocked > 0)'
null_lines='	if e := efaceOf(&t.arg); e._type != nil && e._type.Kind() == abi.Func {
		need = false // timerlab null floor: an AfterFunc timer enters no timer set
	}'

# require_current VARIANT fails unless VARIANT's toolchain is built from the current series.
require_current() {
	local tc
	tc=$(toolchain_dir "$1")
	[ -x "$tc/bin/go" ] || die "no toolchain for $1 at $tc: run scripts/build-toolchain.sh $1"
	[ "$(cat "$tc/.timerlab-stamp" 2>/dev/null)" = "$(toolchain_stamp "$1")" ] ||
		die "$1's toolchain at $tc is not built from the current series: run scripts/build-toolchain.sh $1"
}

# derive_null: copy heap's toolchain to build/floor/null with the change, and check it.
derive_null() {
	local dest tmp timego n
	dest="$TL_BUILD/floor/null"
	mkdir -p "$TL_BUILD/floor"
	rm -rf "$TL_BUILD"/floor/.null.tmp.*
	tmp=$(mktemp -d "$TL_BUILD/floor/.null.tmp.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	cp -a "$(toolchain_dir heap)/." "$tmp"
	timego="$tmp/src/runtime/time.go"
	n=$(grep -cxF "	$anchor" "$timego" || true)
	[ "$n" = 1 ] || die "heap's runtime/time.go has $n lines '$anchor' (want 1): the null change no longer applies"
	awk -v anchor="	$anchor" -v add="$null_lines" '{ print } $0 == anchor { print add }' "$timego" >"$timego.new"
	mv "$timego.new" "$timego"
	check_null "$tmp"
	rm -rf "$dest"
	mv "$tmp" "$dest"
	trap - EXIT
	step "null toolchain at $dest"
}

# check_null GOROOT: an AfterFunc timer must not fire, and a Sleep must return.
check_null() {
	local dir got
	dir=$(mktemp -d)
	cat >"$dir/main.go" <<'EOF'
package main

import (
	"fmt"
	"time"
)

func main() {
	fired := make(chan bool, 1)
	time.AfterFunc(time.Millisecond, func() { fired <- true })
	time.Sleep(20 * time.Millisecond)
	select {
	case <-fired:
		fmt.Println("fired")
	default:
		fmt.Println("null")
	}
}
EOF
	got=$(cd "$dir" && GOTOOLCHAIN=local GOFLAGS= "$1/bin/go" run main.go 2>&1) || true
	rm -rf "$dir"
	[ "$got" = null ] || die "the null toolchain is not null: a check program printed '$got' (want null)"
}

# measure: build the three test binaries and run the rounds into OUT.
measure() {
	local tmp bin v r k vs=(heap wheel null)
	tmp=$(mktemp -d "$(dirname "$out")/.$(basename "$out").tmp.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	for v in "${vs[@]}"; do
		bin="$(toolchain_dir heap)/bin/go"
		[ "$v" = wheel ] && bin="$(toolchain_dir wheel)/bin/go"
		[ "$v" = null ] && bin="$TL_BUILD/floor/null/bin/go"
		step "go test -c ./timers with $v's toolchain"
		(cd "$TL_ROOT/bench" && GOTOOLCHAIN=local GOFLAGS= "$bin" test -c -o "$tmp/$v.test" ./timers) ||
			die "cannot build bench/timers with $v's toolchain"
	done
	for r in $(seq 1 "$rounds"); do
		step "round $r of $rounds"
		for k in 0 1 2; do
			v=${vs[$(((r + k) % 3))]}
			"$tmp/$v.test" -test.run '^$' -test.bench '^Benchmark(TimeoutVsN|CostVsN)$/^N=(1K|4M)$' \
				-test.benchmem >>"$tmp/$v.txt" || die "$v's benchmark failed in round $r"
		done
	done
	rm -f "$tmp"/*.test
	(cd "$TL_ROOT" && go run golang.org/x/perf/cmd/benchstat -filter '.unit:sec/op' \
		heap="$tmp/heap.txt" wheel="$tmp/wheel.txt" null="$tmp/null.txt") >"$tmp/benchstat.txt" ||
		die "benchstat failed"
	rm -rf "$out"
	mv "$tmp" "$out"
	trap - EXIT
	cat "$out/benchstat.txt"
}

require_current heap
derive_null
[ "$mode" = toolchain ] && exit 0
require_current wheel
measure
