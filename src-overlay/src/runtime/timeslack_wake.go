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
// freedom lets its goroutine wait for the thread that fired it. So the P
// running the pass keeps the goroutines it readies for up to
// min(slack, maxWakeDefer) after the pass's time: a deferral. A batch of
// short goroutines then costs one thread one wakeup.
//
// Invariants:
//
//   - wake.pass is set only while check runs timers for the P, by the M
//     that holds it; only goroutines readied then are deferred, each by
//     the slack of the timer whose firing readied it (wake.slack, set as
//     the timer fires, before it is re-armed). Timers on fake time
//     (synctest bubbles) get no slack, so their passes defer nothing.
//   - wake.at is 0 or the time by which the P must have started every
//     goroutine it deferred: the least pass time plus
//     min(slack, maxWakeDefer) over them. A timer fired with no slack
//     defers nothing: its goroutine wakes an idle P as upstream, and that
//     P's M steals from the whole queue. An idle P defers nothing
//     (pidleput ends its deferral).
//   - While wake.at is set, the P wakes no idle P for its queue, neither
//     for goroutines readied in a pass nor when its M stops spinning.
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
//   - wake.at passes first: at a schedule of the P, or when sysmon finds
//     the P running a goroutine (retake). Then it wakes an idle P, for all
//     three jobs. A compare-and-swap of wake.at decides between the P's M
//     and sysmon, so that one of them wakes a P and counts it.
//   - So while a P defers, its deferred goroutines, the timers of idle Ps
//     and I/O wait at most until wake.at, or, if the P's M runs one
//     goroutine all along, until sysmon's next look after it (sysmon
//     sleeps 20 µs to 10 ms, and preempts a goroutine after 10 ms), where
//     upstream would have a thread for them at once: a timer of an idle P
//     may fire up to that long past its hard deadline.
//   - wake.at is written by the P's M and read by sysmon: it is atomic.
//     pass, now, slack and owed are the P's M's alone.

package runtime

import "internal/runtime/atomic"

// maxWakeDefer bounds how long a P keeps the goroutines its timers readied
// before it wakes an idle P for them, whatever their slack: on 2 cores a
// batch of 100 goroutines receiving ticks drains in about 250 µs, and a
// longer wait saves no wakeup (docs/slack.md in timerlab).
const maxWakeDefer = 1_000_000 // 1 ms

// A timerWakeDefer is a P's deferred wakeup. See the invariants above.
type timerWakeDefer struct {
	pass  bool         // check is running timers for this P
	owed  bool         // the P's M skipped resetspinning's wakeup during the deferral
	now   int64        // the time of that pass
	slack int64        // the slack of the timer firing in that pass
	at    atomic.Int64 // 0, or by when the P must have started its deferred goroutines
}

// slackPassStart marks the start of a pass of check over a timers set for
// pp, at time now. The caller holds pp.
func (pp *p) slackPassStart(now int64) {
	pp.wake.pass, pp.wake.now = true, now
}

// slackPassEnd marks the end of that pass.
func (pp *p) slackPassEnd() {
	pp.wake.pass = false
}

// slackFiring records the slack of t, about to fire on the P running the
// caller: the wait its goroutine may be given. The caller holds t's lock
// and has not re-armed t yet.
func (t *timer) slackFiring() {
	getg().m.p.ptr().wake.slack = int64(t.slack.off)
}

// slackDeferWake reports whether pp may leave the goroutine just made
// runnable on it to its own M, rather than wake an idle P for it: whether
// a pass of check is running a timer with slack on pp. The test is
// inlined into ready and newproc.
func (pp *p) slackDeferWake() bool {
	if !pp.wake.pass || pp.wake.slack == 0 {
		return false
	}
	pp.slackDefer()
	return true
}

// slackDefer lowers pp.wake.at to the time the goroutine just made
// runnable in a pass must have started by, counting a deferral if none
// was in progress.
func (pp *p) slackDefer() {
	w := &pp.wake
	at := w.now + min(w.slack, maxWakeDefer)
	for {
		old := w.at.Load()
		if old != 0 && old <= at {
			return
		}
		if w.at.CompareAndSwap(old, at) {
			if old == 0 {
				pp.timerStats.wakeDeferrals++
			}
			return
		}
	}
}

// slackSkipSpinWake reports whether gp's M, done spinning, should skip
// resetspinning's wakeup because its P defers one: schedule calls
// slackWakeCheck right after. The skipped wakeup is owed until the
// deferral ends.
func slackSkipSpinWake(gp *g) bool {
	pp := gp.m.p.ptr()
	if pp.wake.at.Load() == 0 {
		return false
	}
	pp.wake.owed = true
	return true
}

// slackWakeCheck wakes an idle P if the time to start pp's deferred
// goroutines has passed. Called by schedule on pp's M; the test of wake.at
// is inlined.
func (pp *p) slackWakeCheck() {
	if at := pp.wake.at.Load(); at != 0 && nanotime() >= at {
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
func (pp *p) slackWakeDoneSlow() {
	owed := pp.wake.owed
	pp.wake.owed = false
	pp.wake.at.Store(0)
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
// queue (pidleput), without a wakeup. The caller owns pp.
func (pp *p) slackWakeIdle() {
	pp.wake.owed = false
	pp.wake.at.Store(0)
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
func (pp *p) slackWakeExpire(at int64) {
	if pp.wake.at.CompareAndSwap(at, 0) {
		timerWakeDeferralsExpired.Add(1)
		wakep()
	}
}
