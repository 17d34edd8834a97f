// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerslack

// Deferred wakeups of idle Ps for the goroutines timers ready
// (GOEXPERIMENT=timerslack).
//
// A scheduler pass that runs timers (check, on a P's own timers or on those
// of a P it steals from) makes their goroutines runnable on the P it runs
// for: a channel send or a Sleep's end readies a goroutine (ready), an
// AfterFunc starts one (newproc), a netpoll deadline readies the goroutine
// waiting on it. Upstream wakes an idle P for each (wakep), and the
// spinning M that finds them wakes the next (resetspinning), so one timer
// wakeup that readies a batch of goroutines wakes up to GOMAXPROCS
// threads, which share the batch and park again. For short goroutines (a
// tick received, a sleep ended, a deadline's error) those threads' wakeups
// cost more than the work they take over: on 2 Ps upstream spends three
// context switches per timer wakeup, on 16 Ps ten.
//
// A timer's slack lets it fire anywhere in [when, when+slack]; the same
// freedom lets its goroutine wait for the thread that fired it, until the
// same hard deadline. So the P running the pass keeps the goroutines it
// readies for what is left of their timers' slack, at most maxWakeDefer:
// a deferral. A batch of short goroutines then costs one thread one
// wakeup.
//
// Invariants:
//
//   - wake.now is the time of the pass while check runs timers for the
//     P, by the M that holds it, and 0 otherwise.
//   - wake.slack is not 0 only during such a pass: it is what is left of
//     the slack of the timer firing at the pass's time, its hard deadline
//     less wake.now, or -1 if none is left (set as the timer fires,
//     before it is re-armed), and the end of the pass clears it. Only goroutines readied then are
//     deferred, each by what is left of the slack of the timer whose
//     firing readied it, so that a goroutine starts by its timer's hard
//     deadline: the slack is granted once, to the firing and the start
//     together, not once to each. A timer fired outside a pass (a channel
//     receive that runs a timer due, maybeRunChan) defers nothing. Timers
//     on fake time (synctest bubbles) get no slack, so their passes defer
//     nothing.
//   - wake.at is 0 or the time by which the P must have started every
//     goroutine it deferred: the least pass time plus
//     min(slack left, maxWakeDefer) over them, lowered at the end of the
//     pass to the earliest hard deadline of any P's timers (see "The
//     guard" below). A timer fired with no slack, or at or past its hard
//     deadline, defers nothing: its goroutine wakes an idle P as
//     upstream, and that P's M steals from the whole queue. An idle P
//     defers nothing (pidleput ends its deferral), nor does a destroyed
//     one ((*p).destroy ends it).
//   - While wake.at is set, the P wakes no idle P for its queue, neither
//     for goroutines readied in a pass nor when its M stops spinning,
//     unless a pass of its M spinning (one of findRunnable's) readied a
//     goroutine it could not defer (a timer fired with no slack left, or
//     deferral off: wake.urgent). That goroutine's own wakeup found the
//     M spinning and woke nobody: as upstream, the wakeup of the M as it
//     stops spinning carries it on, and is not skipped. (If another P's M
//     spins when such a goroutine is readied, and that P defers, its
//     skipped wakeup leaves the goroutine to that deferral's end: a gap of
//     at most maxWakeDefer, left open.)
//     Upstream's woken M does three jobs: it takes a share of the queue;
//     finding none left, it waits in the netpoller for the timers and I/O
//     of the idle Ps, which an M running goroutines does not watch; and it
//     carries on the wakeups that other readies skipped because an M was
//     already spinning (wakep wakes at most one spinning M, and relies on
//     it to wake the next when it finds work). So a deferral ends in one
//     of two ways:
//   - The P's M looks for work with its queue empty (findRunnable): every
//     deferred goroutine has started, here or on a P that stole it, and
//     the M goes on to look for work and to watch timers and I/O itself.
//     It wakes nobody, unless goroutines wait elsewhere that an M may owe
//     a wakeup for: in the global queue (where runqput spills a batch too
//     large for the local one), or, if the M skipped the wakeup of
//     resetspinning (wake.owed), in another P's queue.
//   - wake.at passes first: as the P's M starts a goroutine (execute),
//     when the guard below makes the goroutine the P's M runs yield, or
//     when sysmon finds the P running a goroutine (retake). Then it wakes
//     an idle P, for all three jobs. A compare-and-swap of wake.at decides between the P's M
//     and sysmon, so that one of them wakes a P and counts it.
//
// The guard. A deferral bets that the goroutines it keeps are short, and
// that the P's M soon looks for work again. When one of them runs long
// (it spins, computes, or waits for the others to start), nothing else
// would end the deferral but sysmon, which sleeps up to 10 ms between
// looks, and meanwhile no M would watch the timers and I/O of the idle Ps
// or start the goroutines behind it: Go's ParallelTimerLatency, whose
// AfterFunc goroutines each spin until all have started, ran about 14x
// later than with the heap on 16 Ps. So a deferral is guarded: at the end
// of the pass (once check has dropped the timers lock) the P lowers
// wake.at to the earliest hard deadline of the timers of every P (its own
// included), and the M arms a one-shot kernel timer of its own for
// wake.at (slackGuardArm: a POSIX timer on CLOCK_MONOTONIC whose signal,
// the preemption signal, goes to the M's thread); an M that acquires a P
// with a deferral arms its own (acquirep). If the deferral is still in
// place when the signal comes, the handler asks the goroutine the M runs
// to yield (slackSigPreempt), as sysmon's preemption would; the M then
// finds wake.at passed as it starts the next goroutine (execute) and
// wakes an idle P, whose M starts the goroutines left and runs the timers
// due. A deferral that ends first disarms the timer: in the common case
// the guard costs two system calls and no thread wakeup. So:
//   - While a P defers, no timer of any P that existed at the end of the
//     pass fires after its hard deadline for want of a wakeup, beyond the
//     signal's and the preemption's latency; timers added later by other
//     Ps get the wakeups upstream gives them (wakeNetPoller). Deferred
//     goroutines start by wake.at, and I/O readiness waits at most until
//     wake.at, that is, at most min(slack, maxWakeDefer) past the pass.
//   - Where the guard cannot be armed (not Linux, asynchronous preemption
//     off, timer_create failed) the P defers nothing: it wakes an idle P
//     at the end of the pass, as upstream would have at each ready.
//   - A goroutine that cannot be preempted (runtime code, a non-Go call)
//     keeps the P until sysmon's retake wakes an idle P for it, as before;
//     so does one in a system call when the signal comes (it yields when
//     the call returns, or sysmon hands its P off). The signal of a guard
//     whose deferral another thread ended may still come, up to
//     maxWakeDefer later: a system call it interrupts that the kernel does
//     not restart (nanosleep, poll) returns EINTR, as it may for any
//     preemption.
//   - wake.at is written by the P's M and read by sysmon and by the
//     signal handler on the P's M: it is atomic. now, slack, owed and
//     urgent are the P's M's alone, and so is the M's guard
//     (m.slackGuard).
//
// Deferral off. GODEBUG=timerslackdeferoff=1 turns deferrals off, at any
// time: a pass then wakes an idle P for each goroutine its timers ready,
// as upstream, and slack is left to the timers' firing alone. A deferral
// saves a thread's wakeup and costs its guard's system calls, and, when
// it expires, the guard's signal: on a virtual machine, where arming a
// kernel timer and taking its interrupt each exit to the hypervisor, that
// can cost more than the wakeups it saves (docs/slack.md in timerlab).
// A deferral in progress when it is set ends as it would have, and a
// goroutine a pass does not defer because it is set is urgent, as one
// whose timer has no slack left: if the knob changes during a pass of an M
// spinning, that M does not skip the wakeup it owes the goroutine.

