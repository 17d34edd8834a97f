// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package runtime_test

import (
	"internal/goexperiment"
	"math"
	"math/rand/v2"
	"os"
	. "runtime"
	"sync"
	"sync/atomic"
	"testing"
)

const maxWhen = 1<<63 - 1

// timerModelTickShift is log2 of the span of the wheel's level-0 slot
// (TimerWheelTickShift, which TestTimerWheelModelFullSlots checks), so
// that the model's distances straddle the wheel's slot boundaries.
const timerModelTickShift = 20

// TestTimerModel runs random sequences of add, stop, reset earlier and
// later, and clock advances on a timers set (in every build: the heap, and
// the wheel and slack when their GOEXPERIMENTs are on), checking it after
// every operation against a reference that just remembers each live
// timer's when, deadline (when plus its slack under
// GOEXPERIMENT=timerslack, else when) and period: every timer fires by its
// deadline and never before its when, in deadline order, no stopped timer
// fires, a periodic timer is re-armed for the first instant of its period
// after the firing (as unlockAndRun computes it), with a slack of at most
// half its period, and wakeTime is never later than the earliest
// deadline. Without slack that is: the same timers fire, never early, in
// when order. With slack a timer whose window has opened may fire before
// its deadline, not before its when.
func TestTimerModel(t *testing.T) {
	starts := []int64{1, 1 << 40, 1<<62 - 1<<30, maxWhen - 1<<41}
	seeds := 40
	if testing.Short() {
		seeds = 8
	}
	// Under GOEXPERIMENT=timerslack, arms switch between slack policies, so
	// that timers with small and large slack, relative and absolute, share
	// the set; elsewhere timerslack means nothing.
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	wheeled, slacked, periodic := 0, 0, 0
	for seed := range seeds {
		for _, start := range starts {
			w, s, p := runTimerModel(t, uint64(seed), start, 300, nil, true)
			wheeled, slacked, periodic = wheeled+w, slacked+s, periodic+p
			if t.Failed() {
				return
			}
		}
	}
	if goexperiment.TimerWheel && wheeled == 0 {
		t.Errorf("no timer was ever in the wheel")
	}
	if periodic == 0 {
		t.Errorf("no periodic timer was armed")
	}
	// How many checks the concurrent readers made depends on the
	// scheduler (none, at times, when the reader and the steps share a
	// P): a count, not a condition.
	t.Logf("wake times loaded during a step by the concurrent readers: %d", timerModelReads.Load())
	if goexperiment.TimerSlack && slacked == 0 {
		t.Errorf("no timer got slack: the model did not test timers with windows")
	}
}

// timerModelDelta returns a random distance: within the wheel's near horizon,
// around a level's slot boundary, anywhere in a level, or out to the int64
// extremes. Without a wheel these are just distances of many scales.
func timerModelDelta(r *rand.Rand) int64 {
	switch r.IntN(6) {
	case 0:
		return r.Int64N(1 << timerModelTickShift)
	case 1, 2:
		shift := timerModelTickShift + 6*r.IntN(8)
		if shift > 62 {
			shift = 62
		}
		return 1<<shift + r.Int64N(5) - 2
	case 3:
		return r.Int64N(1 << (timerModelTickShift + r.IntN(62-timerModelTickShift)))
	case 4:
		return maxWhen
	default:
		return r.Int64N(4 << timerModelTickShift)
	}
}

// nextLive returns the first id of live from start on, wrapping at n: a
// live timer chosen by the model's random source, not by map order, so that
// a seed replays its run.
func nextLive[W any](live map[int]W, start, n int) int {
	for k := range n {
		if _, ok := live[(start+k)%n]; ok {
			return (start + k) % n
		}
	}
	panic("no live timer")
}

// timerModelSlack are the slack policies the model switches between.
var timerModelSlack = []string{"0", "25%:1ms", "100us", "1ms", "5ms", "50%", "10%:20ms", "3ms+10%"}

// timerModelReads counts the wake times that runTimerModel's concurrent
// readers loaded during a step.
var timerModelReads atomic.Uint64

