// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !goexperiment.timerslack

// Without GOEXPERIMENT=timerslack a timer's window is the instant when:
// these are the neutral hooks that time.go calls, so the other builds key
// their heaps on when, as upstream. See timeslack.go.

package runtime

type timerSlack struct{}

type timerWhenSoft struct{}

type timersSlackOpen struct{}

func setTimerSlack(value string)                         {}
func (t *timer) slackArm(now int64) int64                { return t.when }
func (t *timer) deadline() int64                         { return t.when }
func (t *timer) coalescedAt(now int64) bool              { return false }
func (t *timer) heapEntry() timerWhen                    { return timerWhen{timer: t, when: t.when} }
func (tw *timerWhen) setWhen(t *timer)                   { tw.when = t.when }
func (tw timerWhen) softWhen() int64                     { return tw.when }
func (ts *timers) slackUpdateOpen()                      {}
func (ts *timers) slackOpen(next int64) int64            { return next }
func (ts *timers) slackModified(t *timer, oldWhen int64) {}
func (ts *timers) slackModifiedOpen(first int64) int64   { return first }
func (ts *timers) slackClearModified()                   {}

type slackSleep struct{}

func (mp *m) slackSleepFrom(gp *g, when, now int64) {}
func (mp *m) slackSleepNow(gp *g, when int64) int64 { return 0 }
func slackClock() int64                             { return 0 }

// Without slack, a P wakes idle Ps for the goroutines its timers ready at
// once, as upstream. See timeslack_wake.go.

type timerWakeDefer struct{}

func (pp *p) slackPassStart(now int64)  {}
func (pp *p) slackPassEnd()             {}
func (pp *p) slackPassGuard()           {}
func (t *timer) slackFiring()           {}
func (pp *p) slackDeferWake() bool      { return false }
func slackSkipSpinWake(gp *g) bool      { return false }
func (pp *p) slackWakeCheck()           {}
func (pp *p) slackWakeDone()            {}
func (pp *p) slackWakeIdle()            {}
func (pp *p) slackWakeDestroy()         {}
func (pp *p) slackWakeSysmon(now int64) {}

// sysmon sleeps as upstream.
func slackSysmonStart()            {}
func slackSysmonSleep(usec uint32) { usleep(usec) }
