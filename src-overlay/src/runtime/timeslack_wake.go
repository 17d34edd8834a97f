// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerslack

// Deferred wakeups of idle Ps for the goroutines timers ready
// (GOEXPERIMENT=timerslack).
//
// A pass of check that runs timers makes their goroutines runnable on its
// P. A channel send or a Sleep's end readies a goroutine, an AfterFunc
// starts one, a netpoll deadline readies its waiter. Upstream wakes an
// idle P for each (wakep). The M woken spins, finds work, and wakes the
// next (resetspinning). So one timer wakeup that readies a batch of short
// goroutines wakes up to GOMAXPROCS threads. They share the batch and
// park again. On 2 Ps that is three context switches per timer wakeup; on
// 16 Ps, ten.
//
// A timer's slack lets it fire anywhere in [when, when+slack]. The same
// freedom lets its goroutine wait for the thread that fired it, until the
// same hard deadline. So the P running the pass keeps the goroutines it
// readies, for what is left of their timers' slack and at most
// maxWakeDefer. That is a deferral. A batch of short goroutines then costs
// one thread one wakeup.
//
// Invariants:
//
//   - wake.now is the time of the pass while check runs timers for the
//     P, and 0 otherwise. Only the M that holds the P sets it.
//   - wake.slack is not 0 only during such a pass. It is what is left of
//     the slack of the timer firing: its hard deadline less wake.now, or
//     -1 if none is left. unlockAndRun sets it before it re-arms the
//     timer, and the end of the pass clears it.
//   - Only goroutines readied in a pass are deferred. Each waits at most
//     until its timer's hard deadline. The slack is granted once, to the
//     firing and the start together.
//   - A timer fired outside a pass defers nothing (a channel receive that
//     runs a timer due: maybeRunChan). Timers on fake time get no slack,
//     so synctest bubbles defer nothing.
//   - wake.at is 0, or the time by which the P must have started every
//     goroutine it deferred. It is the least of pass time plus
//     min(slack left, maxWakeDefer) over them. The end of the pass lowers
//     it to the earliest hard deadline of any P's timers ("The guard").
//   - A timer fired with no slack, or at or past its hard deadline,
//     defers nothing. Its goroutine wakes an idle P as upstream.
//   - An idle P defers nothing (pidleput ends its deferral). Neither
//     does a destroyed one.
//   - While wake.at is set, the P wakes no idle P for its queue. That
//     covers both readies in a pass and the M that stops spinning. The
//     exception is wake.urgent: a pass of a spinning M readied a goroutine
//     it could not defer. That goroutine's wakep found the M spinning and
//     woke nobody. As upstream, the wakeup of resetspinning carries it on,
//     and is not skipped.
//
// Upstream's woken M does three jobs. It takes a share of the queue.
// Finding none left, it waits in the netpoller for the timers and I/O of
// the idle Ps. And it carries on wakeups that other readies skipped
// because an M was spinning. So a deferral ends in one of two ways:
//
//   - The P's M looks for work with its queue empty (findRunnable). Every
//     deferred goroutine has started, here or on a P that stole it. The
//     M wakes nobody, unless goroutines wait that an M may owe a wakeup
//     for: in the global queue, or, if it skipped resetspinning's wakeup
//     (wake.owed), in another P's queue.
//   - wake.at passes first. Then an idle P is woken for all three jobs.
//     The P's M checks as it schedules a goroutine. sysmon checks
//     the Ps it looks at (retake), and the guard wakes sysmon on time. A
//     compare-and-swap of wake.at decides who wakes the P.
//
// The guard. A deferral bets that its goroutines are short. When one runs
// long, or blocks its thread in a system call or a cgo call, only sysmon
// would end the deferral. sysmon sleeps up to 10 ms between looks.
// Meanwhile nobody would watch the idle Ps' timers and I/O, or start the
// goroutines behind it. So each P has a guard: a one-shot kernel timer
// whose signal goes to sysmon's thread (timeslack_guard_linux.go). At the
// end of the pass, once check has dropped the timers lock, the P lowers
// wake.at to the earliest hard deadline of every P's timers. Its M then
// arms the P's guard for wake.at. The signal wakes sysmon from its sleep,
// and sysmon's retake ends the deferral. A deferral that ends first
// disarms the guard. In the common case the guard costs two system calls
// and no wakeup.
//
//   - While a P defers, no timer of any P fires after its hard deadline
//     for want of a wakeup, beyond the signal's and sysmon's latency. That
//     holds whatever the P's M does: a long computation, a system call, a
//     cgo call, or code that cannot be preempted. Timers added later by
//     other Ps get the wakeups upstream gives them (wakeNetPoller).
//   - Where the guard cannot be armed, the P defers nothing. It then wakes
//     an idle P for each goroutine it readies, as upstream. That is so
//     off Linux, with asynchronous preemption off, when the runtime does
//     not handle the preemption signal (a program ignores it, or a c-shared
//     host owns it), and when timer_create fails.
//   - A P's guard timer lives until the P is destroyed. The kernel counts
//     each timer against the user's RLIMIT_SIGPENDING, so there are at
//     most GOMAXPROCS.
//   - wake.at is written by the P's M and by sysmon: it is atomic. now,
//     slack, owed, urgent and the guard belong to the P's owner: its M,
//     the code that puts it to idle (sysmon too, after it takes the P of
//     a system call), or destroy.
//   - A P defers only while another P is idle. With none, no wakeup is
//     saved: wakep would start nobody.
//   - The guard's signal may also reach a program that asked for SIGURG
//     with os/signal, as preemption signals already do.
//
// Deferral is off by default: at 2 Ps it cost sleeps CPU and saved the
// tickers no context switch (docs/slack.md). GODEBUG=timerslackdefer=1
// turns it on, and 0 off, at any time. With it off, a pass wakes an idle
// P for each goroutine its timers ready, as upstream. A deferral in progress ends as it would have. A goroutine
// not deferred because of the setting is urgent, as one whose timer has
// no slack left.

