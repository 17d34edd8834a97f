// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerslack

// Export guts of the timer slack policy for tests.

package runtime

import "internal/runtime/atomic"

const (
	TimerSlackOne     = timerSlackOne
	MaxTimerSlack     = maxTimerSlack
	DefaultTimerSlack = defaultTimerSlack
)

// A TimerSlackSpec is a parsed timerslack policy: see timeslack.go.
type TimerSlackSpec struct {
	Abs, Rel, Max int64
}

func ParseTimerSlack(s string) (TimerSlackSpec, bool) {
	spec, ok := parseTimerSlack(s)
	return TimerSlackSpec{spec.abs, spec.rel, spec.max}, ok
}

// TimerSlackHard returns the hard deadline spec gives a timer due at when,
// armed at now.
func TimerSlackHard(spec TimerSlackSpec, when, now int64) int64 {
	s := timerSlackSpec{abs: spec.Abs, rel: spec.Rel, max: spec.Max}
	s.compile()
	t := &timer{when: when}
	t.slack.off = uint32(s.slackFor(when - now))
	return t.deadline()
}

// TimerSlackCapAt returns the least delay from which spec gives every
// timer its cap (slackFor's threshold), and that slack.
func TimerSlackCapAt(spec TimerSlackSpec) (capAt, fixed int64) {
	s := timerSlackSpec{abs: spec.Abs, rel: spec.Rel, max: spec.Max}
	s.compile()
	return s.capAt, s.fixed
}

// TimerSlackPolicy returns the policy in force.
func TimerSlackPolicy() TimerSlackSpec {
	spec := loadTimerSlack()
	return TimerSlackSpec{spec.abs, spec.rel, spec.max}
}

// SetTimerSlack sets the policy as GODEBUG=timerslack=value would.
func SetTimerSlack(value string) {
	setTimerSlack(value)
}

// TimerSlackArmedFrom creates a timer due at when, computed from now, as
// time.AfterFunc does, then resets it to when2, computed from now2, as
// Timer.Reset does, and returns its hard deadline after each. It stops
// the timer before it returns.
func TimerSlackArmedFrom(when, now, when2, now2 int64) (deadline, deadline2 int64) {
	t := newTimer(when, 0, func(any, uintptr, int64) {}, nil, nil, now)
	defer t.stop()
	t.lock()
	deadline = t.deadline()
	t.unlock()
	resetTimer(t, when2, 0, now2)
	t.lock()
	deadline2 = t.deadline()
	t.unlock()
	return deadline, deadline2
}

// TimerSlackSleepHandOff records, on this M, a sleep of this goroutine
// until when, computed from now, and returns the reading that resetForSleep
// would hand to the sleep's timer for it, for another goroutine's sleep
// until when, and for a sleep of this goroutine until when+1.
func TimerSlackSleepHandOff(when, now int64) (same, otherG, otherWhen int64) {
	mp := acquirem()
	defer releasem(mp)
	gp := getg()
	mp.slackSleepFrom(gp, when, now)
	return mp.slackSleepNow(gp, when), mp.slackSleepNow(mp.g0, when), mp.slackSleepNow(gp, when+1)
}

// TimerSlackAddedAs adds a new timer due at when to the current P's heap
// as a modify that set setWhen, computed from now, would, and returns its
// hard deadline: when != setWhen is a concurrent modify that set when in
// between. It stops the timer before it returns.
func TimerSlackAddedAs(when, setWhen, now int64) int64 {
	t := new(timeTimer)
	t.timer.init(func(any, uintptr, int64) {}, nil)
	defer t.stop()
	t.lock()
	t.when = when
	t.unlock()
	t.maybeAdd(setWhen, now)
	t.lock()
	defer t.unlock()
	return t.deadline()
}

const MaxWakeDefer = maxWakeDefer

// TimerWakeUrgentAfterPass runs a pass on a P of its own that readies a
// goroutine it cannot defer (its timer fired past its hard deadline), ends
// it as an M spinning or not would, and reports whether the M would then
// keep resetspinning's wakeup for it.
func TimerWakeUrgentAfterPass(spinning bool) bool {
	pp, now := new(p), nanotime()
	pp.slackPassStart(now)
	pp.slackFired(now-1_000_000, 100_000)
	pp.slackDeferWake()
	pp.slackPassEndAs(spinning)
	return pp.wake.urgent
}

// A NoopTimer is a timer whose firing does nothing.
type NoopTimer timeTimer

// TimerNoopAfter arms a NoopTimer due in d nanoseconds, with the slack of
// the current policy, on the P that runs the caller as it arms it.
func TimerNoopAfter(d int64) *NoopTimer {
	now := nanotime()
	return (*NoopTimer)(newTimer(now+d, 0, func(any, uintptr, int64) {}, nil, nil, now))
}

// Stop stops t.
func (t *NoopTimer) Stop() { (*timeTimer)(t).stop() }

// TimerWakeFiredOutsidePass fires a timer with slack on a P of its own
// outside a pass of check, as a channel receive does (maybeRunChan), one
// after a pass, and returns whether the goroutine each then makes runnable
// would be deferred.
func TimerWakeFiredOutsidePass() (outside, after bool) {
	pp, now := new(p), nanotime()
	pp.slackFired(now, 500_000)
	outside = pp.slackDeferWake()
	pp.slackPassStart(now)
	pp.slackPassEnd()
	pp.slackFired(now, 500_000)
	after = pp.slackDeferWake()
	pp.wake.at.Store(0)
	return outside, after
}

// A SlackFiring is a timer firing in TimerWakeDefer's pass: Late past its
// when, with slack Slack.
type SlackFiring struct{ Late, Slack int64 }

