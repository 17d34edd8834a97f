// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerslack

package runtime_test

import (
	. "runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestTimerSlackDeferWake checks which goroutines a P running timers keeps
// for itself, and until when: those a timer with slack readies during the
// pass, each until the pass's time plus its slack, capped at MaxWakeDefer,
// the earliest of them for the lot. A timer with no slack, and a goroutine
// made runnable after the pass, defer nothing. A schedule before that time
// keeps the deferral; the P's M looking for work with its queue empty ends
// it.
func TestTimerSlackDeferWake(t *testing.T) {
	now := Nanotime() + int64(time.Hour)
	us := int64(time.Microsecond)
	for _, c := range []struct {
		name     string
		slacks   []int64
		deferred []bool // for each slack, then for a goroutine readied after the pass
		at       int64  // 0: no deferral
	}{
		{"none", nil, []bool{false}, 0},
		{"no slack", []int64{0, 0}, []bool{false, false, false}, 0},
		{"one", []int64{300 * us}, []bool{true, false}, now + 300*us},
		{"capped", []int64{50 * MaxWakeDefer}, []bool{true, false}, now + MaxWakeDefer},
		{"the least", []int64{800 * us, 200 * us, 500 * us}, []bool{true, true, true, false}, now + 200*us},
		{"mixed", []int64{400 * us, 0, 900 * us}, []bool{true, false, true, false}, now + 400*us},
		{"the cap, then less", []int64{MaxTimerSlack, 100 * us}, []bool{true, true, false}, now + 100*us},
	} {
		deferred, at, deferrals, kept, ended := TimerWakeDefer(now, c.slacks)
		if !equalBools(deferred, c.deferred) || at != c.at {
			t.Errorf("%s: deferred %v until %d, want %v until %d", c.name, deferred, at-now, c.deferred, c.at-now)
		}
		if want := uint64(min(c.at, 1)); deferrals != want {
			t.Errorf("%s: counted %d deferrals, want %d", c.name, deferrals, want)
		}
		if !kept {
			t.Errorf("%s: a schedule before the deferral's time ended it", c.name)
		}
		if !ended {
			t.Errorf("%s: the M looking for work with an empty queue left the deferral in place", c.name)
		}
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
