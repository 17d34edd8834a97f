#!/usr/bin/env bash
# cross-check.sh [--full|--all]: check that the series builds on the ports Go supports, not only on
# this machine's: `go vet runtime time` (which type-checks every file the build selects, with the
# tests) then `go build runtime time net`, with GOOS, GOARCH and GOEXPERIMENT set.
#
# The overlay's files are split by experiment (timerwheel, timerslack, both, neither) and by OS
# (linux, other unix, windows); nothing in them depends on the architecture but the size of a word,
# and this machine's builds (one toolchain per experiment) compile every linux file. So by default,
# for `make test`, both experiments at once are checked on darwin/arm64 (unix, not linux) and on
# windows/amd64 (not unix): every file of another OS, with the experiments on. --full, for
# `make test-full`, checks each port once per experiment set across that tier: the experiments'
# four combinations on darwin/arm64 and windows/amd64, and on linux/386 and linux/arm64 the
# combinations no other step of it builds (neither, and the wheel alone on 386: test-variant.sh
# --full builds slack's and wheel-slack's runtime tests for 386, and test-ports.sh --full the timer
# tests of slack, wheel and wheel-slack for arm64): eleven. --all checks every combination on the
# four ports (sixteen). The null floor's files (timernull) are not split by port: the null
# toolchain's own build checks them.
#
# One patched toolchain serves every experiment (patch 0001 registers them in all of them): heap's.
source "$(dirname "$0")/lib.sh"

mode=
case ${1:-} in
"") ;;
--full | --all) mode=$1 ;;
*) echo "cross-check.sh: usage: cross-check.sh [--full|--all]" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "cross-check.sh: usage: cross-check.sh [--full|--all]" >&2; exit 2; }
tc=$(toolchain_dir heap)
require_toolchain heap
toolchain_current heap || die "the toolchain of heap is stale: run scripts/build-toolchain.sh heap"

export GOROOT=$tc PATH="$tc/bin:$PATH" GOTOOLCHAIN=local GOFLAGS= CGO_ENABLED=0
unset GODEBUG GOMAXPROCS
every="none timerwheel timerslack timerwheel,timerslack"
configs=()
case $mode in
"")
	configs=(darwin/arm64:timerwheel,timerslack windows/amd64:timerwheel,timerslack)
	;;
--full)
	for port in darwin/arm64 windows/amd64; do
		for exp in $every; do configs+=("$port:$exp"); done
	done
	configs+=(linux/386:none linux/386:timerwheel linux/arm64:none)
	;;
--all)
	for port in linux/386 linux/arm64 darwin/arm64 windows/amd64; do
		for exp in $every; do configs+=("$port:$exp"); done
	done
	;;
esac
failed=()

# check WHAT CMD...: run CMD, print one line with its verdict, keep its output if it failed.
check() {
	local what=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "ok    $what"
	else
		echo "FAIL  $what"
		printf '%s\n' "$out" | sed 's/^/      /'
		failed+=("$what")
		return 1
	fi
}

cd "$tc/src"
for c in "${configs[@]}"; do
	port=${c%%:*} exp=${c#*:}
	[ "$exp" != none ] || exp=
	goenv=(GOOS="${port%/*}" GOARCH="${port#*/}" GOEXPERIMENT="$exp")
	# The build of a port and experiments whose vet failed would fail the same way: skip it.
	if check "$port GOEXPERIMENT=${exp:-none}: go vet runtime time" env "${goenv[@]}" go vet runtime time; then
		check "$port GOEXPERIMENT=${exp:-none}: go build runtime time net" env "${goenv[@]}" go build runtime time net || true
	fi
done
[ ${#failed[@]} = 0 ] || die "${#failed[@]} check(s) failed: ${failed[*]}"
step "${#configs[@]} ports and experiments checked"
