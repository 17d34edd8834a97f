// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerwheel

// Export guts of the timing wheel for the model test.

package runtime

const TimerWheelTickShift = wheelTickShift

// SetTimerWheelSlotMax sets the most timers a wheel slot holds and returns
// the previous limit.
func SetTimerWheelSlotMax(n int) int {
	old := wheelSlotMax
	wheelSlotMax = n
	return old
}

// A TimerWheelModel is a timers set that belongs to no P, with timers
// numbered 0..n-1, driven by a test one operation at a time.
type TimerWheelModel struct {
	ts     timers
	timers []*timer
	fired  []TimerWheelFiring
}

// A TimerWheelFiring records one run of a model timer.
type TimerWheelFiring struct {
	ID    int
	Delay int64 // now - when, as passed to the timer function
}

func NewTimerWheelModel(n int) *TimerWheelModel {
	m := &TimerWheelModel{timers: make([]*timer, n), fired: make([]TimerWheelFiring, 0, n)}
	lockInit(&m.ts.mu, lockRankTimers)
	for i := range m.timers {
		t := new(timer)
		t.init(timerWheelModelFire, m)
		t.seq = uintptr(i)
		m.timers[i] = t
	}
	return m
}

// timerWheelModelFire records a firing. It runs on the system stack and
// does not allocate: fired has room for a firing of every timer.
func timerWheelModelFire(arg any, seq uintptr, delay int64) {
	m := arg.(*TimerWheelModel)
	m.fired = append(m.fired, TimerWheelFiring{int(seq), delay})
}

// Reset arms timer id for when, as time.Timer.Reset does: modify if the
// timer is still in the set, else add it to the model's set (maybeAdd
// would add it to the current P's). It reports whether it was pending.
func (m *TimerWheelModel) Reset(id int, when int64) bool {
	t := m.timers[id]
	t.lock()
	heaped := t.state&timerHeaped != 0
	t.unlock()
	if heaped {
		return t.modify(when, 0, nil, nil, t.seq)
	}
	ts := &m.ts
	ts.lock()
	t.lock()
	t.when = when
	t.slackArm(0)
	t.state |= timerHeaped
	ts.addHeap(t)
	t.unlock()
	ts.unlock()
	return false
}

// Deadline returns the latest time timer id may fire: its when, plus the
// slack it got under GOEXPERIMENT=timerslack.
func (m *TimerWheelModel) Deadline(id int) int64 {
	t := m.timers[id]
	t.lock()
	defer t.unlock()
	return t.deadline()
}

// Stop stops timer id and reports whether it was pending.
func (m *TimerWheelModel) Stop(id int) bool {
	return m.timers[id].stop()
}

// Check runs the model's timers due at now and returns their firings in order.
func (m *TimerWheelModel) Check(now int64) []TimerWheelFiring {
	m.fired = m.fired[:0]
	systemstack(func() {
		m.ts.check(now, nil)
	})
	return m.fired
}

// Sweep forces the zombie clean-up that check does when zombies pile up.
func (m *TimerWheelModel) Sweep(now int64) {
	m.ts.lock()
	m.ts.adjust(now, true)
	m.ts.unlock()
}

func (m *TimerWheelModel) WakeTime() int64 {
	return m.ts.wakeTime()
}

// Len returns the number of timers in the set, zombies included, and how
// many of them are in the wheel.
func (m *TimerWheelModel) Len() (n, wheel int) {
	m.ts.lock()
	defer m.ts.unlock()
	return len(m.ts.heap) + m.ts.wheel.n, m.ts.wheel.n
}

// HeapBeyondHorizon returns the number of live, unmodified timers in the
// heap that are due beyond the near horizon: timers that belong in the
// wheel but found their slot full, or that adjust re-sorted in the heap.
func (m *TimerWheelModel) HeapBeyondHorizon() int {
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

// Verify checks the heap's and the wheel's invariants.
func (m *TimerWheelModel) Verify() {
	m.ts.lock()
	m.ts.verify()
	m.ts.wheelVerify()
	m.ts.unlock()
}
