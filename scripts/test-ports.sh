#!/usr/bin/env bash
# test-ports.sh VARIANT [--quick|--full] [PORT...]: Go's timer tests of a variant as binaries of
# other ports, run on this machine under qemu-user: what this machine cannot run natively, where
# 64-bit atomics, word sizes and signals differ.
#
# The ports (PORT as GOOS/GOARCH):
#   linux/arm      GOARM=6, run with QEMU_CPU=arm1176, a CPU without LPAE: 64-bit atomics take the
#                  runtime's spinlocks (with GOARM=6 Go takes them on any CPU)
#   linux/mipsle   64-bit atomics under one global spinlock
#   linux/arm64
#   linux/riscv64
# (linux/386 runs natively: test-variant.sh --full.)
#
# With the variant's toolchain, `go test -c` builds once per port the test binaries of time, the
# runtime and runtime/metrics, into build/ports/VARIANT/GOOS-GOARCH/; each mode runs those same
# binaries, each from its package's directory (testdata), as go test runs them:
#   --quick (default)  -short, the first of the ports named (default: linux/mipsle), for `make test`
#   --full             without -short, at GOMAXPROCS=4 (more Ps than this machine's cores: timer
#                      stealing and preemption), on every port named (default: all)
# time and runtime/metrics run all their tests, the runtime its timer tests (test-variant.sh's -run
# pattern), each under the variant's GODEBUG and a deadline: a hung binary is killed with SIGQUIT
# (its goroutines' stacks) and counts as failed.
#
# What cannot run under qemu-user for reasons that have nothing to do with timers:
#   - a test that builds and runs a program (testprog, a cgo check) needs a go command, and then
#     would exec a binary of the port, which this machine runs only through qemu, and without
#     binfmt_misc not at all: the binaries run with no go on PATH, so that internal/testenv's
#     MustHaveGoBuild skips those tests, saying so;
#   - the tests skipped by name in skips below, each with its reason.
#
# Extra test binary flags can be passed in TIMERLAB_TESTFLAGS (e.g. -test.v); they come last.
source "$(dirname "$0")/lib.sh"

usage() {
	echo "test-ports.sh: usage: test-ports.sh VARIANT [--quick|--full] [PORT...] (ports: ${all_ports[*]})" >&2
	exit 2
}

all_ports=(linux/arm linux/mipsle linux/arm64 linux/riscv64)
declare -A goarm=([linux/arm]=6)
declare -A qemu=([linux/arm]=arm [linux/mipsle]=mipsel [linux/arm64]=aarch64 [linux/riscv64]=riscv64)
declare -A qemu_cpu=([linux/arm]=arm1176)

variant=${1:-}
[ $# -gt 0 ] && shift
mode=--quick
case ${1:-} in --quick | --full) mode=$1 && shift ;; -*) usage ;; esac
ports=()
for p in "$@"; do
	[ -n "${qemu[$p]:-}" ] || { echo "test-ports.sh: unknown port '$p' (known: ${all_ports[*]})" >&2; exit 2; }
	ports+=("$p")
