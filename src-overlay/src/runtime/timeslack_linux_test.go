// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux && goexperiment.timerslack

package runtime_test

import (
	"errors"
	"fmt"
	"internal/testenv"
	"os"
	. "runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestTimerSlackEpollWait checks the netpoller's wait with epoll_pwait2 and
// with the epoll_wait fallback. On an epoll instance of its own, a timed wait
// must time out with no error and use epoll_pwait2 exactly when the kernel
// has it, it has not gone missing and the system is not Android (where
// even the probe would be killed by the seccomp filter). Then, in the whole
// process, sleeps end not early and a read deadline fires.
func TestTimerSlackEpollWait(t *testing.T) {
	defer os.Setenv("GODEBUG", os.Getenv("GODEBUG"))
	os.Setenv("GODEBUG", "timerslackdefer=1,timerslack=50us")
	defer SetEpollPwait2Missing(SetEpollPwait2Missing(false))
	have := GOOS != "android" && kernelHasEpollPwait2()
	for _, missing := range []bool{false, true} {
		SetEpollPwait2Missing(missing)
		n, errno, precise := epollWaitIdle(200 * time.Microsecond)
		if n != 0 || errno != 0 || precise != (have && !missing) {
			t.Errorf("epoll_pwait2 missing=%v (kernel has it: %v): idle wait returned %d events, errno %d, used epoll_pwait2: %v",
				missing, have, n, errno, precise)
		}
		if !missing && have && SetEpollPwait2Missing(false) {
			t.Errorf("netpoll gave up epoll_pwait2 on a kernel that has it")
		}
		SetEpollPwait2Missing(missing)
		for _, d := range []time.Duration{30 * time.Microsecond, 300 * time.Microsecond, 3 * time.Millisecond} {
			start := time.Now()
			time.Sleep(d)
			checkNotEarly(t, "50us", "Sleep", time.Since(start), d)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.SetReadDeadline(time.Now().Add(2 * time.Millisecond))
		if _, err := r.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("epoll_pwait2 missing=%v: read with a deadline: %v, want %v", missing, err, os.ErrDeadlineExceeded)
		}
		r.Close()
		w.Close()
	}
}

// epollWaitIdle is EpollWaitIdle, retried while a signal interrupts it.
func epollWaitIdle(d time.Duration) (n int32, errno uintptr, precise bool) {
	for range 100 {
		if n, errno, precise = EpollWaitIdle(int64(d)); errno != uintptr(syscall.EINTR) {
			break
		}
	}
	return n, errno, precise
}

// kernelHasEpollPwait2 probes for epoll_pwait2 with a bad descriptor and
// otherwise valid arguments: EBADF means the call exists.
func kernelHasEpollPwait2() bool {
	const sysEpollPwait2 = 441 // the same on every Linux architecture but mips
	var events [1][16]byte
	_, _, errno := syscall.Syscall6(sysEpollPwait2, ^uintptr(0), uintptr(unsafe.Pointer(&events)), 1, 0, 0, 0)
	return errno == syscall.EBADF
}

// TestTimerSlackPollRearm checks that the netpoller arms a deadline timer
// it re-arms without computing its deadline (the other mode's deadline
// cleared or past) from the clock, as its own delay: with no reading it
// would get no slack.
func TestTimerSlackPollRearm(t *testing.T) {
	const policy = "25%:1ms"
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack="+policy)
	s := int64(time.Second)
	// SetDeadline(10s), then SetWriteDeadline(time.Time{}): the read
	// timer changes from the combined deadline's function to its own.
	read, _ := TimerSlackPollDeadlines([]int64{10 * s, 0}, []int{'r' + 'w', 'w'})
	if read != 1e6 {
		t.Errorf("read deadline re-armed after the write deadline's clear: slack %v, want 1ms", time.Duration(read))
	}
	// SetDeadline(10s), then a read deadline in the past: the write timer
	// is armed from the deadline both had.
	_, write := TimerSlackPollDeadlines([]int64{10 * s, -1}, []int{'r' + 'w', 'r'})
	if write != 1e6 {
		t.Errorf("write deadline armed after a past read deadline: slack %v, want 1ms", time.Duration(write))
	}
	// The same after a write deadline of its own, whose timer the shared
	// deadline stopped but left in its heap: re-armed there, it gets its
	// slack only from the netpoller's reading.
	_, write = TimerSlackPollDeadlines([]int64{5 * s, 10 * s, -1}, []int{'w', 'r' + 'w', 'r'})
	if write != 1e6 {
		t.Errorf("write deadline re-armed in its heap after a past read deadline: slack %v, want 1ms", time.Duration(write))
	}
}

// TestTimerSlackDeferralRawSyscall checks that a goroutine whose wakeup a
// P deferred starts by its timer's hard deadline when the goroutine ahead
// of it blocks its thread in a raw system call. No preemption reaches
// that goroutine, and its thread keeps the P. The guard must wake sysmon,
// which wakes an idle P for the goroutine left. See
// testTimerSlackDeferralBlocked.
func TestTimerSlackDeferralRawSyscall(t *testing.T) {
	if !TimerSlackGuarded() {
		t.Skip("deferred wakeups are not guarded here")
	}
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	var b [1]byte
	block := func() {
		syscall.RawSyscall(syscall.SYS_READ, uintptr(fds[0]), uintptr(unsafe.Pointer(&b[0])), 1)
	}
	release := func() {
		if _, err := syscall.Write(fds[1], []byte{0}); err != nil {
			panic(err)
		}
	}
	kicks := TimerSlackGuardKicks()
	late := testTimerSlackDeferralBlocked(t, 7, block, release)
	if TimerSlackGuardKicks() == kicks {
		t.Errorf("the guard's signal woke sysmon in none of %d rounds (lateness %v)", len(late), late)
	}
	t.Logf("the goroutine left behind started a median %v past its hard deadline (all: %v)", late[len(late)/2], late)
}

// testTimerSlackDeferralBlocked runs rounds of a deferral whose first
// goroutine blocks its thread. Two AfterFunc timers with 1ms of slack fire
// in one pass, early in their windows: the pass of a timer with no slack
// due just after them, which readies no goroutine. The pass defers both
// goroutines. The first to start calls block, and the other calls release
// as it starts. The function returns how late past its timer's hard
// deadline the second goroutine started, sorted, for the rounds that
// counted a deferral. A round that counted none (a loaded machine fired
// the timers past their deadlines) is run again, up to four times the
// rounds; then it fails if none counted one.
func testTimerSlackDeferralBlocked(t *testing.T, rounds int, block, release func()) []time.Duration {
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=1ms")
	defer GOMAXPROCS(GOMAXPROCS(2))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// Spin long enough for sysmon to sleep its longest, so that its
	// regular looks do not end the deferrals in the guard's place.
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
	}
	deferrals := []metrics.Sample{{Name: "/sched/timers/wake-deferrals:events"}}
	var late []time.Duration
	for round := 0; len(late) < rounds; round++ {
		if round == 4*rounds {
			if len(late) == 0 {
				t.Fatalf("no deferral in %d rounds", round)
			}
			t.Skipf("only %d of %d rounds built a deferral", len(late), round)
		}
		var first atomic.Bool
		started := make(chan time.Time, 1)
		done := make(chan bool, 2)
		f := func() {
			if first.CompareAndSwap(false, true) {
				block()
			} else {
				started <- time.Now()
				release()
			}
			done <- true
		}
		metrics.Read(deferrals)
		before := deferrals[0].Value.Uint64()
		const d = 4 * time.Millisecond
		hard := time.Now().Add(d + time.Millisecond)
		SetTimerSlack("1ms")
		time.AfterFunc(d, f)
		time.AfterFunc(d, f)
		SetTimerSlack("0")
		trigger := TimerNoopAfter(int64(d))
		var at time.Time
		select {
		case at = <-started:
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: the second goroutine did not start in 5s", round)
		}
		<-done
		<-done
		trigger.Stop()
		if metrics.Read(deferrals); deferrals[0].Value.Uint64() != before {
			late = append(late, at.Sub(hard))
		}
	}
	slices.Sort(late)
	return late
}