package runtime

import "internal/runtime/atomic"

// maxWakeDefer bounds how long a P keeps the goroutines its timers ready.
// On 2 cores a batch of 100 goroutines receiving ticks drains in about
// 250 µs. A longer wait saves no wakeup (docs/slack.md in timerlab).
const maxWakeDefer = 1_000_000 // 1 ms

// A timerWakeDefer is a P's deferred wakeup. See the invariants above.
type timerWakeDefer struct {
	owed   bool         // the P's M skipped resetspinning's wakeup during the deferral
	urgent bool         // a spinning M's pass readied a goroutine it could not defer
	now    int64        // the time of the pass running this P's timers; 0 outside passes
	slack  int64        // slack left to the timer firing in the pass, -1 for none; 0 outside passes
	at     atomic.Int64 // 0, or by when the P must have started its deferred goroutines
	guard  slackGuard   // wakes sysmon at wake.at
}

// slackPassStart marks the start of a pass of check for pp at time now.
// The caller holds pp.
func (pp *p) slackPassStart(now int64) {
	pp.wake.now = now
}

// slackFiring records the slack of t, about to fire on the caller's P.
// The caller holds t's lock and has not re-armed t. A timer outside any
// heap has no slack: a channel timer that left its heap keeps a stale
// slack.off until it is armed again.
func (t *timer) slackFiring() {
	off := int64(t.slack.off)
	if t.state&timerHeaped == 0 {
		off = 0
	}
	getg().m.p.ptr().slackFired(t.when, off)
}

// slackFired records the firing on pp of a timer due at when with slack
// off. A timer with slack is counted in the slack histogram here, not as
// it is armed: most timers are armed again before they fire. In a pass,
// it records the wait the timer's goroutine may get: what is left of its
// slack at the pass's time.
func (pp *p) slackFired(when, off int64) {
	if off != 0 {
		pp.timerStats.slack.record(off)
	}
	left := int64(0)
	if now := pp.wake.now; now != 0 {
		left = min(when+off-now, off)
		if left <= 0 {
			left = -1 // in a pass, with none left
		}
	}
	pp.wake.slack = left
}

// slackDeferWake reports whether pp may leave the goroutine just made
// runnable to its own M, rather than wake an idle P for it. It may during
// a pass that runs a timer with slack left. The test outside passes is
// inlined into ready and newproc.
func (pp *p) slackDeferWake() bool {
	if pp.wake.slack == 0 {
		return false
	}
	return pp.slackDefer()
}

