// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerwheel

package runtime_test

import (
	"fmt"
	"internal/goexperiment"
	"internal/race"
	"math/rand/v2"
	. "runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
	"weak"
)

// wheelOnly turns the heap-first rule off until t ends. The wheel's tests
// put every timer beyond the near horizon in the wheel, whatever the heap
// holds (wheelAddFar).
func wheelOnly(t testing.TB) {
	old := SetTimerWheelHeapFirst(false)
	t.Cleanup(func() { SetTimerWheelHeapFirst(old) })
}

// TestTimerWheelSize checks the memory promise: the wheel's position fills
// padding, so a time.Timer stays in upstream's 112-byte size class, and a
// wheel timer costs that plus its 8-byte entry in a slot's array, where a
// heap timer costs that plus its 16-byte heap entry.
func TestTimerWheelSize(t *testing.T) {
	if goexperiment.StaticLockRanking {
		t.Skip("lock ranking adds the lock's rank to the timer's mutex")
	}
	if size := unsafe.Sizeof(TimeTimer{}); size > 112 {
		t.Errorf("time.Timer in the runtime takes %d bytes, want <= 112", size)
	}
}

// TestTimerWheelModelFullSlots runs the model with slots that hold one
// timer, so that a timer whose slot is taken goes to the heap instead, as
// it does in a real wheel past 2^23 timers in one slot.
func TestTimerWheelModelFullSlots(t *testing.T) {
	wheelOnly(t)
	if TimerWheelTickShift != timerModelTickShift {
		t.Fatalf("the model's tick shift %d is not the wheel's %d", timerModelTickShift, TimerWheelTickShift)
	}
	defer SetTimerWheelSlotMax(SetTimerWheelSlotMax(1))
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	wheeled, overflowed := 0, 0
	for seed := range seeds {
		for _, start := range []int64{1, 1 << 40} {
			w, _, _ := runTimerModel(t, uint64(seed), start, 300, func(m *TimerModel) {
				overflowed += m.HeapBeyondHorizon()
			}, true)
			wheeled += w
			if t.Failed() {
				return
			}
		}
	}
	if wheeled == 0 || overflowed == 0 {
		t.Errorf("timers in the wheel, summed over steps: %d; in the heap beyond the horizon: %d; want both > 0", wheeled, overflowed)
	}
	if testing.Verbose() {
		t.Logf("timers in the wheel, summed over steps: %d; in the heap beyond the horizon: %d", wheeled, overflowed)
	}
}

// TestTimerWheelHeapFirst checks the heap-first rule (heapSifts): a timer
// beyond the near horizon goes to the heap if the heap is empty or its
// parent there would be due no later, and to the wheel only if the heap
// would sift it up. Timers in both fire in order.
func TestTimerWheelHeapFirst(t *testing.T) {
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	const hour = int64(time.Hour)
	m := NewTimerModel(4)
	for _, step := range []struct {
		id          int
		when        int64
		heap, wheel int
		what        string
	}{
		{0, 2 * hour, 1, 0, "a far timer into an empty set"},
		{1, 3 * hour, 2, 0, "a later one, which sifts no further"},
		{2, hour, 2, 1, "an earlier one, which would sift up"},
		{3, 2 * hour, 3, 1, "one due with its parent"},
	} {
		m.Reset(step.id, step.when, 0, 1)
		m.Verify()
		if n, wheel := m.Len(); n-wheel != step.heap || wheel != step.wheel {
			t.Fatalf("after %s: %d timers in the heap and %d in the wheel, want %d and %d", step.what, n-wheel, wheel, step.heap, step.wheel)
		}
	}
	if wt := m.WakeTime(); wt != hour {
		t.Errorf("wakeTime %d, want the wheel timer's %d", wt, hour)
	}
	m.Stop(1) // a zombie in the heap, not at its top
	var got []int
	for _, f := range m.Check(4 * hour) {
		got = append(got, f.ID)
	}
	if fmt.Sprint(got) != "[2 0 3]" && fmt.Sprint(got) != "[2 3 0]" {
		t.Errorf("a check after the last when ran %v, want [2 0 3] in when order", got)
	}
	if n, _ := m.Len(); n != 0 {
		t.Errorf("%d timers left after the check", n)
	}
}

// TestTimerWheelHeapZombieFreed checks that a stopped timer that the
// heap-first rule left inside the heap keeps nothing reachable once a
// collection has run (wheelDropZombies), as a stopped timer in a slot
// keeps nothing once removed. The stopped timers are started in the order
// they are due, between live ones, so that they sit in the heap, neither
// at its top nor at its tail, too few for the quarter rule to clear. They
// are a century away, after any timer an earlier test left on the P, so
// that the heap appends them.
func TestTimerWheelHeapZombieFreed(t *testing.T) {
	defer GOMAXPROCS(GOMAXPROCS(1))
	const century = 100 * 365 * 24 * time.Hour
	heap0, wheel0 := TimerWheelOwnLen()
	var live []*time.Timer
	defer func() {
		for _, lt := range live {
			lt.Stop()
		}
	}()
	for i := range 64 {
		live = append(live, time.AfterFunc(century+time.Duration(i)*time.Second, func() {}))
	}
	var stopped []*time.Timer
	var held []weak.Pointer[[4096]byte]
	for i := range 16 {
		buf := new([4096]byte)
		stopped = append(stopped, time.AfterFunc(century+time.Hour+time.Duration(i)*time.Second, func() { buf[0]++ }))
		held = append(held, weak.Make(buf))
	}
	for i := range 64 {
		live = append(live, time.AfterFunc(century+2*time.Hour+time.Duration(i)*time.Second, func() {}))
	}
	if heap, wheel := TimerWheelOwnLen(); heap-heap0 != 144 || wheel != wheel0 {
		t.Fatalf("starting 144 timers added %d to the P's heap and %d to its wheel, want 144 and 0", heap-heap0, wheel-wheel0)
	}
	for i, tm := range stopped {
		tm.Stop()
		stopped[i] = nil
	}
	GC()
	kept := 0
	for _, w := range held {
		if w.Value() != nil {
			kept++
		}
	}
	if kept != 0 {
		t.Errorf("%d of %d stopped, dropped timers in the heap kept their function reachable after a collection", kept, len(held))
	}
}