package runtime

import "internal/runtime/atomic"

// maxWakeDefer bounds how long a P keeps the goroutines its timers readied
// before it wakes an idle P for them, whatever their slack: on 2 cores a
// batch of 100 goroutines receiving ticks drains in about 250 µs, and a
// longer wait saves no wakeup (docs/slack.md in timerlab).
const maxWakeDefer = 1_000_000 // 1 ms

// A timerWakeDefer is a P's deferred wakeup. See the invariants above.
type timerWakeDefer struct {
	owed   bool         // the P's M skipped resetspinning's wakeup during the deferral
	urgent bool         // a spinning M's pass readied a goroutine it could not defer: see slackSkipSpin
	now    int64        // the time of the pass of check running timers for this P; 0 outside passes
	slack  int64        // slack left to the timer firing in that pass, -1 for none; 0 outside passes
	at     atomic.Int64 // 0, or by when the P must have started its deferred goroutines
}

// slackPassStart marks the start of a pass of check over a timers set for
// pp, at time now. The caller holds pp.
func (pp *p) slackPassStart(now int64) {
	pp.wake.now = now
}

// slackFiring records the slack of t, about to fire on the P running the
// caller. The caller holds t's lock and has not re-armed t yet.
func (t *timer) slackFiring() {
	getg().m.p.ptr().slackFired(t.when, int64(t.slack.off))
}

