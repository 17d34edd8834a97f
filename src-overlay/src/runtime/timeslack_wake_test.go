// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerslack

package runtime_test

import (
	"internal/race"
	. "runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestTimerSlackDeferWake checks which goroutines a P running timers keeps
// for itself, and until when: those a timer with slack readies during the
// pass, each until the pass's time plus its slack, capped at MaxWakeDefer,
// the earliest of them for the lot, and no later than the earliest hard
// deadline of any P's timers (due), for which the M's guard is armed. A
// due that has come ends the deferral at the end of the pass, and so does
// a process that cannot guard deferrals (not Linux, or
// GODEBUG=asyncpreemptoff=1). A timer with no slack, and a goroutine made
// runnable after the pass, defer nothing. A schedule before that time
// keeps the deferral; the P's M looking for work with its queue empty
// ends it and disarms the guard.
func TestTimerSlackDeferWake(t *testing.T) {
	guarded := TimerSlackGuarded()
	if !guarded {
		t.Logf("deferrals are not guarded here: each ends with its pass")
	}
	now := Nanotime() + int64(time.Hour)
	us := int64(time.Microsecond)
	for _, c := range []struct {
		name     string
		due      int64 // 0: no timer anywhere
		slacks   []int64
		deferred []bool // for each slack, then for a goroutine readied after the pass
		at       int64  // 0: no deferral after the pass
		counted  uint64 // deferrals counted
	}{
		{"none", 0, nil, []bool{false}, 0, 0},
		{"no slack", 0, []int64{0, 0}, []bool{false, false, false}, 0, 0},
		{"one", 0, []int64{300 * us}, []bool{true, false}, now + 300*us, 1},
		{"capped", 0, []int64{50 * MaxWakeDefer}, []bool{true, false}, now + MaxWakeDefer, 1},
		{"the least", 0, []int64{800 * us, 200 * us, 500 * us}, []bool{true, true, true, false}, now + 200*us, 1},
		{"mixed", 0, []int64{400 * us, 0, 900 * us}, []bool{true, false, true, false}, now + 400*us, 1},
		{"the cap, then less", 0, []int64{MaxTimerSlack, 100 * us}, []bool{true, true, false}, now + 100*us, 1},
		{"a timer due later", now + 500*us, []int64{300 * us}, []bool{true, false}, now + 300*us, 1},
		{"a timer due first", now + 100*us, []int64{300 * us}, []bool{true, false}, now + 100*us, 1},
		{"a timer due now", now, []int64{300 * us}, []bool{true, false}, 0, 1},
	} {
		if !guarded {
			c.at = 0
		}
		deferred, at, deferrals, armed, kept, ended := TimerWakeDefer(now, c.due, c.slacks)
		if !equalBools(deferred, c.deferred) || at != c.at {
			t.Errorf("%s: deferred %v until %d, want %v until %d", c.name, deferred, at-now, c.deferred, c.at-now)
		}
		if deferrals != c.counted {
			t.Errorf("%s: counted %d deferrals, want %d", c.name, deferrals, c.counted)
		}
		if armed != (c.at != 0) {
			t.Errorf("%s: deferral until %d guarded: %v", c.name, at-now, armed)
		}
		if !kept {
			t.Errorf("%s: a schedule before the deferral's time ended it", c.name)
		}
		if !ended {
			t.Errorf("%s: the M looking for work with an empty queue left the deferral or its guard in place", c.name)
		}
	}
}

// TestTimerSlackDestroyEndsDeferral checks that a P destroyed by a lower
// GOMAXPROCS keeps no deferral, which a P created again in its place would
// inherit, skipping wakeups for no goroutine of its own.
func TestTimerSlackDestroyEndsDeferral(t *testing.T) {
	defer GOMAXPROCS(GOMAXPROCS(2))
	if at := TimerWakeDeferAfterDestroy(); at != 0 {
		t.Errorf("a destroyed P keeps a deferral until %d", at)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTimerSlackWakeStuck checks that a goroutine whose wakeup its P
// deferred still gets an idle P when the goroutine ahead of it never lets
// the P go. Two goroutines wait on timers due together; each, once
// readied, spins with no preemption point until the other has started. On
// one P neither would ever finish, so both do only if another P takes one
// of them: sysmon wakes an idle P once the deferral has run out, and counts
// the deferral as expired.
func TestTimerSlackWakeStuck(t *testing.T) {
	t.Setenv("GODEBUG", "timerslack=1ms")
	defer GOMAXPROCS(GOMAXPROCS(2))
	// A collection would stop the world, which waits for the spinners.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	expired := []metrics.Sample{{Name: "/sched/timers/wake-deferrals-expired:events"}}
	metrics.Read(expired)
	before := expired[0].Value.Uint64()
	for round := range 5 {
		var started [2]uint32
		var stuck atomic.Int32
		var wg sync.WaitGroup
		timers := [2]*time.Timer{time.NewTimer(5 * time.Millisecond), time.NewTimer(5 * time.Millisecond)}
		for i, tm := range timers {
			wg.Go(func() {
				<-tm.C
				atomic.StoreUint32(&started[i], 1)
				if !SpinUntil(&started[1-i], Nanotime()+int64(2*time.Second)) {
					stuck.Add(1)
				}
			})
		}
		wg.Wait()
		if n := stuck.Load(); n != 0 {
			t.Fatalf("round %d: %d goroutine(s) spun for 2s waiting for the other to start", round, n)
		}
	}
	if metrics.Read(expired); expired[0].Value.Uint64() == before {
		t.Errorf("no deferred wakeup expired in 5 rounds: the goroutines got a P some other way")
	}
}

// TestTimerSlackDeferralKeepsDeadlines builds a deferral on purpose and
// checks that a timer due during it fires by its hard deadline, bar a
// wakeup's latency, although the goroutine the deferral kept runs all the
// while. Timer A (slack 1ms) starts a goroutine that spins until timer B
// has fired; B (slack 10us) is due 0.4ms after A's hard deadline, inside
// the 1ms deferral that A's pass makes, and after the pass (a pass that
// comes late enough to find B's window open fires both). Left to the
// deferral's time and sysmon, B would fire 0.59ms late or more: nothing
// but the deferring P's M may wake an idle P, and it runs the spinner.
// The guard makes the spinner yield at B's hard deadline.
//
// Lateness is timing: a round is late also when the machine is loaded and
// the thread holding B's P does not run, and on time without the guard
// when sysmon, whose sleeps lengthen from 20us to 10ms as it finds nothing
// to do, happens to look just after B's deadline. So the test first spins
// long enough for sysmon to sleep 10ms, runs each of seven rounds beside
// a control in which A has no slack and its pass defers nothing, as
// upstream, and compares the median lateness of the rounds with the
// controls', with a margin below the lateness it checks against; it tries
// twice. A machine loaded enough (2 cores compiling) still fails it now
// and then, since the P the guard wakes must find a CPU in time, where the
// control's poller was woken long before: with -short (CI's quick gate)
// the test checks only what needs no timing, that the guard's signal, not
// sysmon, made the spinner yield in at least one round. It needs the guard, which only Linux has. The
// spinner spins in two ways: in an empty loop, and calling runtime.Stack,
// which runs on the M's own stack (systemstack), where the signal mostly
// lands: the goroutine it asks to yield is the one the M runs, not the one
// it interrupts.
func TestTimerSlackDeferralKeepsDeadlines(t *testing.T) {
	if !TimerSlackGuarded() {
		t.Skip("deferred wakeups are not guarded here")
	}
	if race.Enabled {
		t.Skip("the race detector's slowdown is of the order of the bound")
	}
	t.Setenv("GODEBUG", "timerslack=1ms")
	defer GOMAXPROCS(GOMAXPROCS(2))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var buf [256]byte
	for _, spin := range []struct {
		name string
		f    func()
	}{
		{"empty loop", func() {}},
		{"runtime.Stack", func() { Stack(buf[:], false) }},
	} {
		t.Run(spin.name, func(t *testing.T) { testTimerLateInDeferral(t, spin.f) })
	}
}

func testTimerLateInDeferral(t *testing.T, spin func()) {
	const bound = 500 * time.Microsecond
	deferrals := []metrics.Sample{{Name: "/sched/timers/wake-deferrals:events"}}
	var late, control []time.Duration
	for attempt := range 2 {
		for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		}
		metrics.Read(deferrals)
		before, preempts := deferrals[0].Value.Uint64(), TimerSlackGuardPreempts()
		late, control = timerLateInDeferral(t, 7, spin)
		if metrics.Read(deferrals); deferrals[0].Value.Uint64()-before < uint64(len(late)) {
			t.Fatalf("%d deferrals in %d rounds: the test built none", deferrals[0].Value.Uint64()-before, len(late))
		}
		if TimerSlackGuardPreempts() == preempts {
			t.Errorf("attempt %d: the guard's signal made no goroutine yield in %d rounds (lateness %v)", attempt, len(late), late)
			return
		}
		if testing.Short() {
			return // the lateness only without -short: see the test's comment
		}
		if late[len(late)/2] <= control[len(control)/2]+bound {
			if testing.Verbose() {
				t.Logf("attempt %d: lateness past the hard deadline %v, without the deferral %v", attempt, late, control)
			}
			return
		}
	}
	t.Errorf("timer B fired a median %v past its hard deadline, want at most %v more than without the deferral, %v (all: %v and %v)",
		late[len(late)/2], bound, control[len(control)/2], late, control)
}

// timerLateInDeferral runs the rounds of
// TestTimerSlackDeferralKeepsDeadlines, with spin as the spinner's loop
// body, each twice: as the test describes, and as a control in which
// timer A has no slack, so that its pass defers nothing and a P is woken
// at once, as upstream. It returns how late past its hard deadline timer
// B fired in each, sorted: in the rounds with the deferral, and in the
// controls, which are as late as the machine makes any timer.
func timerLateInDeferral(t *testing.T, rounds int, spin func()) (late, control []time.Duration) {
	const slackB = 10 * time.Microsecond
	for round := range 2 * rounds {
		var stop atomic.Bool
		done := make(chan bool)
		if round%2 == 0 {
			SetTimerSlack("1ms")
		} else {
			SetTimerSlack("0")
		}
		start := time.Now()
		time.AfterFunc(4*time.Millisecond, func() {
			for !stop.Load() {
				spin()
			}
			done <- true
		})
		SetTimerSlack(slackB.String())
		deadlineB := start.Add(5*time.Millisecond + 400*time.Microsecond + slackB)
		fired := make(chan time.Time, 1)
		time.AfterFunc(time.Until(deadlineB)-slackB, func() { fired <- time.Now() })
		select {
		case at := <-fired:
			if round%2 == 0 {
				late = append(late, at.Sub(deadlineB))
			} else {
				control = append(control, at.Sub(deadlineB))
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: timer B did not fire in 5s", round)
		}
		stop.Store(true)
		<-done
	}
	slices.Sort(late)
	slices.Sort(control)
	return late, control
}
