#!/usr/bin/env bash
# test-variant.sh VARIANT [--quick|--full|--runtime]: run Go's own tests that exercise timers with the
# variant's toolchain, from its GOROOT, and print which packages passed.
#
#   --quick (default)  -short, one run, the toolchain's GOMAXPROCS, of the timer tests that fail when
#                      a variant breaks a timer's semantics: time, context and runtime/metrics, the
#                      runtime's timer tests, net's deadlines. What `make test` runs, once per
#                      toolchain: a few minutes with a cold build cache, most of it compiling.
#   --full             no -short, -count=3 at GOMAXPROCS=1, 2 and 8 (P destruction and timer
#                      stealing), then under -race, of those packages and the other users of timers:
#                      testing/synctest, internal/poll, os's deadlines. Then the builds below.
#   --runtime          the runtime's tests in full, with no -run filter: with -short, without it,
#                      and with -short under GOEXPERIMENT=<the variant's>,staticlockranking (6 to
#                      10 min on 2 cores, 2026-11-27: docs/go-tests.md), from a copy of the
#                      toolchain outside this checkout, as dist-test.sh runs. What an upstream
#                      runtime change must pass beyond the timer tests (go tool dist test runs
#                      the rest: dist-test.sh).
#
# In --full a variant with slack also runs its runtime tests as 386 binaries, and a variant with the
# wheel its runtime tests with GOEXPERIMENT=...,staticlockranking (about 40 s each) and with its
# verify mode on (verifyWheel, about 100 s). The null floor (GOEXPERIMENT=timernull), whose
# AfterFunc timers never fire, runs only its own test, in every mode.
#
# go test compiles each test binary once: its runs at other GOMAXPROCS, counts and -short (and a
# later --quick or --full of the same toolchain) find the packages in the build cache and only link
# again, so only the builds below, whose flags or experiments differ, compile again.
#
# Extra `go test` flags can be passed in TIMERLAB_TESTFLAGS (e.g. -v); they come last, so a -run
# there replaces each group's own.
#
# The tests run with the variant's GODEBUG from variants.conf, if it has one. An alias (series
# @TARGET) runs TARGET's toolchain under its own GODEBUG: `test-variant.sh slack-1ms` is Go's tests
# with slack's toolchain at GODEBUG=timerslack=1ms. `make test-variants` tests each toolchain once
# and leaves the aliases out.
source "$(dirname "$0")/lib.sh"

variant=${1:-}
mode=${2:---quick}
require_variant "$variant"
case $mode in --quick | --full | --runtime) ;; *) die "unknown mode '$mode' (want --quick, --full or --runtime)" ;; esac
tc=$(toolchain_dir "$variant")
require_toolchain "$variant"

# Each group is: packages, then the -run pattern that selects their timer tests ("" for all). The
# null floor (GOEXPERIMENT=timernull) runs only its own runtime test: see below. --quick runs the
# packages whose tests fail when a variant breaks a timer's semantics; --full adds the other users
# of timers (testing/synctest's example alone brings 85 packages of crypto and net/http to compile).
if [ "$mode" = --quick ]; then
	groups=(
		"time context runtime/metrics|"
		"runtime|$TL_RUNTIME_TIMER_TESTS"
		"net|Deadline|Timeout"
	)
else
	groups=(
		"time context testing/synctest internal/poll runtime/metrics|"
		"runtime|$TL_RUNTIME_TIMER_TESTS"
		"net os|Deadline|Timeout"
	)
fi

passed=()
failed=()

