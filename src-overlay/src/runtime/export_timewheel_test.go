// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerwheel

// Export guts of the timing wheel for its tests.

package runtime

const TimerWheelTickShift = wheelTickShift

// TimerWheelStoppedMax is the size of a set's stopped ring.
const TimerWheelStoppedMax = wheelStoppedMax

// SetTimerWheelSlotMax sets the most timers a wheel slot holds and returns
// the previous limit.
func SetTimerWheelSlotMax(n int) int {
	old := wheelSlotMax
	wheelSlotMax = n
	return old
}

// WheelPos returns where timer id is in the wheel: its level, slot and
// index in the slot, encoded.
func (m *TimerModel) WheelPos(id int) uint32 {
	t := m.timers[id]
	t.lock()
	defer t.unlock()
	return uint32(t.wheelPos)
}

// HeapBeyondHorizon returns the number of live, unmodified timers in the
// heap that are due beyond the near horizon: timers that belong in the
// wheel but found their slot full, or that adjust re-sorted in the heap.
func (m *TimerModel) HeapBeyondHorizon() int {
	m.ts.lock()
	defer m.ts.unlock()
	n := 0
	for _, tw := range m.ts.heap {
		t := tw.timer
		t.lock()
		if t.state&(timerZombie|timerModified) == 0 && m.ts.wheel.level(t.when) >= 0 {
			n++
		}
		t.unlock()
	}
	return n
}

// FixEarlier moves wheel timer id earlier, to when, as a modify that
// leaves the move to wheelFix does (t marked modified, still in its slot),
// sets the set's minWhenModified to modified (0: cleared, as by an adjust
// that ran between the modify and the fix), then re-places it as wheelFix
// does and reports whether wheelFix would wake the netpoller.
func (m *TimerModel) FixEarlier(id int, when, modified int64) bool {
	t := m.timers[id]
	t.lock()
	t.when = when
	t.slackArm(0)
	t.state |= timerModified
	t.unlock()
	m.ts.minWhenModified.Store(modified)
	_, earlier := m.ts.wheelReplace(t)
	return earlier
}

// AdjustRacingModify runs an adjust of the model's set and a Reset of
// timer id, in the set, to when in the interleaving of two Ps that the
// mark in lowered must survive: adjust clears minWhenModified, modify marks
// the timer's slot (wheelInPlace), adjust collects the marks
// (wheelLowerSlots), modify reads and lowers minWhenModified, and adjust
// raises minWhenHeap. It reports whether the timer stayed in its slot.
func (m *TimerModel) AdjustRacingModify(id int, when int64) bool {
	ts, t := &m.ts, m.timers[id]
	ts.lock()
	ts.minWhenHeap.Store(ts.wakeTime())
	ts.minWhenModified.Store(0)
	t.lock()
	oldWhen, oldDeadline := t.when, t.deadline()
	t.when = when
	deadline := t.slackArm(0)
	inPlace := t.wheelNeedsFix(oldWhen, oldDeadline) != nil && t.wheelInPlace(oldWhen)
	t.state |= timerModified
	ts.wheelLowerSlots()
	if min := ts.minWhenModified.Load(); min == 0 || deadline < min {
		t.astate.Store(t.state)
		ts.updateMinWhenModified(deadline)
	}
	t.unlock()
	ts.updateMinWhenHeap()
	ts.unlock()
	return inPlace
}

// WakeTimeAround computes the set's wake time as wakeTime and wheelMinWhen
// do, step by step, with op1, an operation of the set's owner, run after
// the load of the heap's bounds, and op2 after the load of the wheel's,
// before the check that no move came between (nil: none). That is the
// interleaving of a reader on another P (stealWork, checkTimersNoP) with
// moves of timers between the heap and the wheel: a cascade, a
// re-placement, a periodic timer re-armed into the wheel. With neither op
// it is WakeTime, which its test checks.
func (m *TimerModel) WakeTimeAround(op1, op2 func()) int64 {
	ts := &m.ts
	seq := ts.wheelMoves()
	nextWhen := ts.minWhenModified.Load()
	when := ts.minWhenHeap.Load()
	if when == 0 || (nextWhen != 0 && nextWhen < when) {
		when = nextWhen
	}
	if op1 != nil {
		op1()
	}
	when = ts.wheelBound(when)
	if op2 != nil {
		op2()
	}
	return ts.wheelSettled(when, seq)
}

// Advance moves the wheel's cursor to now as check does before it runs
// timers, cascading the slots that start by then, without running any.
func (m *TimerModel) Advance(now int64) {
	m.ts.lock()
	m.ts.wheelAdvance(now)
	m.ts.unlock()
}

// WheelArrays returns the capacity of the arrays of the model's wheel:
// those its slots hold, and its spare arrays.
func (m *TimerModel) WheelArrays() (slots, spare int) {
	w := &m.ts.wheel
	m.ts.lock()
	for level := range w.slots {
		for _, slot := range w.slots[level] {
			slots += cap(slot)
		}
	}
	spare = w.spareCap
	m.ts.unlock()
	return slots, spare
}