// TestTimerWheelDropZombiesEmpties checks that a set emptied by the drop of
// its heap's zombies before a collection keeps no wake time: a timer reset
// earlier (which sets minWhenModified) and stopped left the bound set, and
// with no timer left no check would adjust it away, so the wake time
// stayed in the past and sysmon never slept.
func TestTimerWheelDropZombiesEmpties(t *testing.T) {
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	m := NewTimerModel(1)
	m.Reset(0, 1<<40, 0, 1)
	m.Reset(0, 1<<30, 0, 1) // earlier: in the heap, marked modified
	m.Stop(0)
	m.DropHeapZombies()
	if n, _ := m.Len(); n != 0 {
		t.Fatalf("%d timers left after the drop", n)
	}
	if wt := m.WakeTime(); wt != 0 {
		t.Errorf("empty set after the drop of its zombies: wakeTime %d, want 0", wt)
	}
}

// TestTimerWheelModelWheelOnly runs the model test with the heap-first
// rule off, so that every far timer goes to the wheel. TestTimerModel
// runs it with the rule on.
func TestTimerWheelModelWheelOnly(t *testing.T) {
	wheelOnly(t)
	TestTimerModel(t)
}

// TestTimerWheelModelWakeTimes runs the wake-time tests that every build
// runs with the heap-first rule off: with it on, their far timers go to
// the heap, and the wheel's cases are not reached.
func TestTimerWheelModelWakeTimes(t *testing.T) {
	wheelOnly(t)
	t.Run("Empty", TestTimerModelEmptyWakeTime)
	t.Run("CleanHead", TestTimerModelCleanHeadWakeTime)
	t.Run("StopWithoutSetLock", TestTimerStopWithoutSetLock)
}

// TestTimerWheelStaleHeapBound checks the wake time after an add that adds
// nothing (a Reset whose timer a Stop took first) and whose cleanHead
// takes the heap's last timer, a stopped one, off its tail, while a timer
// waits in the wheel: the heap's bound must not stay at the stopped
// timer's when, now past, or the P would poll for its timers again and
// again.
func TestTimerWheelStaleHeapBound(t *testing.T) {
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	m := NewTimerModel(3)
	m.Reset(0, 2<<40, 0, 1) // an empty heap: into the heap
	m.Reset(1, 1<<40, 0, 1) // the heap would sift it up: into the wheel
	m.Reset(2, 1000, 0, 1)  // near: into the heap, at its top
	if n, wheel := m.Len(); n != 3 || wheel != 1 {
		t.Fatalf("%d timers, %d in the wheel; want 3 and 1", n, wheel)
	}
	m.Stop(0)
	m.AddNothing() // takes timer 0 off the tail
	m.Stop(2)
	m.AddNothing() // takes timer 2, the heap's last, off the tail
	m.Check(2000)
	m.Verify()
	if wt := m.WakeTime(); wt != 1<<40 {
		t.Errorf("after the heap's last timer was stopped and cleaned away: wakeTime %d, want the wheel timer's %d", wt, int64(1<<40))
	}
}

// TestTimerWheelResetLater checks that a timer in the wheel reset later
// keeps its place, for the cascade to re-place, also when the reset moves it
// by less than its slack (GOEXPERIMENT=timerslack), as a Reset(d) repeated
// every few nanoseconds does: re-placing it would unlink and relink it under
// its P's lock on every Reset. Timer 1 shares timer 0's slot, so a relink
// would move timer 0 to the end of the slot.
func TestTimerWheelResetLater(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=1ms")
	const hour = int64(time.Hour)
	m := NewTimerModel(2)
	m.Reset(0, hour, 0, 1)
	m.Reset(1, hour+1, 0, 1)
	if _, wheel := m.Len(); wheel != 2 {
		t.Fatalf("%d timers in the wheel, want 2", wheel)
	}
	pos := m.WheelPos(0)
	for later := int64(1); later <= 1000; later++ {
		m.Reset(0, hour+later, 0, 1)
	}
	m.Verify()
	if got := m.WheelPos(0); got != pos {
		t.Errorf("timer 0 reset later by 1000ns moved from wheel position %#x to %#x", pos, got)
	}
}

// TestTimerWheelStress arms a million timers over several levels and has
// other goroutines stop and reset them while some fire. A timer must never
// fire before its deadline, nor after a Stop that reported it pending.
func TestTimerWheelStress(t *testing.T) {
	wheelOnly(t)
	n := 1 << 20
	if testing.Short() || race.Enabled {
		n = 1 << 16
	}
	type entry struct {
		mu       sync.Mutex
		deadline time.Time
		stopped  bool
		fired    bool
		tm       *time.Timer
	}
	entries := make([]entry, n)
	var bad atomic.Int64
	var firedCount atomic.Int64
	duration := func(r *rand.Rand) time.Duration {
		if r.IntN(4) == 0 {
			return time.Duration(r.Int64N(int64(300 * time.Millisecond)))
		}
		return time.Hour + time.Duration(r.Int64N(int64(time.Hour)))
	}
	procs := 8
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(p), 1))
			for i := p; i < n; i += procs {
				e := &entries[i]
				e.mu.Lock()
				d := duration(r)
				e.deadline = time.Now().Add(d)
				e.tm = time.AfterFunc(d, func() {
					now := time.Now()
					e.mu.Lock()
					if e.stopped || e.fired || now.Before(e.deadline) {
						bad.Add(1)
					}
					e.fired = true
					e.mu.Unlock()
					firedCount.Add(1)
				})
				e.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// Churn: other goroutines (and so usually other Ps) stop and reset.
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(p), 2))
			for range n / 2 {
				e := &entries[r.IntN(n)]
				e.mu.Lock()
				if !e.stopped && !e.fired && e.tm.Stop() {
					if r.IntN(3) == 0 {
						e.stopped = true
					} else {
						d := duration(r)
						e.deadline = time.Now().Add(d)
						e.tm.Reset(d)
					}
				}
				e.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// Every short timer is now due by more than a second: it must have fired.
	time.Sleep(1500 * time.Millisecond)
	late := 0
	for i := range entries {
		e := &entries[i]
		e.mu.Lock()
		if !e.stopped && !e.fired {
			if time.Until(e.deadline) < -time.Second {
				late++
			}
			if e.tm.Stop() {
				e.stopped = true
			}
		}
		e.mu.Unlock()
	}
	if b := bad.Load(); b != 0 {
		t.Errorf("%d timers fired early, twice, or after a successful Stop", b)
	}
	if late > 0 {
		t.Errorf("%d timers past their deadline by 1s have not fired (%d fired)", late, firedCount.Load())
	}
}

