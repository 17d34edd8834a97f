// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerwheel

package runtime_test

import (
	"internal/race"
	"math/rand/v2"
	. "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// TestTimerWheelSize checks the memory promise: the wheel's position fills
// padding, so a time.Timer stays in upstream's 112-byte size class, and a
// wheel timer costs that plus its 8-byte entry in a slot's array, where a
// heap timer costs that plus its 16-byte heap entry.
func TestTimerWheelSize(t *testing.T) {
	if size := unsafe.Sizeof(TimeTimer{}); size > 112 {
		t.Errorf("time.Timer in the runtime takes %d bytes, want <= 112", size)
	}
}

// TestTimerWheelModelFullSlots runs the model with slots that hold one
// timer, so that a timer whose slot is taken goes to the heap instead, as
// it does in a real wheel past 2^23 timers in one slot.
func TestTimerWheelModelFullSlots(t *testing.T) {
	if TimerWheelTickShift != timerModelTickShift {
		t.Fatalf("the model's tick shift %d is not the wheel's %d", timerModelTickShift, TimerWheelTickShift)
	}
	defer SetTimerWheelSlotMax(SetTimerWheelSlotMax(1))
	t.Setenv("GODEBUG", "timerslack=0")
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	wheeled, overflowed := 0, 0
	for seed := range seeds {
		for _, start := range []int64{1, 1 << 40} {
			w, _ := runTimerModel(t, uint64(seed), start, 300, func(m *TimerModel) {
				overflowed += m.HeapBeyondHorizon()
			})
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

// TestTimerWheelResetLater checks that a timer in the wheel reset later
// keeps its place, for the cascade to re-place, also when the reset moves it
// by less than its slack (GOEXPERIMENT=timerslack), as a Reset(d) repeated
// every few nanoseconds does: re-placing it would unlink and relink it under
// its P's lock on every Reset. Timer 1 shares timer 0's slot, so a relink
// would move timer 0 to the end of the slot.
func TestTimerWheelResetLater(t *testing.T) {
	t.Setenv("GODEBUG", "timerslack=1ms")
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
// GOMAXPROCS so that the destroyed Ps' wheels move (take) to the survivors:
// the moved timers must still fire on time, and Stop must still find them.
func TestTimerWheelGOMAXPROCS(t *testing.T) {
	defer GOMAXPROCS(GOMAXPROCS(4))
	const n = 2000
	var early, fired atomic.Int64
	long := make([]*time.Timer, 0, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n / 8 {
				d := time.Duration(10+(g*n/8+i)%190) * time.Millisecond
				deadline := time.Now().Add(d)
				time.AfterFunc(d, func() {
					if time.Now().Before(deadline) {
						early.Add(1)
					}
					fired.Add(1)
				})
				l := time.AfterFunc(time.Hour, func() {})
				mu.Lock()
				long = append(long, l)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	GOMAXPROCS(1)
	for _, l := range long {
		if !l.Stop() {
			t.Fatalf("Stop of an hour-long timer after GOMAXPROCS shrank reported it not pending")
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for fired.Load() < n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if f := fired.Load(); f != n {
		t.Errorf("%d of %d timers fired after GOMAXPROCS shrank", f, n)
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
	t.Setenv("GODEBUG", "timerslack=0")
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
