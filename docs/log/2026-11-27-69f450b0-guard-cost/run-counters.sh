#!/usr/bin/env bash
# run-counters.sh [WORK]: build sleeps-counted.go (50 goroutines, 200,000 sleeps of 20-1000 us, as
# bench/wakeups' SubMsSleep) with slack's toolchain and three overlays of its runtime:
#   counted  counters-wake.diff + counters-guard.diff (the deferrals' outcomes, the guard's calls)
#   lazy     + lazy-wake.diff: a deferral that ends with its queue empty leaves its guard armed
#   block    + lazy-wake.diff + block-proc.diff: the guard is disarmed only as the M blocks
# and run each three times, interleaved, under perf stat; then the cost of timer_settime alone.
# WORK is scratch space: a new directory from mktemp when not given (its path is printed last). The
# toolchain is slack's under the build directory of the checkout this script is in (TIMERLAB_ROOT,
# TIMERLAB_BUILD override them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-$(mktemp -d)}; mkdir -p "$work/prog"
root=${TIMERLAB_ROOT:-$(git -C "$here" rev-parse --show-toplevel)}
tc=${TIMERLAB_BUILD:-$root/build}/toolchains/slack
R=$tc/src/runtime
cp "$R/timeslack_wake.go" "$work/wake.go"; cp "$R/timeslack_guard_linux.go" "$work/guard.go"; cp "$R/proc.go" "$work/proc.go"
(cd "$work" && patch -s wake.go < "$here/counters-wake.diff" && patch -s guard.go < "$here/counters-guard.diff")
cp "$work/wake.go" "$work/wake_lazy.go"; (cd "$work" && patch -s wake_lazy.go < "$here/lazy-wake.diff")
(cd "$work" && patch -s proc.go < "$here/block-proc.diff")
cp "$here/sleeps-counted.go.txt" "$work/prog/main.go"
printf 'module prog\ngo 1.27\n' > "$work/prog/go.mod"
ov() { printf '{"Replace":{%s}}' "$1" > "$work/$2.json"; }
ov "\"$R/timeslack_wake.go\":\"$work/wake.go\",\"$R/timeslack_guard_linux.go\":\"$work/guard.go\"" counted
ov "\"$R/timeslack_wake.go\":\"$work/wake_lazy.go\",\"$R/timeslack_guard_linux.go\":\"$work/guard.go\"" lazy
ov "\"$R/timeslack_wake.go\":\"$work/wake_lazy.go\",\"$R/timeslack_guard_linux.go\":\"$work/guard.go\",\"$R/proc.go\":\"$work/proc.go\"" block
for v in counted lazy block; do (cd "$work/prog" && "$tc/bin/go" build -overlay "$work/$v.json" -o "$work/p.$v" .); done
ev=task-clock,context-switches,syscalls:sys_enter_timer_settime,syscalls:sys_enter_rt_sigreturn
for r in 1 2 3; do
	for v in counted lazy block; do
		echo "== $v, round $r"
		perf stat -e $ev "$work/p.$v" 2>&1
	done
done
mkdir -p "$work/ts" && cp "$here/settime-cost.go.txt" "$work/ts/main.go"
printf 'module ts\ngo 1.26\nrequire golang.org/x/sys v0.30.0\n' > "$work/ts/go.mod"
(cd "$work/ts" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 && go build -o ts . && ./ts && ./ts)
echo "$work"