// slackFired records the firing on pp of a timer due at when with slack
// off: in the slack histogram of the metrics if it has slack (counted here
// rather than when it is armed: most timers are armed again before they
// fire), and, in a pass of check, the wait its goroutine may be given:
// what is left of its slack at the pass's time (see the invariants).
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
// runnable on it to its own M, rather than wake an idle P for it: whether
// a pass of check is running a timer with slack left on pp. The test
// outside passes is inlined into ready and newproc.
func (pp *p) slackDeferWake() bool {
	if pp.wake.slack == 0 {
		return false
	}
	return pp.slackDefer()
}

// slackDefer is slackDeferWake in a pass. If the timer firing has slack
// left, it lowers pp.wake.at to the time the goroutine just made runnable
// must have started by, counting a deferral if none was in progress; the
// guard is armed at the end of the pass. If not, it marks the goroutine's
// wakeup urgent (see the invariants). It is kept out of line so that
// slackDeferWake inlines into ready and newproc.
//
//go:noinline
func (pp *p) slackDefer() bool {
	w := &pp.wake
	if w.slack < 0 || debug.timerslackdeferoff.Load() != 0 {
		// No slack left, or deferral off (see above): as urgent.
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
			// A new deferral. It is counted before wake.at is published,
			// so that any expiry of it, which a read of the metrics
			// loads first, comes after the count (timemetrics.go). Only
			// this M stores a wake.at other than 0, so no CAS is needed.
			pp.timerStats.wakeDeferrals++
			w.at.Store(at)
			return true
		}
		if w.at.CompareAndSwap(old, at) {
			return true
		}
	}
}

// slackPassEnd marks the end of that pass. check calls it with the timers
// lock held, and slackPassGuard once it has dropped it.
func (pp *p) slackPassEnd() {
	pp.slackPassEndAs(getg().m.spinning)
}

// slackPassEndAs is slackPassEnd for an M spinning or not. wake.urgent
// stays set only for an M spinning, whose resetspinning is to come; the
// other readied the urgent goroutines with a wakeup of their own.
func (pp *p) slackPassEndAs(spinning bool) {
	pp.wake.slack = 0
	pp.wake.now = 0
	if !spinning {
		pp.wake.urgent = false
	}
}

// slackPassGuard guards the deferral that a pass of check for pp began or
// lowered (see "The guard" above). The caller is pp's M, holding no lock:
// ending the deferral wakes a P, which takes sched.lock. check calls it
// after a pass that ran timers.
// The test for a deferral is inlined into check: most passes begin none.
func (pp *p) slackPassGuard() {
	if at := pp.wake.at.Load(); at != 0 {
		pp.slackPassGuardAt(at)
	}
}

// slackPassGuardAt is slackPassGuard for a deferral until at.
func (pp *p) slackPassGuardAt(at int64) {
	if mp := getg().m; at != mp.slackGuard.armed {
		pp.slackGuardDeferral(mp, at, slackTimersDue(), nanotime())
	}
}

// slackTimersDue returns the earliest hard deadline of the timers of every
// P, or 0 if there is none: what the netpoller of an idle M would sleep
// until (checkTimersNoP). A P whose wakeTime answers 1 is moving timers
// from its wheel into its heap as we read (see wheelMinWhen); it is read
// once more, after the move, and if it answers 1 again the deferral ends
// at once. The caller holds a P, so allp does not change.
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

// slackGuardAcquired arms the guard of the M that has just acquired pp
// (acquirep) for pp's deferral, if it has one: a P handed to another M
// (handoffp, startlockedm, a stop of the world) keeps its deferral, and
// the M that armed a guard for it no longer runs it. The guard is armed
// even for a deferral already due, whose signal then comes at once: the
// M may go back to a goroutine without passing execute's check (an
// exitsyscall that takes another P), and acquirep may run with sched.lock
// held (procresize), where no P may be woken. (A P borrowed by allocm
// arms its borrower's guard for nothing: a needless signal, as rare as
// allocm.) The test is inlined into acquirep.
func (pp *p) slackGuardAcquired() {
	if at := pp.wake.at.Load(); at != 0 {
		pp.slackGuardAcquiredSlow(at)
	}
}

