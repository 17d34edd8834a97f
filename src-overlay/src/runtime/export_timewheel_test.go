// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerwheel

// Export guts of the timing wheel for its tests.

package runtime

import "internal/runtime/atomic"

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

// SetTimerWheelHeapFirst turns the heap-first rule (heapSifts) on or
// off and returns its previous setting. Off, every timer beyond the near
// horizon goes to the wheel, as the wheel's own tests need.
func SetTimerWheelHeapFirst(on bool) bool {
	old := wheelHeapFirst
	wheelHeapFirst = on
	return old
}

// TimerWheelOwnLen returns the number of timers in the heap and in the
// wheel of the caller's P.
func TimerWheelOwnLen() (heap, wheel int) {
	mp := acquirem()
	ts := &mp.p.ptr().timers
	ts.lock()
	heap, wheel = len(ts.heap), ts.wheel.n
	ts.unlock()
	releasem(mp)
	return heap, wheel
}

// AddNothing locks the model's set for an add that adds nothing, as
// maybeAdd does for a timer that a Stop took before it locked: it cleans
// the heap's head and tail (cleanHead) and keeps the heap's bound exact
// (wheelHeapEmptied).
func (m *TimerModel) AddNothing() {
	ts := &m.ts
	ts.lock()
	ts.wheelDrainAdd()
	ts.cleanHead()
	ts.wheelHeapEmptied()
	ts.unlockAdded()
}

// DropHeapZombies takes the zombies out of the model set's heap, as
// gcStart does for every P's (wheelDropZombies).
func (m *TimerModel) DropHeapZombies() {
	m.ts.dropHeapZombies()
}

// StopUnderBusySetLock is StopUnderSetLock with the set marked busy while
// its lock is held, as a holder marks it while it cascades.
func (m *TimerModel) StopUnderBusySetLock(id int, limit int64) (began, returned, pending bool) {
	return m.stopUnderSetLock(id, limit, &m.ts.wheel.busy)
}

// FillStoppedRing fills the set's stopped ring with entries that name a
// timer in no set, as entries name a timer moved since its Stop listed it.
func (m *TimerModel) FillStoppedRing() {
	m.ts.fillStoppedRing()
}

// fillStoppedRing fills ts's stopped ring with entries that name a timer
// in no set. The caller drained the ring, and no Stop lists meanwhile.
func (ts *timers) fillStoppedRing() {
	stale := new(timer)
	w := &ts.wheel
	for i := range w.stopped {
		w.stopped[i].Store(stale)
	}
	w.nstopped.Store(wheelStoppedMax)
}

// armOwnWheelTimers arms n timers an hour ahead on the caller's P, which
// the caller holds (acquirem), and throws if one is not in the wheel.
func armOwnWheelTimers(n int) []*timer {
	when := nanotime() + int64(60*60*1e9)
	tt := make([]*timer, n)
	for i := range tt {
		t := new(timer)
		t.init(ownBusyNop, nil)
		t.modify(when+int64(i), 0, nil, nil, 0, 0)
		if t.astate.Load()&timerWheeled == 0 {
			throw("armOwnWheelTimers: a timer is not in the wheel")
		}
		tt[i] = t
	}
	return tt
}

// StopOverflowed stops timers ids as Stops that find the set's stopped
// ring full while the set is busy: each leaves its zombie unlisted, marked
// timerWheelFix, and sets the overflow bit. The ring is left full of
// entries that name a timer in no set (FillStoppedRing).
func (m *TimerModel) StopOverflowed(ids ...int) {
	m.FillStoppedRing()
	// busy is stored without the lock, against its rule, as in
	// AddAfterListedStops.
	m.ts.wheel.busy.Store(1)
	for _, id := range ids {
		m.timers[id].stop()
	}
	m.ts.wheel.busy.Store(0)
}

// StoppedCount returns the count of the set's stopped ring, its overflow
// bit included.
func (m *TimerModel) StoppedCount() uint32 {
	return m.ts.wheel.nstopped.Load()
}