// TestTimerWheelGOMAXPROCS arms wheel timers on several Ps, then shrinks
// GOMAXPROCS so that the destroyed Ps' wheels move (take) to the survivor:
// the moved timers must still fire on time. The hour-long ones, in the
// wheel's far levels, are then reset to fire at once: a Reset follows a
// timer's set, so one left in a destroyed P's set would be re-armed where
// no P runs timers, and never fire. The moved-timers metric must count them.
func TestTimerWheelGOMAXPROCS(t *testing.T) {
	wheelOnly(t)
	defer GOMAXPROCS(GOMAXPROCS(4))
	const n = 2000
	var early, fired, longFired atomic.Int64
	long := make([]*time.Timer, 0, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	movedMetric := []metrics.Sample{{Name: "/sched/timers/moved:timers"}}
	metrics.Read(movedMetric)
	movedBefore := movedMetric[0].Value.Uint64()
	// The Ps that GOMAXPROCS(1) destroys (ids 1 to 3) must hold timers for
	// the moved-timers metric to count any: each goroutine arms its timers
	// once it runs on one of them, or after a second (the other Ps'
	// threads may be slow to start on a loaded machine), recording where.
	var onDestroyed atomic.Int64
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for wait := time.Now().Add(time.Second); ProcID() == 0 && time.Now().Before(wait); {
				Gosched()
			}
			for i := range n / 8 {
				p := ProcID()
				d := time.Duration(10+(g*n/8+i)%190) * time.Millisecond
				deadline := time.Now().Add(d)
				time.AfterFunc(d, func() {
					if time.Now().Before(deadline) {
						early.Add(1)
					}
					fired.Add(1)
				})
				l := time.AfterFunc(time.Hour, func() { longFired.Add(1) })
				if p != 0 && ProcID() == p {
					onDestroyed.Add(1)
				}
				mu.Lock()
				long = append(long, l)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	GOMAXPROCS(1)
	metrics.Read(movedMetric)
	moved := movedMetric[0].Value.Uint64() - movedBefore
	switch {
	case moved < uint64(onDestroyed.Load()):
		// Each pair armed on a destroyed P left there at least its
		// hour-long timer, which take must move.
		t.Errorf("%d timers moved when GOMAXPROCS shrank from 4 to 1, though %d pairs were armed on the Ps it destroyed", moved, onDestroyed.Load())
	case onDestroyed.Load() == 0:
		t.Logf("every timer was armed on P 0, which stays: the moved-timers metric is not checked")
	}
	for _, l := range long {
		l.Reset(time.Millisecond)
	}
	deadline := time.Now().Add(10 * time.Second)
	for (fired.Load() < n || longFired.Load() < n) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if f := fired.Load(); f != n {
		t.Errorf("%d of %d timers fired after GOMAXPROCS shrank", f, n)
	}
	if f := longFired.Load(); f != n {
		t.Errorf("%d of %d hour-long timers fired after a Reset to 1ms once GOMAXPROCS shrank", f, n)
	}
	if e := early.Load(); e != 0 {
		t.Errorf("%d timers fired early", e)
	}
}

// TestTimerWheelFixWakes checks that moving a wheel timer earlier asks for
// a wakeup when the fix lowers the set's wake time, even though modify saw
// an earlier minWhenModified: an adjust may have cleared that bound without
// seeing the timer, still in its slot, and the P may be asleep until the
// old bound. With the bound still set, the P wakes for it anyway, and its
// check finds the re-placed timer (here in a lower slot), so none is asked
// for.
func TestTimerWheelFixWakes(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	const hour, second = int64(time.Hour), int64(time.Second)
	for _, c := range []struct {
		modified int64
		want     bool
	}{{0, true}, {second / 2, false}} {
		m := NewTimerModel(1)
		m.Reset(0, hour, 0, 1)
		if _, wheel := m.Len(); wheel != 1 {
			t.Fatalf("%d timers in the wheel, want 1", wheel)
		}
		if woke := m.FixEarlier(0, second, c.modified); woke != c.want {
			t.Errorf("timer moved from 1h to 1s with minWhenModified %d: fix asked for a wakeup: %v, want %v",
				c.modified, woke, c.want)
		}
		m.Verify()
		if wt := m.WakeTime(); wt == 0 || wt > second {
			t.Errorf("after the fix, wakeTime %d is later than the timer's when %d", wt, second)
		}
		if fired := m.Check(second); len(fired) != 1 {
			t.Errorf("at 1s fired %v, want the timer", fired)
		}
	}
}

// TestTimerWheelEarlierInPlace checks that a wheel timer moved earlier
// within its level-0 tick, as a deadline set again to the same instant
// moves by the nanoseconds between two clock readings, stays in its slot
// (a relink would move timer 0 behind timer 1, which shares it), that
// wakeTime covers its new deadline all along, also after a forced and a
// plain adjust clear minWhenModified, and that it fires at its new when,
// not before; and at level 0, where a slot is a tick, that a move within
// the tick stays and a move into the tick before is re-placed (left in
// place it would lie before its slot's start).
func TestTimerWheelEarlierInPlace(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	const tick = int64(1) << TimerWheelTickShift
	const now = int64(1) << 40
	when := (now+int64(time.Hour))&^(tick-1) + 1000 // 1000 ns into a tick
	m := NewTimerModel(3)
	m.Reset(0, when, 0, now)
	m.Check(now) // the wheel's cursor to now, as its P's checks keep it
	m.Reset(1, when+1, 0, now)
	pos := m.WheelPos(0)
	for earlier := int64(1); earlier <= 100; earlier++ {
		m.Reset(0, when-earlier, 0, now)
		m.Verify()
		if wt := m.WakeTime(); wt == 0 || wt > when-earlier {
			t.Fatalf("wakeTime %d after moving timer 0 earlier to %d", wt, when-earlier)
		}
	}
	if got := m.WheelPos(0); got != pos {
		t.Errorf("timer 0 moved earlier within its tick moved from wheel position %#x to %#x", pos, got)
	}
	// A forced adjust (zombies above a quarter) clears minWhenModified:
	// the wheel's own bound must then cover timer 0's new deadline.
	m.Sweep(now)
	m.Verify()
	if wt := m.WakeTime(); wt == 0 || wt > when-100 {
		t.Errorf("wakeTime %d after a forced adjust, later than timer 0's deadline %d", wt, when-100)
	}
	m.Reset(0, when-200, 0, now)
	// Timer 2, in the heap, reset earlier, lowers minWhenModified below
	// timer 0's deadline, and the check at its when adjusts.
	m.Reset(2, now+10, 0, now)
	m.Reset(2, now+5, 0, now)
	if fired := m.Check(now + 5); len(fired) != 1 || fired[0].ID != 2 {
		t.Fatalf("a check at now+5 fired %v, want timer 2", fired)
	}
	m.Verify()
	if wt := m.WakeTime(); wt == 0 || wt > when-200 {
		t.Errorf("wakeTime %d after an adjust, later than timer 0's deadline %d", wt, when-200)
	}
	if fired := m.Check(when - 201); len(fired) != 0 {
		t.Errorf("a check before timer 0's when fired %v", fired)
	}
	if fired := m.Check(when - 200); len(fired) != 1 || fired[0] != (TimerFiring{ID: 0}) {
		t.Errorf("a check at timer 0's when fired %v, want timer 0 on time", fired)
	}

	// At level 0: within the tick, then into the tick before.
	near := when + 10*tick
	m.Reset(2, near, 0, when)
	if n, wheel := m.Len(); n != 2 || wheel != 1 {
		t.Fatalf("%d timers, %d in the wheel; want timer 1 in the heap (due in the cursor's tick) and timer 2 in the wheel", n, wheel)
	}
	pos = m.WheelPos(2)
	m.Reset(2, near-5, 0, when)
	m.Verify()
	if got := m.WheelPos(2); got != pos {
		t.Errorf("timer 2 moved earlier within its level-0 tick moved from wheel position %#x to %#x", pos, got)
	}
	m.Reset(2, near-tick, 0, when)
	m.Verify()
	if fired := m.Check(near - tick); len(fired) != 2 || fired[1] != (TimerFiring{ID: 2}) {
		t.Errorf("a check at timer 2's new when fired %v, want timer 1 (overdue), then timer 2 on time", fired)
	}
}

// TestTimerWheelInPlaceRacingAdjust replays the interleaving that a first
// version of the in-place move lost a deadline in (found in review): the
// modify marks its slot after an adjust has cleared minWhenModified but
// before that adjust collects the marks. The collected mark must leave the
// slot's bound at or before the new deadline, since modify's own lowering of
// minWhenModified is cleared by the next adjust, here a forced one.
func TestTimerWheelInPlaceRacingAdjust(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	const tick = int64(1) << TimerWheelTickShift
	const now = int64(1) << 40
	start := (now + int64(time.Hour)) &^ (tick - 1)
	old, when := start+tick-1, start // the end of a tick, then its start
	m := NewTimerModel(2)
	m.Reset(0, old, 0, now)
	m.Check(now)
	// Timer 1 reset later sets minWhenModified, at a bound after both of
	// timer 0's whens: what the adjust clears.
	m.Reset(1, now+2*int64(time.Hour), 0, now)
	m.Reset(1, now+3*int64(time.Hour), 0, now)
	if !m.AdjustRacingModify(0, when) {
		t.Fatalf("timer 0 moved earlier within its tick was re-placed")
	}
	m.Verify()
	m.Sweep(now)
	m.Verify()
	if wt := m.WakeTime(); wt == 0 || wt > when {
		t.Errorf("wakeTime %d after the next adjust, later than timer 0's deadline %d", wt, when)
	}
	if fired := m.Check(when); len(fired) != 1 || fired[0] != (TimerFiring{ID: 0}) {
		t.Errorf("a check at timer 0's when fired %v, want timer 0 on time", fired)
	}
}

// TestTimerWheelWakeTimeRacingMove checks that wakeTime bounds every timer
// while its owner moves timers between the heap and the wheel between the
// reader's loads: a cascade (wheelAdvance) and the re-placement of a timer
// moved earlier (wheelReplace, here with minWhenModified cleared, as by an
// adjust that ran between the modify and the fix) move a timer into the
// heap after the reader loaded the heap's bound, and raise the wheel's
// before the reader loads it; a periodic timer cascaded into the heap
// before the reader loads the wheel's bound and run and re-armed into the
// wheel after it leaves both loads behind. With the heap empty before the
// moves, a reader that missed them found no timer at all, and a P would
// sleep in netpoll past the timer. With no move, the read is wakeTime's.
func TestTimerWheelWakeTimeRacingMove(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	const tick = int64(1) << TimerWheelTickShift
	const now = int64(1) << 40 // the cursor's tick starts here
	const hour = int64(time.Hour)
	cascadeAt := now + 5*tick + tick/2
	for _, c := range []struct {
		name          string
		first, period int64 // the timer is armed for first, every period
		when          int64 // its earliest deadline while the read runs
		op1, op2      func(m *TimerModel)
	}{
		// The clock reaches the timer's tick: the slot cascades into
		// the heap; the timer is not due yet.
		{"cascade", cascadeAt, 0, cascadeAt, func(m *TimerModel) { m.Advance(cascadeAt - 1) }, nil},
		// The timer, an hour away, is moved earlier into the cursor's
		// tick, the heap's.
		{"replace", now + hour, 0, now + tick/2, func(m *TimerModel) { m.FixEarlier(0, now+tick/2, 0) }, nil},
		// A Ticker's tick cascades into the heap, then runs, and the
		// Ticker, re-armed an hour later, goes back into the wheel.
		{"cascade, run, re-arm", cascadeAt, hour, cascadeAt,
			func(m *TimerModel) { m.Advance(cascadeAt - 1) },
			func(m *TimerModel) {
				if fired := m.Check(cascadeAt); len(fired) != 1 {
					t.Fatalf("the Ticker's check fired %v", fired)
				}
			}},
		{"no move", cascadeAt, 0, cascadeAt, nil, nil},
	} {
		m := NewTimerModel(1)
		m.Advance(now)
		m.Reset(0, c.first, c.period, now)
		if _, wheel := m.Len(); wheel != 1 {
			t.Fatalf("%s: %d timers in the wheel, want 1", c.name, wheel)
		}
		wrap := func(op func(*TimerModel)) func() {
			if op == nil {
				return nil
			}
			return func() { op(m) }
		}
		before := m.WakeTime()
		wt := m.WakeTimeAround(wrap(c.op1), wrap(c.op2))
		if wt == 0 || wt > c.when {
			t.Errorf("%s: wakeTime read across the moves is %d, want a bound at or before the timer's deadline %d", c.name, wt, c.when)
		}
		if c.op1 == nil && wt != before {
			t.Errorf("%s: the stepwise read gives %d, wakeTime %d", c.name, wt, before)
		}
		m.Verify()
	}
}

// TestTimerWheelChunksReused checks that a burst of timers through a wheel
// slot allocates nothing once the wheel has seen one like it: the slot's
// chunks become free chunks when the slot cascades, and the next burst's
// slot takes them. Each cycle arms 1000 timers into the tenth level-0 slot
// after the cursor and checks past them, which cascades them into the heap
// and fires them.
func TestTimerWheelChunksReused(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	const n = 1000
	const tick = int64(1) << TimerWheelTickShift
	m := NewTimerModel(n)
	now := int64(1) << 40 // a multiple of 64 ticks: the timers go in level 0
	cycle := func() {
		m.Advance(now)
		base := now + 10*tick
		for i := range n {
			m.Reset(i, base+int64(i)%(tick/2), 0, now)
		}
		if _, wheel := m.Len(); wheel != n {
			t.Fatalf("%d of %d timers in the wheel", wheel, n)
		}
		if fired := m.Check(base + tick); len(fired) != n {
			t.Fatalf("fired %d of %d timers", len(fired), n)
		}
		now += 64 * tick
	}
	cycle()
	if allocs := testing.AllocsPerRun(5, cycle); allocs != 0 {
		t.Errorf("a burst of %d timers through a wheel slot allocated %v times after the first", n, allocs)
	}
	m.Verify()
}

// TestTimerWheelBurstAllocs checks that bursts shaped as BenchmarkBurst's
// allocate no chunk once the wheel has seen one: each cycle arms n timers
// spread over 60 level-0 slots and the first slots of level 1 (which
// cascade into level 0 as the cursor reaches them), stops 19 of every 20,
// and checks past them all. Slots of many sizes fill at once, so a wheel
// that kept whole arrays for reuse by size found too few of the right
// size and allocated new ones each burst: 18.8 bytes per timer. What is
// left is a slot's list of chunks, 8 bytes per chunk, allocated again
// for a level-1 slot that the bursts have not used before (each burst
// moves two slots on), once the lists that empty slots keep reach their
// budget: about 0.27 bytes per timer.
func TestTimerWheelBurstAllocs(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	const n = 20000
	const tick = int64(1) << TimerWheelTickShift
	m := NewTimerModel(n)
	now := int64(1) << 40 // a multiple of 64 ticks: level 0 spans the next 63 slots
	r := uint64(1)
	cycle := func() {
		m.Advance(now)
		for i := range n {
			r = r*6364136223846793005 + 1442695040888963407
			m.Reset(i, now+tick+int64(r>>33)%(80*tick), 0, now)
		}
		for i := range n {
			if i%20 != 0 {
				m.Stop(i)
			}
		}
		for end := now + 82*tick; now < end; now += tick {
			m.Check(now)
		}
		if _, wheel := m.Len(); wheel != 0 {
			t.Fatalf("%d timers left in the wheel", wheel)
		}
		now = (now + 64*tick) &^ (64*tick - 1)
	}
	cycle()
	cycle()
	const cycles = 8
	var before, after MemStats
	ReadMemStats(&before)
	for range cycles {
		cycle()
	}
	ReadMemStats(&after)
	perTimer := float64(after.TotalAlloc-before.TotalAlloc) / (cycles * n)
	t.Logf("%.3f bytes allocated per timer of a burst", perTimer)
	if perTimer > 1 {
		t.Errorf("a burst of %d timers through 80 wheel slots allocated %.2f bytes per timer after the first bursts, want at most 1", n, perTimer)
	}
	m.Verify()
}

// TestTimerWheelChunksFireExactly drives a wheel whose slots span many
// chunks (3000 timers aimed at a few instants, at several levels) with
// random Resets, Stops, sweeps and checks, and checks each check's
// firings against the timers' whens: none fires early, twice or not at
// all, as chunks fill, empty and pass between slots. It verifies the
// wheel every 37 steps.
func TestTimerWheelChunksFireExactly(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	const n, steps = 3000, 20000
	const tick = int64(1) << TimerWheelTickShift
	for seed := uint64(1); seed <= 3; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		m := NewTimerModel(n)
		now := int64(1) << 40
		m.Advance(now)
		armed := make([]int64, n) // when, or 0 if not armed
		hot := []int64{3 * tick, 10*tick + 5, 70 * tick, 64*64*tick + 3, 5000 * tick}
		pick := func() int64 {
			base := hot[r.IntN(len(hot))]
			switch r.IntN(4) {
			case 0:
				return now + base + r.Int64N(tick)
			case 1:
				return now + base + r.Int64N(64*tick)
			case 2:
				return now + 1 + r.Int64N(200*tick)
			}
			return now + base
		}
		most := 0
		for step := range steps {
			if step%37 == 0 {
				m.Verify()
				chunks, _ := m.WheelChunks()
				most = max(most, chunks)
			}
			id := r.IntN(n)
			switch op := r.IntN(20); {
			case op < 10:
				armed[id] = pick()
				m.Reset(id, armed[id], 0, now)
			case op < 15:
				m.Stop(id)
				armed[id] = 0
			case op < 16:
				m.Sweep(now)
			default:
				now += r.Int64N(3 * tick)
				for _, f := range m.Check(now) {
					if armed[f.ID] == 0 || armed[f.ID] > now {
						t.Fatalf("seed %d step %d: timer %d fired at %d, armed for %d (0: not armed, or fired already)", seed, step, f.ID, now, armed[f.ID])
					}
					armed[f.ID] = 0
				}
				for id, when := range armed {
					if when != 0 && when <= now {
						t.Fatalf("seed %d step %d: timer %d armed for %d has not fired by %d", seed, step, id, when, now)
					}
				}
			}
		}
		m.Verify()
		if most < 8 {
			t.Errorf("seed %d: the slots held at most %d chunks, want a test across many", seed, most)
		}
	}
}

// TestTimerWheelChunksBounded checks that the wheel keeps no more chunks
// than the most timers it has held at once need: each cycle passes a burst
// of 1000 timers through a level-0 slot, as in TestTimerWheelChunksReused,
// then arms one timer an hour on, in a slot of level 2 or more that holds
// it for the rest of the test. The bursts need 32 chunks and the far
// timers one each: a wheel that allocated chunks without reusing the
// free ones would hold 32 more each cycle.
func TestTimerWheelChunksBounded(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	const n, cycles = 1000, 20
	const tick = int64(1) << TimerWheelTickShift
	m := NewTimerModel(n + cycles)
	now := int64(1) << 40
	for c := range cycles {
		m.Advance(now)
		base := now + 10*tick
		for i := range n {
			m.Reset(i, base+int64(i)%(tick/2), 0, now)
		}
		if fired := m.Check(base + tick); len(fired) != n {
			t.Fatalf("fired %d of %d timers", len(fired), n)
		}
		now += 64 * tick
		m.Advance(now)
		m.Reset(n+c, now+3600e9+int64(c)<<38, 0, now) // a slot of its own at level 3 or 4 (2^38 ns each at level 3)
		m.Verify()
	}
	if _, wheel := m.Len(); wheel != cycles {
		t.Fatalf("%d timers in the wheel, want the %d far ones", wheel, cycles)
	}
	want := (n+TimerWheelChunk-1)/TimerWheelChunk + cycles
	if slots, free := m.WheelChunks(); slots != cycles || slots+free > want {
		t.Errorf("after %d bursts of %d timers and %d far timers the wheel holds %d chunks in slots and %d free, want %d in slots and at most %d in all",
			cycles, n, cycles, slots, free, cycles, want)
	}
}

// TestTimerWheelStopNotBehindLock checks that a Stop that finds its set's
// stopped ring full does not wait for the timers lock while another holds
// it: busy, as a holder that cascades a slot of thousands of timers marks
// the set, or not (a holder that had taken the lock just before it
// cascades, or that drains the ring). The zombie that Stop left unlisted
// waits for a sweep (wheelSweepDue: one zombie of thousands of timers asks
// for none) and never fires.
func TestTimerWheelStopNotBehindLock(t *testing.T) {
	wheelOnly(t)
	for _, busy := range []bool{true, false} {
		t.Run(fmt.Sprintf("busy=%v", busy), func(t *testing.T) { testStopNotBehindLock(t, busy) })
	}
}

func testStopNotBehindLock(t *testing.T, busy bool) {
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	defer GOMAXPROCS(GOMAXPROCS(2))
	const tries, ring = 10, TimerWheelStoppedMax
	m := NewTimerModel(tries*(ring+1) + 1)
	for id := range tries*(ring+1) + 1 {
		m.Reset(id, 1<<40+int64(id)<<timerModelTickShift, 0, 1)
	}
	// A stop of the world while the lock is held waits for it: only the
	// tries in which the Stop began count. Three of them that waited for
	// the lock fail the test, and so does one after ten tries in all; ten
	// tries with none skip it.
	next := 0 // the next timer to stop
	for try, failed := 1, 0; ; try++ {
		m.Check(2) // no timer is due: this drains the ring
		for range ring {
			m.Stop(next)
			next++
		}
		stop := m.StopUnderSetLock
		if busy {
			stop = m.StopUnderBusySetLock
		}
		began, returned, pending := stop(next, 5e9)
		next++
		if !pending {
			t.Error("Stop of an armed timer reported it not pending")
		}
		m.Verify()
		if returned {
			break
		}
		if began {
			failed++
		}
		endBusyTry(t, try, tries, failed, "a Stop that found the ring full")
	}
	live := tries*(ring+1) + 1 - next
	if n, wheel := m.Len(); n != live+1 || wheel != live+1 {
		t.Errorf("after %d stops, the last with the ring full and the set locked, and the unlock: %d timers left, %d in the wheel; want the %d live ones and the unlisted zombie",
			next, n, wheel, live)
	}
	m.Sweep(2)
	m.Verify()
	if n, wheel := m.Len(); n != live || wheel != live {
		t.Errorf("after a sweep: %d timers left, %d in the wheel; want the %d live ones", n, wheel, live)
	}
	if fired := m.Check(1 << 42); len(fired) != live {
		t.Errorf("a check at 1<<42 ran %d timers, want the %d live ones", len(fired), live)
	}
}

// endBusyTry ends a try of the locked-set Stop tests, which count only the
// tries in which the Stop ran while the set was locked: failed
// of the first try tries (of tries in all) counted and waited for the
// lock, and none returned before the unlock. A correct Stop never waits:
// three such tries fail the test, and so does any by the last try; the
// last try with none counted skips it.
func endBusyTry(t *testing.T, try, tries, failed int, stop string) {
	t.Helper()
	if failed == 3 || try == tries && failed > 0 {
		t.Fatalf("%s waited for the lock of its set in %d of %d tries", stop, failed, try)
	}
	if try == tries {
		t.Skipf("no try ran %s while the set was locked, in %d tries", stop, try)
	}
}

// TestTimerWheelStopOwnWhileLocked checks that a Stop on the P that holds
// the timer does not wait for that P's timers lock while another P holds
// it, busy (another P's stealing check cascading the set) or not.
func TestTimerWheelStopOwnWhileLocked(t *testing.T) {
	wheelOnly(t)
	for _, busy := range []bool{true, false} {
		t.Run(fmt.Sprintf("busy=%v", busy), func(t *testing.T) {
			defer GOMAXPROCS(GOMAXPROCS(2))
			// The holder needs another P to take it up, which a loaded
			// machine or a stop of the world may deny it: only the tries in
			// which it held the lock while the Stop ran count. A Stop that
			// returned only after the unlock in such a try waited 5s for the
			// lock, which a correct Stop does not: after ten tries with none
			// that returned before the unlock, the test fails if any such
			// try came, and is skipped if none did.
			const tries = 10
			for try, failed := 1, 0; ; try++ {
				ran, returned := StopOwnWhileLocked(5e9, busy)
				if ran && returned {
					return
				}
				if ran {
					failed++
				}
				endBusyTry(t, try, tries, failed, "a Stop on the timer's own P, its set locked by another P")
			}
		})
	}
}

// TestTimerWheelOwnStopLeavesRing checks that a Stop on the owner's P, which
// takes the set's lock, leaves the stopped ring's entries to the next
// holder while the set keeps a timer (unlockStopped): a Stop holds the
// lock for its own timer alone, not for a drain of hundreds of entries or
// a sweep. (A Stop that empties the set drains: TestTimerWheelStopFixLeavesRing.)
func TestTimerWheelOwnStopLeavesRing(t *testing.T) {
	wheelOnly(t)
	defer GOMAXPROCS(GOMAXPROCS(1))
	if n := OwnStopLeavesRing(); n != TimerWheelStoppedMax {
		t.Errorf("a Stop on the owner's P, the set keeping a timer, left the ring's count at %d, want %d", n, TimerWheelStoppedMax)
	}
}

// TestTimerWheelAddLeavesSweep checks that a timer start drains the stopped
// ring's entries but leaves an overflow's sweep to check (wheelDrainAdd):
// a Reset after a Stop must not pay for a sweep of the whole wheel, which
// upstream's start never does.
func TestTimerWheelAddLeavesSweep(t *testing.T) {
	wheelOnly(t)
	defer GOMAXPROCS(GOMAXPROCS(1))
	const n = 40 // 20 unlisted zombies: more than a quarter, whatever else the P holds
	afterAdd, afterCheck := AddLeavesSweep(n)
	if afterAdd != n/2 {
		t.Errorf("after an add, %d of the %d unlisted zombies are still in the wheel, want all: the add swept", afterAdd, n/2)
	}
	if afterCheck != 0 {
		t.Errorf("after a holder's drain, %d of the %d unlisted zombies are still in the wheel, want 0: the quarter rule asked for a sweep", afterCheck, n/2)
	}
}

// TestTimerWheelOverflowSweepsAtQuarter checks that a drain that finds the
// overflow bit sweeps the Stops' unlisted zombies only once zombies exceed
// a quarter of the set's timers, upstream's rule for its heap: so that
// Stops that keep overflowing cost O(1) amortised each, not a sweep of
// the whole wheel at every drain. Below it, the zombies stay unlisted,
// marked for a later sweep.
func TestTimerWheelOverflowSweepsAtQuarter(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	const timers = 8
	for _, zombies := range []int{2, 3} { // a quarter of 8, then more
		m := NewTimerModel(timers)
		for id := range timers {
			m.Reset(id, 1<<40+int64(id)<<timerModelTickShift, 0, 1)
		}
		ids := make([]int, zombies)
		for i := range ids {
			ids[i] = i
		}
		m.StopOverflowed(ids...)
		m.Verify()
		m.Check(2) // no timer is due: this drains
		m.Verify()
		want := timers
		if zombies > timers/4 {
			want = timers - zombies
		}
		if n, wheel := m.Len(); n != want || wheel != want {
			t.Errorf("%d of %d timers stopped with the ring full, then a drain: %d timers left, %d in the wheel; want %d", zombies, timers, n, wheel, want)
		}
		if n := m.StoppedCount(); n != 0 {
			t.Errorf("%d of %d timers stopped with the ring full, then a drain: the ring's count is %#x, want 0", zombies, timers, n)
		}
		if fired := m.Check(1 << 42); len(fired) != timers-zombies {
			t.Errorf("a check at 1<<42 ran %d timers, want the %d live ones", len(fired), timers-zombies)
		}
	}
}

// TestTimerWheelStopFixLeavesRing checks what a Stop that found the stopped
// ring full, and took the timers lock at once, leaves in the ring: the
// entries, for a holder to drain, while the set keeps timers (so that such
// a Stop never drains a ring of entries, hundreds of timers' work); none
// once its removal emptied the set, which no check would come to drain.
// The ring is filled with entries that name a timer of no set (stale
// entries, as a Stop leaves of a timer moved since).
func TestTimerWheelStopFixLeavesRing(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	for _, tc := range []struct {
		timers  int
		drained bool
	}{{2, false}, {1, true}} {
		m := NewTimerModel(tc.timers)
		for id := range tc.timers {
			m.Reset(id, 1<<40+int64(id)<<timerModelTickShift, 0, 1)
		}
		m.FillStoppedRing()
		m.Stop(0)
		// The count, before any other holder drains: a full ring's, or
		// more (a Stop that finds the ring full still counts itself).
		if n := m.StoppedCount(); (n == 0) != tc.drained || (n != 0 && n < TimerWheelStoppedMax) {
			t.Errorf("with %d timers in the set, a Stop with the ring full left its count at %d; want it drained: %v", tc.timers, n, tc.drained)
		}
		m.Verify()
		if n, wheel := m.Len(); n != tc.timers-1 || wheel != tc.timers-1 {
			t.Errorf("with %d timers in the set, after a Stop with the ring full: %d timers left, %d in the wheel; want %d", tc.timers, n, wheel, tc.timers-1)
		}
	}
}

// TestTimerWheelStoppedAfterOverflow checks the stopped ring while an
// overflow's sweep is pending with the ring's count at 0 (a Stop's overflow
// that came after a drain reset the count): a Stop then still lists its
// timer in the ring, and the next drain removes it and sweeps, rather than
// wait, with the timers lock held, for an entry that no Stop stores.
func TestTimerWheelStoppedAfterOverflow(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	m := NewTimerModel(3)
	for id := range 3 {
		m.Reset(id, 1<<40+int64(id)<<timerModelTickShift, 0, 1)
	}
	m.MarkStoppedOverflow()
	done := make(chan struct{})
	go func() {
		m.Stop(0)
		m.Check(2) // no timer is due: this drains
		close(done)
	}()
	// A watchdog, not a timing assertion: the broken drain never returns.
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		panic("a Stop and a check with the overflow bit set did not return: the drain waits for an entry no Stop stored")
	}
	m.Verify()
	if n, wheel := m.Len(); n != 2 || wheel != 2 {
		t.Errorf("after a Stop with the overflow bit set and a check: %d timers left, %d in the wheel; want the 2 live ones", n, wheel)
	}
}