// TimerWakeDefer runs a pass at now, on a P of its own, over the firings,
// each making one goroutine runnable, and ends it as slackPassEnd (for an
// M spinning) and slackPassGuard do, with due as the earliest hard
// deadline of the timers of every P (0: none). It returns for each firing
// whether the P deferred the goroutine's wakeup, and for one more
// goroutine made runnable after the pass; then the time the P must start
// them by, the deferrals it counted and whether the M's guard was armed for
// that time; whether the P's M, had it run the pass spinning, would skip
// the wakeup as it stops spinning; whether a schedule left the deferral
// in place (now must be far enough ahead that its time has not come); and
// whether the P's M looking for work with its queue empty ended it and
// disarmed the guard.
// The P's counts are retired into the process's, as a destroyed P's are,
// so that its deferrals count where its expiries do, and its guard timer
// is deleted.
func TimerWakeDefer(now, due int64, firings []SlackFiring) (deferred []bool, at int64, deferrals uint64, guarded, skip, kept, ended bool) {
	return timerWakePass(now, due, firings, nil)
}

// timerWakePass is TimerWakeDefer, calling afterFirst, if not nil, once
// the first firing has made its goroutine runnable.
func timerWakePass(now, due int64, firings []SlackFiring, afterFirst func()) (deferred []bool, at int64, deferrals uint64, guarded, skip, kept, ended bool) {
	pp := new(p)
	defer pp.slackGuardDelete()
	pp.slackPassStart(now)
	for i, f := range firings {
		pp.slackFired(now-f.Late, f.Slack)
		deferred = append(deferred, pp.slackDeferWake())
		if i == 0 && afterFirst != nil {
			afterFirst()
		}
	}
	pp.slackPassEndAs(true)
	if at := pp.wake.at.Load(); at != 0 {
		pp.slackGuardDeferral(at, due, now)
	}
	deferred = append(deferred, pp.slackDeferWake())
	at, deferrals = pp.wake.at.Load(), pp.timerStats.wakeDeferrals
	guarded = at != 0 && pp.wake.guard.armed == at
	skip = pp.slackSkipSpin()
	pp.slackWakeCheck()
	kept = pp.wake.at.Load() == at
	pp.slackWakeDone()
	ended = pp.wake.at.Load() == 0 && pp.wake.guard.armed == 0
	systemstack(func() {
		lock(&sched.lock)
		pp.timerStats.retire()
		unlock(&sched.lock)
	})
	return deferred, at, deferrals, guarded, skip, kept, ended
}

// TimerWakeSwitchMidPass is TimerWakeDefer over two firings, first and
// second, with no timer due, calling between after the first: it reports
// whether the P's M, had it run the pass spinning, would skip the wakeup
// as it stops spinning.
func TimerWakeSwitchMidPass(now int64, first, second SlackFiring, between func()) (skip bool) {
	_, _, _, _, skip, _, _ = timerWakePass(now, 0, []SlackFiring{first, second}, between)
	return skip
}

// TimerSlackGuarded reports whether this process guards deferred wakeups
// (see "The guard" in timeslack_wake.go): on Linux, with asynchronous
// preemption on and the runtime's handler of its signal, where a P could
// make its guard's timer.
func TimerSlackGuarded() bool {
	pp := new(p)
	defer pp.slackGuardDelete()
	if !pp.slackGuardArm(nanotime() + 3600e9) {
		return false
	}
	pp.slackGuardDisarm()
	return true
}

// TimerSlackGuardKicks returns how many times a guard's signal has woken
// sysmon.
func TimerSlackGuardKicks() uint32 {
	return slackGuardKicks.Load()
}

// TimerWakeDeferAfterDestroy sets a deferral on the last P, destroys that
// P by lowering GOMAXPROCS by one, and returns the deferral the dead P
// keeps (0: none), before it restores GOMAXPROCS.
func TimerWakeDeferAfterDestroy() int64 {
	stw := stopTheWorldGC(stwGOMAXPROCS)
	n := gomaxprocs
	pp := allp[n-1]
	pp.wake.at.Store(maxWhen)
	newprocs = n - 1
	startTheWorldGC(stw)
	// pp is dead: no M runs it, so its deferral stays as destroy left it.
	at := pp.wake.at.Load()
	GOMAXPROCS(int(n))
	return at
}

// SpinUntil spins until *flag is not zero, and reports true, or until
// Nanotime passes deadline, and reports false. The loop has no preemption
// point: no call but nanotime, which is nosplit, and code of package
// runtime is never preempted asynchronously. So the P running it runs
// nothing else until it returns.
func SpinUntil(flag *uint32, deadline int64) bool {
	for nanotime() < deadline {
		if atomic.Load(flag) != 0 {
			return true
		}
	}
	return false
}

// TimerSlackFiringCounted fires, as unlockAndRun does, a timer with slack
// in a heap, then the same timer out of any heap, as maybeRunChan runs a
// channel timer that left its heap, and reports whether the slack
// histogram counted each firing.
func TimerSlackFiringCounted() (inHeap, outside bool) {
	mp := acquirem()
	defer releasem(mp)
	h := &mp.p.ptr().timerStats.slack
	count := func() uint64 {
		n := h.underflow + h.overflow
		for _, c := range h.counts {
			n += c
		}
		return n
	}
	t := new(timer)
	t.when, t.slack.off = nanotime(), 500_000
	t.state = timerHeaped
	n := count()
	t.slackFiring()
	inHeap = count() > n
	t.state = 0
	n = count()
	t.slackFiring()
	outside = count() > n
	return inHeap, outside
}
