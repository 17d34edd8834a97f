// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux && goexperiment.timerslack

// The guard of a deferred wakeup on Linux: a one-shot POSIX timer per M
// that sends the preemption signal to the M's own thread when the
// deferral's time comes. See "The guard" in timeslack_wake.go.

package runtime

import "internal/runtime/atomic"

// slackGuardClock is CLOCK_MONOTONIC, nanotime's clock, so that a
// deferral's time arms the timer as it is.
const (
	slackGuardClock   = 1
	slackGuardAbsTime = 1 // TIMER_ABSTIME
)

// A slackGuard is an M's guard timer. Only the M's own thread reads or
// writes it (the signal handler, on that thread, reads nothing of it).
type slackGuard struct {
	// id is the timer's ID, once made (made is then 1), for the thread
	// tid; made is -1 if timer_create failed, and the M defers nothing.
	// An M that serves cgo callbacks (an extra M) moves between threads:
	// unminit deletes the timer as the M leaves a thread.
	id   int32
	tid  int32
	made int8

	// armed is the time the timer is set for, or 0 if it is disarmed.
	// It may have passed: a deferral that expired leaves it set (see
	// slackWakeExpire), which is harmless, since the next deferral's
	// time is later than any that has passed.
	armed int64
}

// slackGuardArm sets mp's guard to fire at at, making the timer on first
// use, and reports whether it did. The caller is mp's thread, with a P.
func (mp *m) slackGuardArm(at int64) bool {
	g := &mp.slackGuard
	if g.made != 0 && g.tid != int32(mp.procid) {
		mp.slackGuardDelete() // made for another thread: unminit did not run
	}
	if g.made == 0 {
		g.made = -1
		if debug.asyncpreemptoff == 0 && mp.procid != 0 {
			var sevp sigevent
			sevp.notify = _SIGEV_THREAD_ID
			sevp.signo = sigPreempt
			sevp.sigev_notify_thread_id = int32(mp.procid)
			if timer_create(slackGuardClock, &sevp, &g.id) == 0 {
				g.made, g.tid = 1, int32(mp.procid)
			}
		}
	}
	if g.made < 0 || debug.asyncpreemptoff != 0 {
		return false
	}
	var spec itimerspec
	spec.it_value.setNsec(at)
	if timer_settime(g.id, slackGuardAbsTime, &spec, nil) != 0 {
		return false
	}
	g.armed = at
	return true
}

// slackGuardDisarm disarms mp's guard if it is armed for a time still to
// come; one whose time has passed has fired and needs no system call.
// The caller is mp's thread.
func (mp *m) slackGuardDisarm() {
	g := &mp.slackGuard
	if g.armed != 0 {
		if g.armed > nanotime() {
			var spec itimerspec // a zero it_value disarms
			timer_settime(g.id, 0, &spec, nil)
		}
		g.armed = 0
	}
}

// slackGuardDelete deletes mp's guard timer, if it has one, as the M
// leaves its thread (unminit, from dropm and mexit).
//
//go:nosplit
//go:nowritebarrierrec
func (mp *m) slackGuardDelete() {
	g := &mp.slackGuard
	if g.made > 0 {
		timer_delete(g.id)
	}
	*g = slackGuard{}
}

// slackGuardPreempts counts the goroutines the guard's signal (its
// si_code is SI_TIMER) asked to yield. Only tests read it.
var slackGuardPreempts atomic.Uint32

// slackSigPreempt runs first in the handler of the preemption signal on
// gp's thread, the guard's or another's (a preemption, sysmon's). If the P the thread runs defers a wakeup whose time has
// passed, it asks the goroutine the M runs (curg, whether the signal
// found it running or on the M's stack in a runtime call) to yield, as
// sysmon's preemptone does: doSigPreempt then preempts it at once if it
// is at an asynchronous safe point, and otherwise it yields at its next
// function call, or, if it is in a system call, at its first after the
// call returns (exitsyscall). Its M's schedule then finds the deferral's
// time passed and wakes an idle P (slackWakeCheck). With no curg the M is
// in the scheduler, which checks the deferral itself.
//
//go:nosplit
//go:nowritebarrierrec
func slackSigPreempt(gp *g, c *sigctxt) {
	mp := gp.m
	if mp == nil || mp.curg == nil {
		return
	}
	pp := mp.p.ptr()
	if pp == nil {
		return
	}
	if at := pp.wake.at.Load(); at == 0 || nanotime() < at {
		return
	}
	cg := mp.curg
	switch readgstatus(cg) &^ _Gscan {
	case _Grunning:
		cg.preempt = true
		cg.stackguard0 = stackPreempt
	case _Gsyscall:
		cg.preempt = true // its stackguard0 is stackPreempt until exitsyscall
	default:
		return
	}
	if int32(c.sigcode()) == _SI_TIMER {
		slackGuardPreempts.Add(1)
	}
}