// TestTimerWheelAddDrains checks that the owner's next add drains the
// stopped ring: maybeAdd drains it as it locks the set, not as it unlocks
// (unlockAdded). The model's adds (TimerModel.Reset) unlock with
// timers.unlock, which drains, so they do not test maybeAdd's drain.
func TestTimerWheelAddDrains(t *testing.T) {
	wheelOnly(t)
	defer GOMAXPROCS(GOMAXPROCS(1))
	const n = 3
	before, after := AddAfterListedStops(n)
	if before != n {
		t.Fatalf("%d Stops on a busy set listed %d timers, want %d", n, before, n)
	}
	if after != 0 {
		t.Errorf("the owner's add left %d of %d listed timers in the stopped ring, want 0", after, n)
	}
}

// TestTimerWheelSweepDrainsListed checks that a drain that sweeps leaves
// no entry in the stopped ring naming a timer the sweep dropped: a Stop
// that lists its timer during the sweep, after the drain reset the ring,
// would otherwise keep the timer, its function and argument reachable
// until the set is locked again, which, with the set empty, no check does.
func TestTimerWheelSweepDrainsListed(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	swept, nstopped, stale := SweepWithStopDuring()
	if !swept {
		t.Fatal("the check's drain did not sweep after the Stop: the test tests nothing")
	}
	if stale || nstopped != 0 {
		t.Errorf("after a sweeping drain with a Stop during the sweep: the ring's count is %d, an entry names a dropped timer: %v; want 0, false", nstopped, stale)
	}
}