// runTimerModel runs one random sequence, calling observe after every step,
// and returns the sum over its steps of the number of timers in the wheel,
// the number of arms that gave a timer slack, and the number of arms of a
// periodic timer. With concurrent, another goroutine loads the wake time
// while each step runs, as stealWork and checkTimersNoP load another P's,
// and checks it against the earliest deadline among the timers that stay
// in the set throughout the step: those the step neither arms, stops nor
// may run. The reader pauses between its loads, for up to a few
// microseconds, to straddle the step's operations. The step's moves of timers between the heap and the wheel
// (cascades, re-placements, a Ticker's re-arm) must not hide them.
func runTimerModel(t *testing.T, seed uint64, now int64, ops int, observe func(*TimerModel), concurrent bool) (wheeled, slacked, periodic int) {
	const n = 64
	r := rand.New(rand.NewPCG(seed, uint64(now)))
	m := NewTimerModel(n)
	type window struct{ when, deadline, period int64 }
	live := make(map[int]window) // the reference
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("seed %d start %d: "+format, append([]any{seed, now}, args...)...)
	}
	// step is 2k+1 while step k runs and 2k+2 after it; bound is the
	// earliest deadline of the timers that stay in the set throughout
	// step k, or 0 if none does, stored before step is.
	var step atomic.Uint64
	var bound atomic.Int64
	var badWake, badBound atomic.Int64
	var readerDone sync.WaitGroup
	if concurrent {
		// With more than one P the reader spins on its own; were it to
		// yield, it could queue behind the steps on their P for good.
		started := make(chan struct{})
		procs := GOMAXPROCS(0)
		readerDone.Add(1)
		go func() {
			defer readerDone.Done()
			close(started)
			for i := 0; ; i++ {
				s1 := step.Load()
				if s1 == math.MaxUint64 {
					return
				}
				if s1&1 != 0 {
					b := bound.Load()
					wt := m.WakeTimeDelayed(uint32(i % 16))
					if step.Load() == s1 && b != 0 && (wt == 0 || wt > b) {
						badWake.CompareAndSwap(0, max(wt, 1))
						badBound.CompareAndSwap(0, b)
					}
					timerModelReads.Add(1)
				}
				if i%64 == 0 && procs == 1 {
					Gosched() // let the steps run
				}
			}
		}()
		// Block until the reader runs: its wakeup of this goroutine
		// wakes another P to run it, so that the two run side by side.
		<-started
	}
	// begin publishes the bound of the next step, leaving out timer
	// exclude and, for a check, every timer due by due (pass -1 for none).
	begin := func(exclude int, due int64) {
		b := int64(0)
		for id, w := range live {
			if id != exclude && w.when > due && (b == 0 || w.deadline < b) {
				b = w.deadline
			}
		}
		bound.Store(b)
		step.Add(1)
	}
	end := func() {
		step.Add(1)
		if wt, b := badWake.Load(), badBound.Load(); wt != 0 {
			fail("a wake time loaded during a step was %d, later than %d, the earliest deadline of the timers in the set throughout it", wt, b)
		}
	}
	defer func() {
		step.Store(math.MaxUint64)
		readerDone.Wait()
	}()
	whenAfter := func(base int64) int64 {
		w := base + timerModelDelta(r)
		if w <= 0 { // overflow
			w = maxWhen
		}
		return w
	}
	// rearmed returns the reference's window of timer id, armed for when
	// every period, with the deadline the set gave it.
	rearmed := func(id int, when, period int64) window {
		w := window{when, m.Deadline(id), period}
		if w.deadline < when || period > 0 && w.deadline-when > period/2 {
			fail("timer %d armed for %d every %d got the deadline %d", id, when, period, w.deadline)
		}
		return w
	}
	advance := func(to int64) {
		if to == maxWhen {
			// A periodic timer re-armed past the end of time is armed
			// for maxWhen (unlockAndRun), due again at once: a clock
			// at maxWhen would run it for ever, as upstream's would.
			for _, w := range live {
				if w.period > 0 {
					to = maxWhen - 1
				}
			}
		}
		begin(-1, to)
		fired := m.Check(to)
		end()
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
			if w.period == 0 {
				delete(live, f.ID)
				continue
			}
			next := w.when + w.period*(1+(to-w.when)/w.period)
			if next < 0 {
				next = maxWhen
			}
			live[f.ID] = rearmed(f.ID, next, w.period)
		}
		for id, w := range live {
			if w.deadline <= to {
				fail("at %d timer %d (when %d, deadline %d) did not fire", to, id, w.when, w.deadline)
			}
		}
		// A check leaves nothing due: a wake time at or before now would
		// have the P wake, or poll, again and again for nothing.
		if wt := m.WakeTime(); wt != 0 && wt <= to {
			fail("after the check at %d, wakeTime %d is not later (%d timers live)", to, wt, len(live))
		}
		now = to
	}
	for range ops {
		id := r.IntN(n)
		switch op := r.IntN(10); {
		case op < 4: // add or reset, earlier or later
			if r.IntN(4) == 0 {
				os.Setenv("GODEBUG", "timerslackdefer=1,timerslack="+timerModelSlack[r.IntN(len(timerModelSlack))])
			}
			base := now
			if w, ok := live[id]; ok && r.IntN(2) == 0 {
				base = w.when - timerModelDelta(r)/2 // earlier than before, maybe already due
				if base < 1 {
					base = 1
				}
			}
			w := whenAfter(base)
			period := int64(0)
			if r.IntN(4) == 0 { // a Ticker's period, up to a few of the wheel's near slots
				period = 1 + r.Int64N(4<<timerModelTickShift)
			}
			_, want := live[id]
			begin(id, -1)
			pending := m.Reset(id, w, period, now)
			end()
			if pending != want {
				fail("reset of timer %d reported pending %v, want %v", id, pending, want)
			}
			live[id] = rearmed(id, w, period)
			if live[id].deadline > w {
				slacked++
			}
			if period > 0 {
				periodic++
			}
		case op < 6:
			_, want := live[id]
			begin(id, -1)
			pending := m.Stop(id)
			end()
			if pending != want {
				fail("stop of timer %d reported pending %v, want %v", id, pending, want)
			}
			delete(live, id)
		case op < 9:
			to := whenAfter(now)
			if r.IntN(3) == 0 && len(live) > 0 { // exactly to some timer's when or deadline
				w := live[nextLive(live, r.IntN(n), n)]
				to = max(w.when, now)
				if r.IntN(2) == 0 {
					to = max(w.deadline, now)
				}
			}
			advance(to)
		default:
			begin(-1, -1)
			m.Sweep(now)
			end()
		}
		m.Verify()
		_, w := m.Len()
		wheeled += w
		if observe != nil {
			observe(m)
		}
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
			return wheeled, slacked, periodic
		}
	}
	for id := range n { // a periodic timer never runs out
		if w, ok := live[id]; ok && w.period > 0 {
			if !m.Stop(id) {
				fail("stop of periodic timer %d reported it not pending", id)
			}
			delete(live, id)
		}
	}
	advance(maxWhen)
	m.Verify()
	if n, _ := m.Len(); len(live) != 0 || n != 0 {
		fail("after the end of time: %d live, %d timers left in the set", len(live), n)
	}
	return wheeled, slacked, periodic
}