// MarkStoppedOverflow sets the overflow bit of the set's stopped ring, as
// a Stop that found the ring full while the set was busy sets it, here
// with the ring's count at 0: where it lands if that Stop's Or comes after
// a drain's reset of the count.
func (m *TimerModel) MarkStoppedOverflow() {
	m.ts.wheel.nstopped.Or(wheelOverflowed)
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

// FixEarlier moves wheel timer id earlier, to when, by a Reset of it
// (modify), which leaves the move to wheelFix. Between modify's unlock of
// the timer and the fix, it sets the set's minWhenModified to modified (0:
// cleared, as by an adjust on another P in between). It reports whether
// wheelFix asked for a wakeup, and panics if modify left the move to no
// fix.
func (m *TimerModel) FixEarlier(id int, when, modified int64) bool {
	r := &wheelReplay
	*r = wheelReplayState{t: m.timers[id], ts: &m.ts, modified: modified}
	wheelTestHooks.fix, wheelTestHooks.fixed = fixEarlierFix, fixEarlierFixed
	r.t.modify(when, r.t.period, nil, nil, r.t.seq, nanotime())
	wheelTestHooks.fix, wheelTestHooks.fixed = nil, nil
	if !r.fixed {
		panic("FixEarlier: modify did not re-place the timer by wheelFix")
	}
	return r.woke
}

// wheelReplay is the state of the replay that FixEarlier or
// AdjustRacingModify runs: the runtime's closures must not escape, so
// its test hooks are functions of this variable. One replay runs at a
// time; the hooks ignore every timer but the replay's.
var wheelReplay wheelReplayState

type wheelReplayState struct {
	t        *timer
	ts       *timers
	modified int64
	fixed    bool // wheelFix re-placed t
	woke     bool // and asked for a wakeup
	inPlace  bool // wheelInPlace left t in its slot
}

func fixEarlierFix(u *timer) {
	if r := &wheelReplay; u == r.t {
		r.ts.minWhenModified.Store(r.modified)
	}
}

func fixEarlierFixed(u *timer, earlier bool) {
	if r := &wheelReplay; u == r.t {
		r.fixed, r.woke = true, earlier
	}
}

// AdjustRacingModify runs an adjust of the model's set and a Reset of
// timer id, in the set, to when (modify itself), in the interleaving of two
// Ps that the mark in lowered must survive: adjust clears minWhenModified,
// modify marks the timer's slot (wheelInPlace), adjust collects the marks
// (wheelLowerSlots, run from wheelInPlace's test hook), modify reads and
// lowers minWhenModified, and adjust raises minWhenHeap. The adjust's lock
// is dropped in the hook and taken again for its last step: modify takes
// no timers lock, so that changes nothing it sees, and its wakeup must
// not run under the timers lock (wakep takes sched.lock, which ranks
// before it). It reports whether the timer stayed in its slot; it throws
// if modify would re-place it instead, since the fix would wait for the
// lock this adjust holds.
func (m *TimerModel) AdjustRacingModify(id int, when int64) bool {
	r := &wheelReplay
	*r = wheelReplayState{t: m.timers[id], ts: &m.ts}
	wheelTestHooks.inPlace, wheelTestHooks.fix = adjustRacingInPlace, adjustRacingFix
	ts := r.ts
	ts.lock()
	ts.minWhenHeap.Store(ts.wakeTime())
	ts.minWhenModified.Store(0)
	r.t.modify(when, r.t.period, nil, nil, r.t.seq, nanotime())
	if !r.inPlace {
		ts.unlock() // modify left it to no hook
	}
	ts.lock()
	ts.updateMinWhenHeap()
	ts.unlock()
	wheelTestHooks.inPlace, wheelTestHooks.fix = nil, nil
	return r.inPlace
}

func adjustRacingInPlace(u *timer) {
	if r := &wheelReplay; u == r.t {
		r.inPlace = true
		r.ts.wheelLowerSlots()
		// Not ts.unlock: its drain locks timers, and modify holds t's
		// lock. Nothing here changed the set's length.
		unlock(&r.ts.mu)
	}
}

func adjustRacingFix(u *timer) {
	if u == wheelReplay.t {
		throw("AdjustRacingModify: modify re-places the timer; its fix would wait for the adjust")
	}
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

// WheelChunks returns the number of chunks of the model's wheel: those its
// slots hold, and its free chunks.
func (m *TimerModel) WheelChunks() (slots, free int) {
	w := &m.ts.wheel
	m.ts.lock()
	for level := range w.slots {
		for s := range w.slots[level] {
			slots += len(w.slots[level][s].chunks)
		}
	}
	free = len(w.free)
	m.ts.unlock()
	return slots, free
}

// TimerWheelChunk is the number of timers a chunk of a wheel slot holds.
const TimerWheelChunk = wheelChunk

// StopOwnWhileLocked arms a timer an hour ahead on the caller's P, in its
// wheel, and stops it there while another goroutine, on another P, holds
// that P's timers lock, with the set marked busy if busy, as another P's
// stealing check holds it while it cascades. It reports whether the Stop
// returned before the lock was released, waiting up to limit nanoseconds
// for it; ran is false if the holder was not running on another P in time.
func StopOwnWhileLocked(limit int64, busy bool) (ran, returned bool) {
	b := &ownLocker{limit: limit, busy: busy}
	go b.hold()
	for !b.started.Load() {
		Gosched()
	}
	// The holder spins on another P, unpreemptibly: pin this goroutine to
	// its P, the one that will hold the timer.
	mp := acquirem()
	t := new(timer)
	t.init(ownBusyNop, nil)
	t.modify(nanotime()+int64(60*60*1e9), 0, nil, nil, 0, 0)
	if t.astate.Load()&timerWheeled == 0 {
		throw("StopOwnWhileLocked: the timer is not in the wheel")
	}
	b.ts.Store(&mp.p.ptr().timers)
	for start := nanotime(); !b.locked.Load() && !b.done.Load() && nanotime()-start < limit; {
		procyield(100)
	}
	if b.locked.Load() {
		ran = true
		t.stop()
		returned = !b.released.Load()
	}
	b.stopped.Store(true)
	releasem(mp)
	if !ran {
		t.stop()
	}
	for !b.done.Load() {
		Gosched()
	}
	return ran, returned
}

func ownBusyNop(arg any, seq uintptr, delay int64) {}

// An ownLocker is the other P's holder of StopOwnWhileLocked: running, it
// waits for the set, locks it, marks it busy if busy and holds it until
// the Stop is done or limit passes. It spins with no yield, so that it
// stays on its P, and with a limit on every wait, so that a stop of the
// world waits for it no longer than that.
type ownLocker struct {
	ts                                       atomic.Pointer[timers]
	limit                                    int64
	busy                                     bool
	started, locked, stopped, released, done atomic.Bool
}

func (b *ownLocker) hold() {
	defer b.done.Store(true)
	b.started.Store(true)
	start := nanotime()
	for b.ts.Load() == nil {
		if nanotime()-start > b.limit {
			return
		}
		procyield(100)
	}
	ts := b.ts.Load()
	ts.lock()
	if b.busy {
		ts.wheel.busy.Store(1)
	}
	b.locked.Store(true)
	for start := nanotime(); !b.stopped.Load() && nanotime()-start < b.limit; {
		procyield(100)
	}
	b.released.Store(true)
	ts.wheel.busy.Store(0)
	ts.unlock()
}

// OwnStopLeavesRing arms two timers an hour ahead on the caller's P, in
// its wheel, drains the P's stopped ring and fills it with entries that
// name a timer in no set, stops one of the timers there (a Stop on the
// owner's P, which takes the set's lock) and returns the ring's count after
// that Stop; then it drains the ring and stops the other timer. The caller
// runs with GOMAXPROCS 1, so that no Stop on another P lists a timer in the
// ring meanwhile.
func OwnStopLeavesRing() uint32 {
	mp := acquirem()
	ts := &mp.p.ptr().timers
	tt := armOwnWheelTimers(2)
	ts.lock()
	ts.unlock() // drains the ring
	ts.fillStoppedRing()
	tt[0].stop()
	n := ts.wheel.nstopped.Load()
	ts.lock()
	ts.unlock()
	tt[1].stop()
	releasem(mp)
	return n
}

// AddLeavesSweep arms timers an hour ahead on the caller's P, in its
// wheel, and stops half of them as Stops that find the set's stopped ring
// full while the set is busy: unlisted zombies, more than a quarter of the
// set's timers, so that a drain that sees the overflow bit sweeps. Then it
// arms one more timer (modify, then maybeAdd) and returns how many of the
// zombies are still in the wheel after that add, and after a lock and
// unlock of the set, as check's; then it stops the rest. The caller runs
// with GOMAXPROCS 1, so that no other P drains or lists meanwhile.
func AddLeavesSweep(n int) (afterAdd, afterCheck int) {
	mp := acquirem()
	ts := &mp.p.ptr().timers
	tt := armOwnWheelTimers(n)
	ts.lock()
	ts.unlock() // drains the ring
	ts.fillStoppedRing()
	w := &ts.wheel
	// busy is stored without the lock, against its rule, as in
	// AddAfterListedStops.
	w.busy.Store(1)
	for _, t := range tt[:n/2] {
		t.stop()
	}
	w.busy.Store(0)
	wheeled := func() int {
		k := 0
		for _, t := range tt[:n/2] {
			if t.astate.Load()&timerWheeled != 0 {
				k++
			}
		}
		return k
	}
	added := armOwnWheelTimers(1)[0]
	afterAdd = wheeled()
	ts.lock()
	ts.unlock()
	afterCheck = wheeled()
	added.stop()
	for _, t := range tt[n/2:] {
		t.stop()
	}
	releasem(mp)
	return afterAdd, afterCheck
}

// AddAfterListedStops arms n timers an hour ahead on the caller's P, in
// its wheel, and stops them with the set marked busy, so that each Stop
// lists its timer in the set's stopped ring rather than lock the set
// (wheelStopped); then it arms one more timer on the same P (modify, then
// maybeAdd). It returns the ring's count before and after that add. The
// caller runs with GOMAXPROCS 1, so that no other P's check drains the
// ring meanwhile.
func AddAfterListedStops(n int) (before, after uint32) {
	mp := acquirem()
	ts := &mp.p.ptr().timers
	stopped := armOwnWheelTimers(n)
	// busy is stored without the lock, against its rule: locking the set
	// to store it would drain the ring as it unlocks.
	ts.wheel.busy.Store(1)
	for _, t := range stopped {
		t.stop()
	}
	ts.wheel.busy.Store(0)
	before = ts.wheel.nstopped.Load()
	t := armOwnWheelTimers(1)[0]
	after = ts.wheel.nstopped.Load()
	t.stop()
	releasem(mp)
	return before, after
}

// SweepWithStopDuring arms timers 0 and 1 of a model set in the wheel,
// stops timer 1 as a Stop that finds the ring full while the set is busy
// (StopOverflowed): a zombie of two timers, which the quarter rule sweeps,
// and the overflow bit set; then it runs a check with no timer due, which
// locks the set for the non-empty ring and drains it with a sweep. Just as the sweep starts,
// after the drain has reset the ring's count, timer 0 is stopped, as a
// Stop on another P would stop it then: it is listed in the ring, and the
// sweep drops it. It returns whether that happened (the hook ran, and the
// timer left the set), the ring's count after the check, and whether an
// entry of the ring names a timer that is no longer in the set.
func SweepWithStopDuring() (swept bool, nstopped uint32, stale bool) {
	m := NewTimerModel(2)
	m.Reset(0, 1<<40, 0, 1)
	m.Reset(1, 1<<41, 0, 1)
	m.StopOverflowed(1)
	sweepStopTimer = m.timers[0]
	wheelTestHooks.sweep = sweepStop
	m.Check(2)
	wheelTestHooks.sweep = nil
	// The hook ran, and the sweep then dropped the timer it stopped.
	swept = sweepStopTimer == nil && m.timers[0].astate.Load()&timerHeaped == 0
	sweepStopTimer = nil
	w := &m.ts.wheel
	nstopped = w.nstopped.Load()
	for i := range min(nstopped&^wheelOverflowed, wheelStoppedMax) {
		if t := w.stopped[i].Load(); t != nil {
			t.lock()
			stale = stale || t.ts != &m.ts
			t.unlock()
		}
	}
	return swept, nstopped, stale
}

var sweepStopTimer *timer

func sweepStop() {
	wheelTestHooks.sweep = nil
	t := sweepStopTimer
	sweepStopTimer = nil
	t.stop()
}
