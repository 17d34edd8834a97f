#!/usr/bin/env bash
# run-sleeps.sh [WORK]: bench/wakeups' SubMsSleep (50 goroutines, sleeps of 20-1000 us, GOMAXPROCS=2),
# interleaved, 8 rounds of 100,000 sleeps, five ways:
#   pwait2    heap's toolchain, GODEBUG=epollpwait2=1 (upstream's proposal)
#   heap      heap's toolchain
#   slack     slack's toolchain
#   guardfree slack with guard-free.diff: the guard makes no system call (and guards nothing)
#   nodefer   slack with no-deferral.diff: no deferred wakeups, only the timers' slack
# The last two are measuring instruments, not candidates. Then one run of each under perf stat,
# counting the system calls that wakeups and the guard make.
# WORK is scratch space: a new directory from mktemp when not given (its path is printed last).
# The toolchains are those under the build directory of the checkout this script is in
# (TIMERLAB_ROOT, TIMERLAB_BUILD override them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${TIMERLAB_ROOT:-$(git -C "$here" rev-parse --show-toplevel)}
build=${TIMERLAB_BUILD:-$root/build}
work=${1:-$(mktemp -d)}; mkdir -p "$work/ovl"
R=$build/toolchains/slack/src/runtime
cp "$R/timeslack_guard_linux.go" "$work/ovl/guard_free.go"; (cd "$work/ovl" && patch -s guard_free.go < "$here/guard-free.diff")
cp "$R/timeslack_wake.go" "$work/ovl/wake_nodefer.go"; (cd "$work/ovl" && patch -s wake_nodefer.go < "$here/no-deferral.diff")
printf '{"Replace":{"%s":"%s"}}' "$R/timeslack_guard_linux.go" "$work/ovl/guard_free.go" > "$work/guardfree.json"
printf '{"Replace":{"%s":"%s"}}' "$R/timeslack_wake.go" "$work/ovl/wake_nodefer.go" > "$work/nodefer.json"
cd "$root/bench"
"$build/toolchains/heap/bin/go" test -c -o "$work/w.heap" ./wakeups
"$build/toolchains/slack/bin/go" test -c -o "$work/w.slack" ./wakeups
"$build/toolchains/slack/bin/go" test -overlay "$work/guardfree.json" -c -o "$work/w.guardfree" ./wakeups
"$build/toolchains/slack/bin/go" test -overlay "$work/nodefer.json" -c -o "$work/w.nodefer" ./wakeups
all="pwait2 heap slack guardfree nodefer"
run() { # run VARIANT [perf stat args...]
	local v=$1 b=$1 g=; shift
	case $v in pwait2) b=heap g=epollpwait2=1 ;; esac
	GODEBUG=$g "$@" "$work/w.$b" -test.run '^$' -test.bench SubMsSleep -test.benchtime 100000x
}
rm -f "$work"/sleeps-*.txt
for r in 1 2 3 4 5 6 7 8; do
	for v in $all; do run $v | grep '^Benchmark' >> "$work/sleeps-$v.txt"; done
done
ev=syscalls:sys_enter_timer_settime,syscalls:sys_enter_futex,syscalls:sys_enter_epoll_pwait2,syscalls:sys_enter_epoll_pwait,syscalls:sys_enter_rt_sigreturn,context-switches,task-clock
for v in $all; do run $v perf stat -e $ev > "$work/perf-$v.txt" 2>&1; done
echo "$work"
