// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux && goexperiment.timerslack

// The guard of a deferred wakeup on Linux. Each P has a one-shot POSIX
// timer. Its signal goes to sysmon's thread and wakes sysmon, which ends
// a deferral whose time has passed. See "The guard" in timeslack_wake.go.

package runtime

import (
	"internal/abi"
	"internal/runtime/atomic"
)

// slackGuardClock is CLOCK_MONOTONIC, nanotime's clock. A deferral's time
// arms the timer as it is.
const (
	slackGuardClock   = 1
	slackGuardAbsTime = 1 // TIMER_ABSTIME
)

// slackSysmonTid is the thread ID of sysmon's M, or 0 until sysmon runs.
// Guard timers send their signal to that thread.
var slackSysmonTid uint32

// slackSysmonKick is 1 from the guard's signal until sysmon wakes for it.
// sysmon sleeps on it as a futex, so a signal that comes just before the
// sleep is not lost.
var slackSysmonKick uint32

// slackGuardKicks counts the times the guard's signal woke sysmon.
// Only tests read it.
var slackGuardKicks atomic.Uint32

// A slackGuard is a P's guard timer.
// Only the owner of the P uses it: the M that holds the P, or the code
// that puts the P to idle (sysmon too, after it takes the P of a system
// call) or destroys it.
type slackGuard struct {
	// id is the timer's ID when made is 1.
	// made is 0 before the first use, and -1 if the timer
	// cannot be made: the P then defers nothing.
	id   int32
	made int8

	// armed is the time the timer is set for, or 0 if it is disarmed.
	// A time that has passed means that the timer has fired.
	armed int64
}

// slackSysmonStart records sysmon's thread. sysmon calls it as it starts.
func slackSysmonStart() {
	atomic.Store(&slackSysmonTid, uint32(getg().m.procid))
}

// slackSysmonSleep sleeps for usec microseconds, as usleep does, unless a
// guard's signal comes first.
func slackSysmonSleep(usec uint32) {
	futexsleep(&slackSysmonKick, 0, int64(usec)*1000)
	if atomic.Xchg(&slackSysmonKick, 0) != 0 {
		slackGuardKicks.Add(1)
	}
}

// slackSigPreempt runs first in the handler of the preemption signal.
// A signal from a timer (si_code SI_TIMER) is a guard's: it wakes sysmon.
// The handler runs on sysmon's thread. The futex wait it interrupts
// returns, and a wait yet to begin finds the kick set. The wakeup covers
// a signal delivered elsewhere. Only 32-bit atomics run here: on some
// 32-bit ports a 64-bit atomic takes a lock, which the interrupted code
// may hold.
//
//go:nosplit
//go:nowritebarrierrec
func slackSigPreempt(gp *g, c *sigctxt) {
	if int32(c.sigcode()) == _SI_TIMER {
		atomic.Store(&slackSysmonKick, 1)
		futexwakeup(&slackSysmonKick, 1)
	}
}

// slackGuardable reports whether pp can guard a deferral.
// It needs sysmon's thread, asynchronous preemption (the signal is the
// preemption signal, and its handler runs only with preemption on), the
// runtime's own handler of that signal (a program that ignores it, or a
// host process that owns it, gets none), and a timer.
// The caller owns pp.
func (pp *p) slackGuardable() bool {
	return pp.wake.guard.made >= 0 && debug.asyncpreemptoff == 0 &&
		atomic.Load(&slackSysmonTid) != 0 && atomic.Load(&handlingSig[sigPreempt]) != 0
}

// slackGuardArm sets pp's guard to fire at at and reports whether it did.
// It makes the timer on first use. The caller owns pp.
func (pp *p) slackGuardArm(at int64) bool {
	g := &pp.wake.guard
	if g.made == 0 && !g.make() {
		return false
	}
	if g.made < 0 || !pp.slackGuardable() {
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

// make makes g's timer, aimed at sysmon's thread. It fails, for good, if
// the preemption signal's handler is not the runtime's (a host process
// of a c-shared library may own it), or if timer_create fails (EAGAIN
// when the user's RLIMIT_SIGPENDING is spent): the P then defers nothing
// until it is destroyed.
func (g *slackGuard) make() bool {
	g.made = -1
	tid := atomic.Load(&slackSysmonTid)
	if tid == 0 {
		g.made = 0 // sysmon is not running yet: try again later
		return false
	}
	h := getsig(sigPreempt)
	if h != abi.FuncPCABI0(sigtramp) && h != abi.FuncPCABI0(cgoSigtramp) {
		return false
	}
	var sevp sigevent
	sevp.notify = _SIGEV_THREAD_ID
	sevp.signo = sigPreempt
	sevp.sigev_notify_thread_id = int32(tid)
	if timer_create(slackGuardClock, &sevp, &g.id) != 0 {
		return false
	}
	g.made = 1
	return true
}

// slackGuardDisarm disarms pp's guard if it is set for a time still to
// come. One whose time has passed has fired, and needs no system call.
// The caller owns pp.
func (pp *p) slackGuardDisarm() {
	g := &pp.wake.guard
	if g.armed != 0 {
		if g.armed > nanotime() {
			var spec itimerspec // a zero it_value disarms
			timer_settime(g.id, 0, &spec, nil)
		}
		g.armed = 0
	}
}

// slackGuardDelete deletes pp's guard timer, as pp is destroyed. The next
// use makes a new one. The world is stopped.
func (pp *p) slackGuardDelete() {
	g := &pp.wake.guard
	if g.made > 0 {
		timer_delete(g.id)
	}
	*g = slackGuard{}
}
