// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Export guts of the timers set for the model test (timermodel_test.go),
// which runs in every build: heap, wheel, slack and both.

package runtime

import "internal/runtime/atomic"

// A TimerModel is a timers set that belongs to no P, with timers
// numbered 0..n-1, driven by a test one operation at a time.
type TimerModel struct {
	ts     timers
	timers []*timer
	fired  []TimerFiring
}

// A TimerFiring records one run of a model timer.
type TimerFiring struct {
	ID    int
	Delay int64 // now - when, as passed to the timer function
}

func NewTimerModel(n int) *TimerModel {
	m := &TimerModel{timers: make([]*timer, n), fired: make([]TimerFiring, 0, n)}
	lockInit(&m.ts.mu, lockRankTimers)
	for i := range m.timers {
		t := new(timer)
		t.init(timerModelFire, m)
		t.seq = uintptr(i)
		m.timers[i] = t
	}
	return m
}

// timerModelFire records a firing. It runs on the system stack and
// does not allocate: fired has room for a firing of every timer.
func timerModelFire(arg any, seq uintptr, delay int64) {
	m := arg.(*TimerModel)
	m.fired = append(m.fired, TimerFiring{int(seq), delay})
}

// Reset arms timer id for when, every period after that if period > 0,
// as time.Timer.Reset and Ticker.Reset do, with when computed from the
// model's time now: modify if the timer is still in the set, else add it
// to the model's set as maybeAdd adds it to the current P's, after
// removing zombies from the top and the tail of the heap (cleanHead). It
// reports whether it was pending.
func (m *TimerModel) Reset(id int, when, period, now int64) bool {
	t := m.timers[id]
	t.lock()
	heaped := t.state&timerHeaped != 0
	t.unlock()
	if heaped {
		return t.modify(when, period, nil, nil, t.seq, now)
	}
	ts := &m.ts
	ts.lock()
	ts.cleanHead()
	t.lock()
	t.when = when
	t.period = period
	t.state |= timerHeaped
	t.slackArm(now)
	ts.addHeap(t)
	t.unlock()
	ts.unlock()
	return false
}

// Deadline returns the latest time timer id may fire: its when, plus the
// slack it got under GOEXPERIMENT=timerslack.
func (m *TimerModel) Deadline(id int) int64 {
	t := m.timers[id]
	t.lock()
	defer t.unlock()
	return t.deadline()
}

// Stop stops timer id and reports whether it was pending.
func (m *TimerModel) Stop(id int) bool {
	return m.timers[id].stop()
}

// StopUnderSetLock stops timer id on another goroutine while this one
// holds the model set's lock, as the set's owner holds it through a
// cascade, and reports whether that Stop returned before the lock was
// released, waiting up to limit nanoseconds for it, and what it returned.
// It waits for the Stop to return in any case. It reports too whether the
// Stop began while the lock was held: if not, returned tells nothing,
// and the caller tries again. (A goroutine left runnable behind the
// holder, in its P's run queue while the other P is busy, cannot run
// until the holder lets go of its P, which holding a runtime lock keeps
// it from doing.)
func (m *TimerModel) StopUnderSetLock(id int, limit int64) (began, returned, pending bool) {
	return m.stopUnderSetLock(id, limit, nil)
}

// setLockedStopBegin is how long, in nanoseconds, stopUnderSetLock waits
// for its Stop to begin once the lock is held. A Stop whose goroutine
// spins on another P begins within microseconds.
const setLockedStopBegin = 50e6

// stopUnderSetLock is StopUnderSetLock, with *mark set to 1 while the lock
// is held if mark is not nil.
func (m *TimerModel) stopUnderSetLock(id int, limit int64, mark *atomic.Uint32) (began, returned, pending bool) {
	st := new(setLockedStop)
	go st.stop(m.timers[id])
	for !st.started.Load() {
		Gosched()
	}
	m.ts.lock()
	if mark != nil {
		mark.Store(1)
	}
	st.locked.Store(true)
	for start := nanotime(); !st.inStop.Load() && nanotime()-start < setLockedStopBegin; {
		procyield(100)
	}
	began = st.inStop.Load()
	for start := nanotime(); began && !st.done.Load() && nanotime()-start < limit; {
		procyield(100)
	}
	returned = st.done.Load()
	if mark != nil {
		mark.Store(0)
	}
	m.ts.unlock()
	for !st.done.Load() {
		Gosched()
	}
	return began, returned, st.pending
}

// A setLockedStop is a Stop that StopUnderSetLock runs: it sets started,
// spins on its P until locked, then sets inStop, stops, stores pending
// and sets done.
// It is running when the set is locked, so it needs no P to take it up
// then. It yields now and then while it spins, so that a stop of the
// world need not wait for it.
type setLockedStop struct {
	started, locked, inStop, done atomic.Bool
	pending                       bool
}

func (st *setLockedStop) stop(t *timer) {
	st.started.Store(true)
	for i := 1; !st.locked.Load(); i++ {
		if i%1024 == 0 {
			Gosched()
		}
		procyield(10)
	}
	st.inStop.Store(true)
	st.pending = t.stop()
	st.done.Store(true)
}

// Check runs the model's timers due at now and returns their firings in order.
func (m *TimerModel) Check(now int64) []TimerFiring {
	m.fired = m.fired[:0]
	systemstack(func() {
		m.ts.check(now, nil)
	})
	return m.fired
}

// Sweep forces the zombie clean-up that check does when zombies pile up.
func (m *TimerModel) Sweep(now int64) {
	m.ts.lock()
	m.ts.adjust(now, true)
	m.ts.unlock()
}

// OpenTime returns the time from which a check of the model's set, as
// from any P, locks the set to run or re-sort timers: its wake time, or
// earlier where a slack window may open first (slackOpen).
func (m *TimerModel) OpenTime() int64 {
	return m.ts.slackOpen(m.ts.wakeTime())
}

func (m *TimerModel) WakeTime() int64 {
	return m.ts.wakeTime()
}

// WakeTimeDelayed computes the set's wake time as wakeTime does, with a
// pause of spins iterations of procyield between each of its loads, for a
// reader on another goroutine to straddle the owner's operations.
func (m *TimerModel) WakeTimeDelayed(spins uint32) int64 {
	ts := &m.ts
	seq := ts.wheelMoves()
	procyield(spins)
	nextWhen := ts.minWhenModified.Load()
	procyield(spins)
	when := ts.minWhenHeap.Load()
	if when == 0 || (nextWhen != 0 && nextWhen < when) {
		when = nextWhen
	}
	procyield(spins)
	return ts.wheelMinWhen(when, seq)
}

// Len returns the number of timers in the set, zombies included, and how
// many of them are in the wheel (GOEXPERIMENT=timerwheel).
func (m *TimerModel) Len() (n, wheel int) {
	m.ts.lock()
	defer m.ts.unlock()
	return len(m.ts.heap) + m.ts.wheelLen(), m.ts.wheelLen()
}

// Verify checks the heap's invariants, and the wheel's if there is one.
func (m *TimerModel) Verify() {
	m.ts.lock()
	m.ts.verify()
	m.ts.wheelVerify()
	m.ts.unlock()
}
