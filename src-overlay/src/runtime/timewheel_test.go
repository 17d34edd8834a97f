// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerwheel

package runtime_test

import (
	"internal/goexperiment"
	"internal/race"
	"math/rand/v2"
	"os"
	. "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

const maxWhen = 1<<63 - 1

// TestTimerWheelSize checks the memory promise: the wheel's position fills
// padding, so a time.Timer stays in upstream's 112-byte size class, and a
// wheel timer costs that plus its 8-byte entry in a slot's array, where a
// heap timer costs that plus its 16-byte heap entry.
func TestTimerWheelSize(t *testing.T) {
	if size := unsafe.Sizeof(TimeTimer{}); size > 112 {
		t.Errorf("time.Timer in the runtime takes %d bytes, want <= 112", size)
	}
}

// TestTimerWheelModel runs random sequences of add, stop, reset earlier and
// later, and clock advances on a wheel, checking it after every operation
// against a reference that just remembers each live timer's when and
// deadline (when plus its slack under GOEXPERIMENT=timerslack, else when):
// every timer fires by its deadline and never before its when, in deadline
// order, no stopped timer fires, and wakeTime is never later than the
// earliest deadline. Without slack that is: the same timers fire, never
// early, in when order. With slack a timer whose window has opened may fire
// before its deadline, not before its when.
func TestTimerWheelModel(t *testing.T) {
	starts := []int64{1, 1 << 40, 1<<62 - 1<<30, maxWhen - 1<<41}
	seeds := 40
	if testing.Short() {
		seeds = 8
	}
	// Under GOEXPERIMENT=timerslack, arms switch between slack policies, so
	// that timers with small and large slack, relative and absolute, share
	// the wheel's slots; elsewhere timerslack means nothing.
	t.Setenv("GODEBUG", "timerslack=0")
	wheeled, slacked := 0, 0
	for seed := range seeds {
		for _, start := range starts {
			w, s, _ := runTimerWheelModel(t, uint64(seed), start, 300)
			wheeled, slacked = wheeled+w, slacked+s
			if t.Failed() {
				return
			}
		}
	}
	if wheeled == 0 {
		t.Errorf("no timer was ever in the wheel")
	}
	if goexperiment.TimerSlack && slacked == 0 {
		t.Errorf("no timer got slack: the model did not test timers with windows")
	}
}

// TestTimerWheelModelFullSlots runs the model with slots that hold one
// timer, so that a timer whose slot is taken goes to the heap instead, as
// it does in a real wheel past 2^23 timers in one slot.
func TestTimerWheelModelFullSlots(t *testing.T) {
	defer SetTimerWheelSlotMax(SetTimerWheelSlotMax(1))
	t.Setenv("GODEBUG", "timerslack=0")
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	wheeled, overflowed := 0, 0
	for seed := range seeds {
		for _, start := range []int64{1, 1 << 40} {
			w, _, o := runTimerWheelModel(t, uint64(seed), start, 300)
			wheeled, overflowed = wheeled+w, overflowed+o
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

// timerWheelDelta returns a random distance: within the near horizon, around
// a level's slot boundary, anywhere in a level, or out to the int64 extremes.
func timerWheelDelta(r *rand.Rand) int64 {
	switch r.IntN(6) {
	case 0:
		return r.Int64N(1 << TimerWheelTickShift)
	case 1, 2:
		shift := TimerWheelTickShift + 6*r.IntN(8)
		if shift > 62 {
			shift = 62
		}
		return 1<<shift + r.Int64N(5) - 2
	case 3:
		return r.Int64N(1 << (TimerWheelTickShift + r.IntN(62-TimerWheelTickShift)))
	case 4:
		return maxWhen
	default:
		return r.Int64N(4 << TimerWheelTickShift)
	}
}

// timerWheelModelSlack are the slack policies the model switches between.
var timerWheelModelSlack = []string{"0", "25%:1ms", "100us", "1ms", "5ms", "50%", "10%:20ms", "3ms+10%"}

// runTimerWheelModel runs one random sequence and returns the sums over its
// steps of the number of timers in the wheel and of those in the heap beyond
// the near horizon (HeapBeyondHorizon), and the number of arms that gave a
// timer slack.
func runTimerWheelModel(t *testing.T, seed uint64, now int64, ops int) (wheeled, slacked, overflowed int) {
	const n = 64
	r := rand.New(rand.NewPCG(seed, uint64(now)))
	m := NewTimerWheelModel(n)
	type window struct{ when, deadline int64 }
	live := make(map[int]window) // the reference
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("seed %d start %d: "+format, append([]any{seed, now}, args...)...)
	}
	whenAfter := func(base int64) int64 {
		w := base + timerWheelDelta(r)
		if w <= 0 { // overflow
			w = maxWhen
		}
		return w
	}
	advance := func(to int64) {
		fired := m.Check(to)
		last := int64(0)
		for _, f := range fired {
			w, ok := live[f.ID]
			switch {
			case !ok:
				fail("timer %d fired but is not live", f.ID)
			case w.when > to || f.Delay != to-w.when:
				fail("timer %d (when %d) fired early or with a wrong delay %d at %d", f.ID, w.when, f.Delay, to)
			case w.deadline < last:
				fail("timer %d (deadline %d) fired after a timer with deadline %d", f.ID, w.deadline, last)
			}
			last = w.deadline
			delete(live, f.ID)
		}
		for id, w := range live {
			if w.deadline <= to {
				fail("at %d timer %d (when %d, deadline %d) did not fire", to, id, w.when, w.deadline)
			}
		}
		now = to
	}
	for range ops {
		id := r.IntN(n)
		switch op := r.IntN(10); {
		case op < 4: // add or reset, earlier or later
			if r.IntN(4) == 0 {
				os.Setenv("GODEBUG", "timerslack="+timerWheelModelSlack[r.IntN(len(timerWheelModelSlack))])
			}
			base := now
			if w, ok := live[id]; ok && r.IntN(2) == 0 {
				base = w.when - timerWheelDelta(r)/2 // earlier than before, maybe already due
				if base < 1 {
					base = 1
				}
			}
			w := whenAfter(base)
			_, want := live[id]
			if pending := m.Reset(id, w); pending != want {
				fail("reset of timer %d reported pending %v, want %v", id, pending, want)
			}
			live[id] = window{w, m.Deadline(id)}
			if live[id].deadline > w {
				slacked++
			}
		case op < 6:
			_, want := live[id]
			if pending := m.Stop(id); pending != want {
				fail("stop of timer %d reported pending %v, want %v", id, pending, want)
			}
			delete(live, id)
		case op < 9:
			to := whenAfter(now)
			if r.IntN(3) == 0 && len(live) > 0 { // exactly to some timer's when or deadline
				for _, w := range live {
					to = max(w.when, now)
					if r.IntN(2) == 0 {
						to = max(w.deadline, now)
					}
					break
				}
			}
			advance(to)
		default:
			m.Sweep(now)
		}
		m.Verify()
		_, w := m.Len()
		wheeled += w
		overflowed += m.HeapBeyondHorizon()
		if len(live) > 0 {
			earliest := int64(maxWhen)
			for _, w := range live {
				earliest = min(earliest, w.deadline)
			}
			if wt := m.WakeTime(); wt == 0 || wt > earliest {
				fail("wakeTime %d later than the earliest deadline %d", wt, earliest)
			}
		}
		if t.Failed() {
			return wheeled, slacked, overflowed
		}
	}
	advance(maxWhen)
	m.Verify()
	if n, _ := m.Len(); len(live) != 0 || n != 0 {
		fail("after the end of time: %d live, %d timers left in the set", len(live), n)
	}
	return wheeled, slacked, overflowed
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
