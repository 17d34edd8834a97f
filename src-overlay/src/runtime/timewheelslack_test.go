// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerwheel && goexperiment.timerslack

package runtime_test

import (
	. "runtime"
	"testing"
)

// TestTimerWheelSlackOpen checks that the window of a timer in the wheel
// is visible to a check without the lock, as a heap timer's is: from the
// start of its slot the set's open time has come, so a check that comes
// for another P's timer, at a time inside this timer's window and before
// its hard deadline, runs it too. Without the wheel's bound, such a timer
// waited for a wakeup of its own at its deadline.
func TestTimerWheelSlackOpen(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslack=1ms")
	const now = int64(1) << 40
	when := now + 50e6 // beyond the near horizon, into the wheel; not a slot's start
	m := NewTimerModel(1)
	m.Reset(0, when, 0, now)
	// The first check brings the wheel's cursor from 0 to now, as a P's
	// checks keep it, cascading the timer to the finest level it reaches.
	if fired := m.Check(now); len(fired) != 0 {
		t.Fatalf("a check at now fired %v", fired)
	}
	if _, wheel := m.Len(); wheel != 1 {
		t.Fatalf("%d timers in the wheel, want the one", wheel)
	}
	deadline := m.Deadline(0)
	if deadline <= when {
		t.Fatalf("deadline %d, want slack after when %d", deadline, when)
	}
	m.Verify()
	open := m.OpenTime()
	if open <= now || open >= when {
		t.Fatalf("open time %d, want its slot's start, after now %d and before when %d (deadline %d)", open, now, when, deadline)
	}
	// A check at the slot's start, before the window, cascades the slot
	// and fires nothing, and the open time moves on to the window's.
	if fired := m.Check(open); len(fired) != 0 {
		t.Errorf("a check at %d, before when %d, fired %v", open, when, fired)
	}
	if next := m.OpenTime(); next != when {
		t.Errorf("open time after the slot's cascade %d, want the timer's when %d", next, when)
	}
	if fired := m.Check(when); len(fired) != 1 || fired[0].ID != 0 {
		t.Errorf("a check at when, inside the window, fired %v; want timer 0", fired)
	}
	m.Verify()
	if open := m.OpenTime(); open != 0 {
		t.Errorf("open time %d after the only timer fired, want 0", open)
	}
}