# run_group LABEL ARGS...: run every group with the extra go test flags among ARGS, and ARGS of the
# form NAME=VALUE in go test's environment, recording each package's verdict.
run_group() {
	local label=$1 g pkgs run out a flags=() envs=()
	shift
	for a in "$@"; do
		if [[ $a =~ ^[A-Z][A-Z0-9_]*= ]]; then envs+=("$a"); else flags+=("$a"); fi
	done
	for g in "${groups[@]}"; do
		pkgs=${g%%|*}
		run=${g#*|}
		step "$variant $label: ${envs[*]:+${envs[*]} }go test ${flags[*]} ${run:+-run '$run' }$pkgs"
		out=$(mktemp)
		# shellcheck disable=SC2086 # package lists and TIMERLAB_TESTFLAGS are word lists
		(cd "$tc/src" && env "${envs[@]}" go test "${flags[@]}" ${run:+-run "$run"} ${TIMERLAB_TESTFLAGS:-} $pkgs) 2>&1 8>&- 9>&- | tee "$out" || true
		record "$label" "$out" $pkgs
		rm -f "$out"
	done
}

# record LABEL OUTPUT PKGS...: a package passed when go test printed "ok <pkg>" for it.
record() {
	local label=$1 out=$2 p
	shift 2
	for p in "$@"; do
		if grep -qE "^ok[[:space:]]+$p[[:space:]]" "$out"; then
			passed+=("$p[$label]")
		else
			failed+=("$p[$label]")
		fi
	done
}

if [ "$mode" = --runtime ]; then
	# The runtime's whole suite runs as on a builder, from a copy of the toolchain outside this
	# checkout (toolchain_copy: from inside it, TestAtomicAlignment fails for the machine), with a
	# build cache of the variant's own; one run per variant at a time.
	dir=$TL_BUILD/runtime-test/$variant
	mkdir -p "$dir"
	exec 9>"$dir/.lock"
	flock -n 9 || die "another test-variant.sh $variant --runtime is running (lock $dir/.lock)"
	copy=${TMPDIR:-/tmp}/timerlab-runtime-$variant
	toolchain_copy "$variant" "$copy"
	tc=$copy/go
	export GOCACHE=$dir/gocache GOWORK=off
fi
export GOROOT=$tc PATH="$tc/bin:$PATH" GOTOOLCHAIN=local GOFLAGS=
unset GOEXPERIMENT
godebug=$(variant_field "$variant" godebug)
[ -z "$godebug" ] || export GODEBUG=$godebug
step "testing $variant: $("$tc/bin/go" version)${godebug:+ with GODEBUG=$godebug} ($mode)"
goexp=$("$tc/bin/go" env GOEXPERIMENT)
if [[ ,$goexp, == *,timernull,* ]]; then
	# The null floor is a measuring instrument whose AfterFunc timers never fire: Go's timer tests
	# would fail by design. It runs its own test, which checks that one change, in every mode. The
	# test binary's -test.timeout alarm and go test's own deadline are AfterFunc timers too, so
	# coreutils' timeout bounds the run; and the test must say it passed, since a -run that
	# matches nothing passes as well.
	step "$variant: its own test only: go test -count=1 -v -run '^TestTimerNull\$' runtime"
	out=$(mktemp)
	# shellcheck disable=SC2086 # TIMERLAB_TESTFLAGS is a word list
	(cd "$tc/src" && timeout 900 go test -count=1 -v -run '^TestTimerNull$' ${TIMERLAB_TESTFLAGS:-} runtime) 2>&1 8>&- 9>&- | tee "$out" || true
	if grep -q -- "^--- PASS: TestTimerNull " "$out" && grep -qE "^ok[[:space:]]+runtime[[:space:]]" "$out"; then
		passed+=("runtime[TestTimerNull]")
	else
		failed+=("runtime[TestTimerNull]")
	fi
	rm -f "$out"
elif [ "$mode" = --quick ]; then
	run_group quick -short -count=1
elif [ "$mode" = --runtime ]; then
	groups=("runtime|")
	run_group short -short -count=1 -timeout=30m
	run_group long -count=1 -timeout=60m
	run_group lockrank -short -count=1 -timeout=30m GOEXPERIMENT="${goexp:+$goexp,}staticlockranking"
else
	for procs in 1 2 8; do
		export GOMAXPROCS=$procs
		run_group "P=$procs" -count=3 -timeout=30m
	done
	unset GOMAXPROCS
	run_group race -race -count=1 -timeout=30m
fi

# Builds this machine can also run, in --full: a variant with slack runs its runtime tests as a 386
# binary (epoll_pwait2's timespec differs from the runtime's on 32-bit ports), and a variant with the
# wheel runs its with static lock ranking (the wheel takes timer locks in new orders). --runtime ran
# the runtime's tests in full with lock ranking already.
if [ "$mode" = --full ] && [[ ,$goexp, == *,timerslack,* ]]; then
	groups=("runtime|Slack|Epoll")
	run_group 386 -short -count=1 GOARCH=386
fi
if [ "$mode" = --full ] && [[ ,$goexp, == *,timerwheel,* ]]; then
	groups=("runtime|Timer|Wheel")
	run_group lockrank -short -count=1 GOEXPERIMENT="$goexp,staticlockranking"
	# The wheel's verify mode: verifyWheel, a constant of timewheel.go that compiles out, checks
	# every invariant of every P's wheel after each of its operations. The same tests run once
	# more with it on, through an overlay of timewheel.go (about 100 s, most of it the stress
	# test). TestTimerWheelModelFullSlots lowers the slot limit for the whole process, which verify
	# would then report in the real wheels: it is skipped there, and runs in every other group.
	verify=$(mktemp -d)
	trap 'rm -rf "$verify"' EXIT
	wheelgo=$tc/src/runtime/timewheel.go
	n=$(grep -cx $'\tverifyWheel = false' "$wheelgo" 2>/dev/null || true)
	[ "$n" = 1 ] || die "$wheelgo has ${n:-no} lines 'verifyWheel = false' (want 1): the verify run no longer applies"
	sed 's/^\tverifyWheel = false$/\tverifyWheel = true/' "$wheelgo" >"$verify/timewheel.go"
	printf '{"Replace":{"%s":"%s"}}\n' "$wheelgo" "$verify/timewheel.go" >"$verify/overlay.json"
	run_group verify -short -count=1 -overlay="$verify/overlay.json" -skip='^TestTimerWheelModelFullSlots$'
fi

echo "passed: ${passed[*]:-none}"
echo "failed: ${failed[*]:-none}"
[ ${#failed[@]} -eq 0 ] || die "$variant: ${#failed[@]} package runs failed"
step "$variant: all ${#passed[@]} package runs passed"