done
require_variant "$variant"
if [ ${#ports[@]} = 0 ]; then
	if [ "$mode" = --quick ]; then ports=(linux/mipsle); else ports=("${all_ports[@]}"); fi
elif [ "$mode" = --quick ]; then
	ports=("${ports[0]}")
fi
tc=$(toolchain_dir "$variant")
require_toolchain "$variant"
goexp=$(env -u GOEXPERIMENT GOROOT="$tc" "$tc/bin/go" env GOEXPERIMENT)
[[ ,$goexp, != *,timernull,* ]] || die "$variant is the null floor, whose AfterFunc timers never fire: Go's timer tests fail on it by design"
for p in "${ports[@]}"; do
	command -v "qemu-${qemu[$p]}-static" >/dev/null || die "no qemu-${qemu[$p]}-static for $p: run scripts/install-deps.sh"
done

# The packages, each with its -run pattern ("" for all) and the tests it skips by name.
pkgs=(time runtime runtime/metrics)
declare -A run=([runtime]=$TL_RUNTIME_TIMER_TESTS)
# Tests that must pass, not skip, in a binary that has them: the runtime's stress test of
# preemption signals and GC while timers are armed, fired and deferred is what the 32-bit ports are
# run for, and a test that builds a program would skip here.
declare -A required=([runtime]='^TestTimerSlackGuardStress$')
declare -A skips=(
	# TestLongAdjustTimers bounds 5000 sleeping goroutines and a scheduler ping-pong by 60 s of
	# wall time, which emulation passes on heap too; it runs natively in test-variant.sh.
	[time]='^TestLongAdjustTimers$'
	# qemu-user has no epoll_pwait2: slack's fallback waits in epoll_wait's milliseconds, rounded
	# down into the window, so a sleep ends before pollUntil and findRunnable does not count it as
	# a timer wakeup (0 of 5 under qemu, 5 of 5 natively; with timerslack=0, 4 of 5). The counter's
	# gap on kernels without epoll_pwait2 is noted in docs/slack.md.
	[runtime/metrics]='^TestTimerMetricsWakeups$'
	# Under qemu-user the guard's timer signal (SIGEV_THREAD_ID, to sysmon's thread) reached sysmon
	# in none of 7 rounds; natively it does. The guard's stress test still runs.
	[runtime]='^TestTimerSlackDeferralKeepsDeadlines$'
)

export GOROOT=$tc PATH="$tc/bin:$PATH" GOTOOLCHAIN=local GOFLAGS= CGO_ENABLED=0
unset GOEXPERIMENT GOOS GOARCH GOARM
godebug=$(variant_field "$variant" godebug)
# The binaries' PATH: the machine's, without any directory that holds a go command.
qpath=$(tr ':' '\n' <<<"$PATH" | while read -r d; do [ -z "$d" ] || [ -x "$d/go" ] || echo "$d"; done | paste -sd:)
if [ "$mode" = --quick ]; then
	runs=("-test.short|") # test flags | GOMAXPROCS
	limit=300
else
	runs=("|4")
	limit=1800
fi

# qemu PKG ARGS...: run PKG's test binary ($bin) under $port's qemu, from PKG's directory as go test
# runs it, at $procs Ps if set, with no go command on PATH, killed with SIGQUIT after $limit seconds.
qemu() {
	(cd "$tc/src/$1" && shift && env -i PATH="$qpath" HOME="${HOME:-/}" TMPDIR="${TMPDIR:-/tmp}" \
		${godebug:+GODEBUG=$godebug} ${procs:+GOMAXPROCS=$procs} ${qemu_cpu[$port]:+QEMU_CPU=${qemu_cpu[$port]}} \
		timeout -s QUIT -k 30 "$limit" "qemu-${qemu[$port]}-static" "$bin" "$@") 8>&- 9>&-
}

step "testing $variant on ${ports[*]}: $("$tc/bin/go" version)${godebug:+ with GODEBUG=$godebug} ($mode)"
passed=()
failed=()
for port in "${ports[@]}"; do
	dir=$TL_BUILD/ports/$variant/${port/\//-}
	rm -rf "$dir"
	mkdir -p "$dir"
	step "$variant $port: go test -c ${pkgs[*]}"
	if ! (cd "$tc/src" && env GOOS=${port%/*} GOARCH=${port#*/} ${goarm[$port]:+GOARM=${goarm[$port]}} \
		go test -c -o "$dir/" "${pkgs[@]}") 2>&1 8>&- 9>&-; then
		for pkg in "${pkgs[@]}"; do failed+=("$pkg[$port build]"); done
		continue
	fi
	for r in "${runs[@]}"; do
		flags=${r%|*} procs=${r#*|}
		label=$port${procs:+ P=$procs}
		for pkg in "${pkgs[@]}"; do
			bin=$dir/${pkg##*/}.test
			args=(${flags:+"$flags"} -test.timeout="$((limit - 60))s")
			[ -z "${run[$pkg]:-}" ] || args+=(-test.run "${run[$pkg]}")
			[ -z "${skips[$pkg]:-}" ] || args+=(-test.skip "${skips[$pkg]}")
			want=()
			if [ -n "${required[$pkg]:-}" ]; then
				mapfile -t want < <(qemu "$pkg" -test.list "${required[$pkg]}" 2>/dev/null | grep '^Test' || true)
				[ ${#want[@]} = 0 ] || args+=(-test.v)
			fi
			step "$variant $label: ${procs:+GOMAXPROCS=$procs }qemu-${qemu[$port]}-static ${pkg##*/}.test ${args[*]}"
			start=$SECONDS
			out=$(mktemp)
			rc=0
			# shellcheck disable=SC2086 # TIMERLAB_TESTFLAGS is a word list
			qemu "$pkg" "${args[@]}" ${TIMERLAB_TESTFLAGS:-} 2>&1 | tee "$out" || rc=$?
			why=
			[ $rc != 124 ] && [ $rc != 137 ] || why=": killed after ${limit}s"
			for name in "${want[@]}"; do
				if ! grep -q "^--- PASS: $name " "$out"; then
					[ "$rc" != 0 ] || rc=1
					why="$why; $name did not pass"
				fi
			done
			rm -f "$out"
			if [ "$rc" = 0 ]; then
				echo "ok    $pkg [$label] $((SECONDS - start))s"
				passed+=("$pkg[$label]")
			else
				echo "FAIL  $pkg [$label] $((SECONDS - start))s (exit $rc$why)"
				failed+=("$pkg[$label]")
			fi
		done
	done
done

echo "passed: ${passed[*]:-none}"
echo "failed: ${failed[*]:-none}"
[ ${#failed[@]} -eq 0 ] || die "$variant: ${#failed[@]} package runs failed under qemu"
step "$variant: all ${#passed[@]} package runs passed under qemu"