// TestTimerSlackIgnoredSignal checks that a program that ignores SIGURG,
// the signal of a deferral's guard, defers nothing: no guard would end a
// deferral in time. The same program with the signal handled defers, or
// the check would prove nothing.
func TestTimerSlackIgnoredSignal(t *testing.T) {
	if !TimerSlackGuarded() {
		t.Skip("deferred wakeups are not guarded here")
	}
	for _, ignore := range []bool{false, true} {
		// A P defers only while another is idle: the program needs two,
		// whatever GOMAXPROCS the test runs with.
		env := []string{"GODEBUG=timerslackdefer=1,timerslack=1ms", "GOMAXPROCS=2"}
		if ignore {
			env = append(env, "TIMERSLACK_IGNORE_URG=1")
		}
		out := runTestProg(t, "testprog", "TimerSlackDeferrals", env...)
		var n uint64
		if _, err := fmt.Sscanf(out, "deferrals: %d\n", &n); err != nil {
			t.Fatalf("SIGURG ignored %v: unexpected output %q", ignore, out)
		}
		if ignore && n != 0 {
			t.Errorf("with SIGURG ignored, %d wakeups deferred; want none", n)
		}
		if !ignore && n == 0 {
			t.Errorf("with SIGURG handled, no wakeup deferred: the program does not exercise deferrals")
		}
	}
}

// TestTimerSlackDeferralCgo is TestTimerSlackDeferralRawSyscall with the
// first goroutine blocked in a cgo call. The M stays in the call with the
// P. The program measures in rounds how late past its timer's hard
// deadline the other goroutine started. Left to sysmon's regular looks,
// it starts up to 10ms late, a median of 2-9ms here; the guard brings
// that to about a tenth of a millisecond. The test fails if the median
// reaches maxWakeDefer, a factor of ten from both, in three programs in
// a row: a loaded machine may delay one.
func TestTimerSlackDeferralCgo(t *testing.T) {
	testenv.MustHaveCGO(t)
	if !TimerSlackGuarded() {
		t.Skip("deferred wakeups are not guarded here")
	}
	var medians []time.Duration
	for range 3 {
		out := runTestProg(t, "testprogcgo", "TimerSlackDeferralCgo")
		var late int64
		var rounds int
		if _, err := fmt.Sscanf(out, "late %d in %d rounds\n", &late, &rounds); err != nil {
			t.Fatalf("unexpected output %q", out)
		}
		t.Logf("the goroutine left behind started a median %v past its hard deadline, in %d rounds", time.Duration(late), rounds)
		if late < MaxWakeDefer {
			return
		}
		medians = append(medians, time.Duration(late))
	}
	t.Errorf("the goroutine left behind started medians %v past its hard deadline; want less than %v", medians, time.Duration(MaxWakeDefer))
}