// slackDefer is slackDeferWake in a pass. If the timer firing has slack
// left, it lowers wake.at to the time the goroutine must start by. It
// counts a deferral if none was in progress. The end of the pass arms the
// guard. If the goroutine cannot wait, slackDefer marks it urgent.
// It is kept out of line so that slackDeferWake inlines.
//
//go:noinline
func (pp *p) slackDefer() bool {
	w := &pp.wake
	if w.slack < 0 || debug.timerslackdefer.Load() == 0 || sched.npidle.Load() == 0 || !pp.slackGuardable() {
		// No slack left, deferral off, no idle P to spare a wakeup
		// of, or no guard: as urgent.
		w.urgent = true
		return false
	}
	at := w.now + min(w.slack, maxWakeDefer)
	for {
		old := w.at.Load()
		if old != 0 && old <= at {
			return true
		}
		if old == 0 {
			// A new deferral. It is counted before wake.at is
			// published, so that its expiry counts after it
			// (timemetrics.go). Only this M stores a wake.at other
			// than 0, so no compare-and-swap is needed.
			pp.timerStats.wakeDeferrals++
			w.at.Store(at)
			return true
		}
		if w.at.CompareAndSwap(old, at) {
			return true
		}
	}
}

// slackPassEnd marks the end of the pass. check calls it with the timers
// lock held, and slackPassGuard once it has dropped the lock.
func (pp *p) slackPassEnd() {
	pp.slackPassEndAs(getg().m.spinning)
}

// slackPassEndAs is slackPassEnd for an M spinning or not. wake.urgent
// stays set only for a spinning M, whose resetspinning is to come. An M
// not spinning readied the urgent goroutines with wakeups of their own.
func (pp *p) slackPassEndAs(spinning bool) {
	pp.wake.slack = 0
	pp.wake.now = 0
	if !spinning {
		pp.wake.urgent = false
	}
}

// slackPassGuard guards the deferral that a pass of check for pp began or
// lowered. The caller is pp's M, holding no lock: ending the deferral
// wakes a P, which takes sched.lock. check calls it after a pass that ran
// timers. The test for a deferral is inlined: most passes begin none.
func (pp *p) slackPassGuard() {
	if at := pp.wake.at.Load(); at != 0 {
		pp.slackPassGuardAt(at)
	}
}

// slackPassGuardAt is slackPassGuard for a deferral until at. A guard
// armed for at already is kept, unless at has passed: a deferral that
// sysmon ended may be followed by one until the same time.
// sysmon in its deep sleep (sysmonwait, all Ps idle until a moment ago)
// waits on its note, not on the guard's kick: it is woken, as a system
// call would wake it.
func (pp *p) slackPassGuardAt(at int64) {
	if armed := pp.wake.guard.armed; at == armed && armed > nanotime() {
		return
	}
	pp.slackGuardDeferral(at, slackTimersDue(), nanotime())
	if pp.wake.at.Load() != 0 && sched.sysmonwait.Load() {
		entersyscallWakeSysmon()
	}
}

// slackTimersDue returns the earliest hard deadline of every P's timers,
// or 0 if there is none. That is when the netpoller of an idle M would
// wake (checkTimersNoP). A wheel answers 1 while it moves timers into
// its heap (see wheelMinWhen). Such a P is read again, and a second 1
// ends the deferral at once. The caller holds a P, so allp does not
// change.
func slackTimersDue() int64 {
	due := int64(0)
	for id, p2 := range allp {
		if !timerpMask.read(uint32(id)) {
			continue
		}
		w := p2.timers.wakeTime()
		if w == 1 {
			w = p2.timers.wakeTime()
		}
		if w != 0 && (due == 0 || w < due) {
			due = w
		}
	}
	return due
}

// slackGuardDeferral lowers pp's deferral, in force until at, to due:
// the earliest hard deadline of any P's timers, or 0 for none. It arms
// pp's guard for the result. If that time has come by now, or the guard
// cannot be armed, it ends the deferral at once and wakes an idle P. The
// caller is pp's M.
func (pp *p) slackGuardDeferral(at, due, now int64) {
	if due != 0 && due < at {
		if !pp.wake.at.CompareAndSwap(at, due) {
			return // sysmon ended it
		}
		at = due
	}
	if at <= now || !pp.slackGuardArm(at) {
		pp.slackWakeExpire(at)
	}
}