// TestTimerWheelStoppedDrained checks that a stopped wheel timer leaves the
// set at the set's next check, though no timer is due, or at its next add,
// not when its slot cascades: until then it keeps its function and
// argument reachable (golang/go#75935). A Stop that finds the stopped ring
// full removes its own timer at once, the lock being free.
func TestTimerWheelStoppedDrained(t *testing.T) {
	wheelOnly(t)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	for _, stops := range []int{1, TimerWheelStoppedMax, TimerWheelStoppedMax + 100} {
		m := NewTimerModel(stops + 2)
		for id := range stops + 2 {
			m.Reset(id, 1<<40+int64(id)<<timerModelTickShift, 0, 1)
		}
		for id := range stops {
			m.Stop(id)
		}
		m.Verify()
		m.Check(2) // no timer is due
		m.Verify()
		if n, wheel := m.Len(); n != 2 || wheel != 2 {
			t.Errorf("%d stops, then a check with no timer due: %d timers left, %d in the wheel; want the 2 live ones", stops, n, wheel)
		}
		m.Stop(stops)
		m.Reset(0, 1<<41, 0, 1) // an add
		m.Verify()
		if n, _ := m.Len(); n != 2 {
			t.Errorf("%d stops, a check, one more stop and an add: %d timers left, want 2", stops, n)
		}
	}
}