// TestTimerModelEmptyWakeTime checks that a set left empty has no wake
// time once checked: a timer reset later (which sets minWhenModified) and
// then stopped leaves nothing to wake for. In the wheel the stop removes
// the timer at once, so no adjust ever clears the bound; left set, it
// keeps wakeTime in the past, and the P polls again and again for nothing.
func TestTimerModelEmptyWakeTime(t *testing.T) {
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	m := NewTimerModel(1)
	m.Reset(0, 1<<40, 0, 1)
	m.Reset(0, 1<<41, 0, 1)
	m.Stop(0)
	m.Check(1 << 42)
	if n, _ := m.Len(); n != 0 {
		t.Fatalf("%d timers left after the stop and a check", n)
	}
	if wt := m.WakeTime(); wt != 0 {
		t.Errorf("empty set after a check: wakeTime %d, want 0", wt)
	}
}

// TestTimerModelCleanHeadWakeTime checks the wake time after an add whose
// cleanHead takes the heap's only timer, a stopped one, off the heap's
// tail, and whose timer goes into the wheel: the wake time must be the
// wheel timers', not the stopped one's. The wheel builds kept the stopped
// timer's (upstream's next addHeap refreshes it, but a wheel timer is not
// added to the heap), and once it had passed, the scheduler polled for the
// P's timers again and again, spinning a CPU until the next timer entered
// the heap.
func TestTimerModelCleanHeadWakeTime(t *testing.T) {
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	m := NewTimerModel(3)
	m.Reset(0, 1<<40, 0, 1) // beyond the near horizon: in the wheel, if there is one
	m.Reset(1, 1000, 0, 1)  // the heap's only timer
	m.Stop(1)
	m.Reset(2, 1<<41, 0, 1) // its add cleans the stopped timer off the heap
	m.Check(2000)
	m.Verify()
	if wt := m.WakeTime(); wt != 1<<40 {
		t.Errorf("after the stopped timer's cleanup and a check at 2000: wakeTime %d, want %d", wt, int64(1<<40))
	}
}

// TestTimerStopWithoutSetLock checks that a Stop of a timer in a set that
// is not its P's own does not wait for that set's lock, in any build: the
// owner holds it while it cascades a whole slot of the wheel, and a Stop
// from another P waited behind it when the wheel removed every stopped
// timer at once. (The model's set is no P's: a Stop on the owner's P locks
// its set, as its other timer operations do.) A Stop that has not returned
// within seconds, while the lock is held and nothing else runs, is
// waiting for it.
func TestTimerStopWithoutSetLock(t *testing.T) {
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
	defer GOMAXPROCS(GOMAXPROCS(2))
	m := NewTimerModel(2)
	m.Reset(1, 1<<41, 0, 1)
	// A stop of the world while the lock is held waits for it: three
	// tries in which the Stop began, of at most ten.
	for try, failed := 1, 0; ; try++ {
		m.Reset(0, 1<<40, 0, 1) // beyond the near horizon: in the wheel, if there is one
		began, returned, pending := m.StopUnderSetLock(0, 5e9)
		if !pending {
			t.Error("Stop of an armed timer reported it not pending")
		}
		if returned {
			break
		}
		if began {
			failed++
		}
		if failed == 3 {
			t.Fatal("a Stop waited for the lock of its timer's set, three times")
		}
		if try == 10 {
			t.Skipf("the Stop's goroutine ran while the lock was held in %d of %d tries", failed, try)
		}
	}
	m.Verify()
	if fired := m.Check(1 << 42); len(fired) != 1 || fired[0].ID != 1 {
		t.Errorf("after the stop of timer 0, a check at 1<<42 ran %v, want timer 1 only", fired)
	}
}