// slackSkipSpinWake reports whether gp's M, done spinning, should skip
// resetspinning's wakeup because its P defers one. schedule calls
// slackWakeCheck next. The skipped wakeup is
// owed until the deferral ends.
func slackSkipSpinWake(gp *g) bool {
	return gp.m.p.ptr().slackSkipSpin()
}

// slackSkipSpin is slackSkipSpinWake for the P of the M done spinning.
// After a pass that readied an urgent goroutine, the wakeup is not
// skipped: it carries on that goroutine's.
func (pp *p) slackSkipSpin() bool {
	urgent := pp.wake.urgent
	pp.wake.urgent = false
	if pp.wake.at.Load() == 0 || urgent {
		return false
	}
	pp.wake.owed = true
	return true
}

// slackWakeCheck wakes an idle P if the time to start pp's deferred
// goroutines has passed. schedule calls it on pp's M as it starts a
// goroutine. The test of wake.at is inlined.
func (pp *p) slackWakeCheck() {
	if at := pp.wake.at.Load(); at != 0 {
		pp.slackWakeCheckSlow(at)
	}
}

// slackWakeCheckSlow is slackWakeCheck's slow path, out of line so that
// the test inlines.
//
//go:noinline
func (pp *p) slackWakeCheckSlow(at int64) {
	if nanotime() >= at {
		pp.slackWakeExpire(at)
	}
}

// slackWakeDone ends pp's deferral when pp's M looks for work with pp's
// queue empty (findRunnable). The test is inlined.
func (pp *p) slackWakeDone() {
	if pp.wake.at.Load() != 0 || pp.wake.owed {
		pp.slackWakeDoneSlow()
	}
}

// slackWakeDoneSlow is slackWakeDone for a deferral in progress or a
// wakeup owed. It wakes an idle P if goroutines wait that an M may owe a
// wakeup for (see the invariants).
//
//go:noinline
func (pp *p) slackWakeDoneSlow() {
	owed := pp.wake.owed
	pp.wake.owed, pp.wake.urgent = false, false
	pp.wake.at.Store(0)
	pp.slackGuardDisarm()
	if !sched.runq.empty() || owed && queuedElsewhere(pp) {
		wakep()
	}
}

// queuedElsewhere reports whether a P other than pp has goroutines in its
// queue. The caller holds pp, so allp does not change.
func queuedElsewhere(pp *p) bool {
	for _, p2 := range allp {
		if p2 != pp && !runqempty(p2) {
			return true
		}
	}
	return false
}

// slackWakeIdle ends the deferral of pp, which is going idle with an empty
// queue (pidleput), without a wakeup. The caller owns pp. The test is
// inlined into pidleput.
func (pp *p) slackWakeIdle() {
	if pp.wake.at.Load() != 0 || pp.wake.owed {
		pp.slackWakeIdleSlow()
	}
}

// slackWakeIdleSlow is slackWakeIdle's slow path, out of line so that the
// test inlines.
//
//go:noinline
func (pp *p) slackWakeIdleSlow() {
	pp.wake.owed, pp.wake.urgent = false, false
	pp.wake.at.Store(0)
	pp.slackGuardDisarm()
}

// slackWakeDestroy ends the deferral of pp, which procresize destroys, and
// deletes its guard timer. A P made again in its place starts afresh.
func (pp *p) slackWakeDestroy() {
	pp.slackWakeIdleSlow()
	pp.slackGuardDelete()
}

// slackWakeSysmon wakes an idle P if sysmon finds pp running past the time
// to start its deferred goroutines (retake).
func (pp *p) slackWakeSysmon(now int64) {
	if at := pp.wake.at.Load(); at != 0 && at <= now {
		pp.slackWakeExpire(at)
	}
}

// slackWakeExpire ends pp's deferral, due at at, and wakes an idle P,
// unless pp's M or sysmon ended it first. A wakeup owed stays owed: wakep
// wakes nobody while an M spins.
//
// wakep asks for a caller with a P, so that a checkdead between its
// unlock and startm's lock sees a running M. sysmon holds none, but it
// calls this from retake after incidlelocked(-1), as handoffp is called,
// so checkdead counts one more running M.
//
// pp's guard is left armed: at has passed, so its signal has come or is
// about to. Disarming it later costs no system call.
func (pp *p) slackWakeExpire(at int64) {
	if pp.wake.at.CompareAndSwap(at, 0) {
		timerWakeDeferralsExpired.Add(1)
		wakep()
	}
}