// slackGuardAcquiredSlow is slackGuardAcquired's slow path, out of line so
// that the test inlines.
//
//go:noinline
func (pp *p) slackGuardAcquiredSlow(at int64) {
	if mp := getg().m; at != mp.slackGuard.armed {
		mp.slackGuardArm(at)
	}
}

// slackGuardDeferral lowers pp's deferral, in force until at, to due, the
// earliest hard deadline of any P's timers (0 for none), and arms mp's
// guard for it; if the time has come by now, or the guard cannot be
// armed, it ends the deferral at once with the wakeup of an idle P. The
// caller is pp's M, mp.
func (pp *p) slackGuardDeferral(mp *m, at, due, now int64) {
	if due != 0 && due < at {
		if !pp.wake.at.CompareAndSwap(at, due) {
			return // sysmon ended it
		}
		at = due
	}
	if at <= now || !mp.slackGuardArm(at) {
		pp.slackWakeExpire(at)
	}
}

// slackSkipSpinWake reports whether gp's M, done spinning, should skip
// resetspinning's wakeup because its P defers one: execute calls
// slackWakeCheck before it runs the goroutine found. The skipped wakeup is
// owed until the deferral ends.
func slackSkipSpinWake(gp *g) bool {
	return gp.m.p.ptr().slackSkipSpin()
}

// slackSkipSpin is slackSkipSpinWake for the P of the M done spinning. A
// pass that fired a timer with no slack left (wake.urgent) readied a
// goroutine that must not wait for the deferral: its own wakeup found
// the M that ran the pass spinning and woke nobody, as upstream, where
// the wakeup skipped here carries it on. So after such a pass the wakeup
// is not skipped.
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
// goroutines has passed. execute calls it on pp's M as it starts a
// goroutine, after it has cleared the goroutine's preemption request: a
// guard's signal that came before found no goroutine running, or one
// whose request execute cleared, but then the time has passed here. The
// test of wake.at is inlined.
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
// wakeup owed: it wakes an idle P if goroutines wait that an M may owe a
// wakeup for (see the invariants).
//
//go:noinline
func (pp *p) slackWakeDoneSlow() {
	owed := pp.wake.owed
	pp.wake.owed, pp.wake.urgent = false, false
	pp.wake.at.Store(0)
	getg().m.slackGuardDisarm()
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
// queue (pidleput) or being destroyed ((*p).destroy), without a wakeup.
// The caller owns pp. If the caller's M holds no P (it has just released
// pp) or holds pp, it disarms its guard; an M holding another P (the one
// that stops the world) keeps its own. The M that armed the guard for pp
// may be another still (a P handed off in a syscall): its signal then
// finds no deferral. A guard the M left armed when its P's deferral
// ended elsewhere is not disarmed here: its time has passed or it comes
// as a stray signal (see "The guard"), and the M's next deferral arms it
// again. The test is inlined into pidleput.
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
	if mp := getg().m; mp.p == 0 || mp.p.ptr() == pp {
		mp.slackGuardDisarm()
	}
}

// slackWakeSysmon wakes an idle P if sysmon finds pp running a goroutine
// (retake) past the time to start pp's deferred goroutines.
func (pp *p) slackWakeSysmon(now int64) {
	if at := pp.wake.at.Load(); at != 0 && at <= now {
		pp.slackWakeExpire(at)
	}
}

// slackWakeExpire ends pp's deferral, which had to start its goroutines by
// at, and wakes an idle P, unless pp's M or sysmon ended it first. A wakeup
// owed stays owed: wakep wakes nobody while an M spins.
//
// wakep asks for a caller with a P, so that a checkdead between its unlock
// and startm's lock sees a running M. sysmon holds none, but pp's M was
// running just now, and if it stops in between, it stops because it ran
// out of work, so the M that wakep starts finds none either.
//
// The guard of pp's M is left as it is: at has passed, so its signal has
// come or is about to, and the handler finds no deferral (or a later one,
// whose time it checks); disarming it later costs no system call
// (slackGuardDisarm). pp's M arms it again for its next deferral.
func (pp *p) slackWakeExpire(at int64) {
	if pp.wake.at.CompareAndSwap(at, 0) {
		timerWakeDeferralsExpired.Add(1)
		wakep()
	}
}
