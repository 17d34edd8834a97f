package wakeups

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"timerlab/bench/units"
)

// The timeouts of CoarseTimeouts: each drawn uniformly from coarseMin to coarseMax.
const (
	coarseMin = 1 * time.Millisecond
	coarseMax = 50 * time.Millisecond
)

// BenchmarkCoarseTimeouts is a program that never asked for sub-millisecond precision, where a
// policy of precise waits wakes for every timer and wins nothing (golang/go#53824: "programs that
// never asked for sub-ms precision"): 2000 goroutines each waiting in a loop on a timeout of 1-50
// ms for an event that may come first, and 100 goroutines receiving from 10 ms tickers started at
// random phases, as a server's request deadlines and housekeeping tickers do.
//
// One op is one wait: a goroutine draws a timeout d uniformly in [1 ms, 50 ms] and an event
// delay w uniformly in [d/2, 3d/2], arms the timeout, and waits for whichever comes first, the
// timeout or the event, then disarms the other; so about half the timeouts fire and half are
// stopped. The event is a timer of w itself, standing for a reply that takes w to come. Half the
// goroutines (even i) wait with context.WithTimeout and a select on the event's channel and
// ctx.Done(), a quarter with time.NewTimer and a select, Stop when the event came first, and a
// quarter with time.AfterFunc, whose function tells the goroutine the work timed out, and Stop when
// the event came first (waitContext, waitTimer, waitAfterFunc). The tickers run for the whole run and
// count for no op. A goroutine waits 7/8 of 25.5 ms on average, so the 2000 run about 90,000 ops a
// second when the timers fire on time.
//
// Besides the figures of every workload (the lateness quantiles are those of the timeouts that
// fired: how long after the timeout was due its goroutine ran) it reports expired/op, the share of
// the waits whose timeout fired.
func BenchmarkCoarseTimeouts(b *testing.B) {
	const waiters, tickers, period = 2000, 100, 10 * time.Millisecond
	b.Run(fmt.Sprintf("waiters=%d/tickers=%d", waiters, tickers), func(b *testing.B) {
		stop := startTickers(tickers, period)
		r := measure(b, waiters, func(i int, quota *atomic.Int64, _ time.Time, rec *record) {
			wait := coarseWaits[i%len(coarseWaits)]
			for quota.Add(-1) >= 0 {
				d, w := coarseDraw(rand.N[time.Duration])
				if fired, late := wait(d, w); fired {
					rec.late = append(rec.late, late)
				}
			}
		})
		stop()
		b.ReportMetric(float64(len(r.rec.late))/float64(b.N), units.Expired)
		r.report(b)
	})
}

// coarseWaits are the ways CoarseTimeouts's goroutines wait, goroutine i the i%4th: half with
// context.WithTimeout, a quarter with time.NewTimer, a quarter with time.AfterFunc.
var coarseWaits = [...]func(d, w time.Duration) (fired bool, late time.Duration){waitContext, waitTimer, waitContext, waitAfterFunc}

// coarseDraw draws a wait's timeout d uniformly in [coarseMin, coarseMax] and its event's delay w
// uniformly in [d/2, 3d/2], so that the event comes first half the time; n is rand.N, a uniform
// draw in [0, max).
func coarseDraw(n func(max time.Duration) time.Duration) (d, w time.Duration) {
	d = coarseMin + n(coarseMax-coarseMin+1)
	return d, d/2 + n(d+1)
}

// startTickers starts n goroutines, each receiving from a ticker of period started at a random
// phase, and returns once every ticker runs; the function it returns stops them and returns once
// every goroutine has.
func startTickers(n int, period time.Duration) (stop func()) {
	var started, done sync.WaitGroup
	quit := make(chan struct{})
	started.Add(n)
	for range n {
		done.Go(func() {
			time.Sleep(rand.N(period))
			t := time.NewTicker(period)
			defer t.Stop()
			started.Done()
			for {
				select {
				case <-t.C:
				case <-quit:
					return
				}
			}
		})
	}
	started.Wait()
	return func() {
		close(quit)
		done.Wait()
	}
}

// The waits of CoarseTimeouts: each arms a timeout of d and an event (a timer) of w, waits for the
// first of them, disarms the other, and says whether the timeout fired and if so how long after it
// was due the goroutine ran.

// waitContext waits with context.WithTimeout(d) for an event of w.
func waitContext(d, w time.Duration) (fired bool, late time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	due, _ := ctx.Deadline()
	event := time.NewTimer(w)
	defer event.Stop()
	select {
	case <-event.C:
		return false, 0
	case <-ctx.Done():
		return true, time.Since(due)
	}
}

// waitTimer waits with time.NewTimer(d) for an event of w, and stops the timer if the event came
// first.
func waitTimer(d, w time.Duration) (fired bool, late time.Duration) {
	due := time.Now().Add(d)
	timeout := time.NewTimer(d)
	event := time.NewTimer(w)
	select {
	case <-event.C:
		timeout.Stop()
		return false, 0
	case <-timeout.C:
		event.Stop()
		return true, time.Since(due)
	}
}

// waitAfterFunc waits with time.AfterFunc(d, f), where f tells the waiting goroutine the work timed
// out (as a function that closes a connection would), for an event of w, and stops the timer if
// the event came first. An event that comes as f runs counts as first: its wait is not a timeout's.
func waitAfterFunc(d, w time.Duration) (fired bool, late time.Duration) {
	timedOut := make(chan struct{}, 1)
	due := time.Now().Add(d)
	timeout := time.AfterFunc(d, func() { timedOut <- struct{}{} })
	event := time.NewTimer(w)
	select {
	case <-event.C:
		timeout.Stop()
		return false, 0
	case <-timedOut:
		event.Stop()
		return true, time.Since(due)
	}
}

// TestCoarseWaits checks each way CoarseTimeouts waits: a timeout far shorter than its event fires
// and says how late, and one far longer is stopped.
func TestCoarseWaits(t *testing.T) {
	for name, wait := range map[string]func(d, w time.Duration) (bool, time.Duration){
		"context": waitContext, "timer": waitTimer, "afterfunc": waitAfterFunc,
	} {
		if fired, late := wait(time.Millisecond, time.Hour); !fired || late < 0 {
			t.Errorf("%s: a timeout of 1ms before an event of 1h: fired %v, %v late; want it fired", name, fired, late)
		}
		if fired, late := wait(time.Hour, time.Millisecond); fired || late != 0 {
			t.Errorf("%s: an event of 1ms before a timeout of 1h: fired %v, %v late; want it stopped", name, fired, late)
		}
	}
}

// TestCoarseDraw checks the timeouts and events CoarseTimeouts draws: at the ends of the draw, a
// timeout of 1 ms with its event at 0.5 ms and one of 50 ms with its event at 75 ms; and over 10,000
// draws of a seeded generator, every timeout in [1 ms, 50 ms] with its event in [d/2, 3d/2], the
// timeouts' mean near 25.5 ms, and the event first in about half of them.
func TestCoarseDraw(t *testing.T) {
	const ms = time.Millisecond
	if d, w := coarseDraw(func(time.Duration) time.Duration { return 0 }); d != ms || w != ms/2 {
		t.Errorf("the least draw: timeout %v, event %v; want 1ms, 500µs", d, w)
	}
	if d, w := coarseDraw(func(max time.Duration) time.Duration { return max - 1 }); d != 50*ms || w != 75*ms {
		t.Errorf("the greatest draw: timeout %v, event %v; want 50ms, 75ms", d, w)
	}
	r := rand.New(rand.NewPCG(1, 2))
	n := func(max time.Duration) time.Duration { return time.Duration(r.Int64N(int64(max))) }
	const draws = 10000
	var sum time.Duration
	first := 0
	for range draws {
		d, w := coarseDraw(n)
		if d < ms || d > 50*ms || w < d/2 || w > d/2+d {
			t.Fatalf("timeout %v, event %v: want a timeout in [1ms, 50ms], an event in [d/2, 3d/2]", d, w)
		}
		sum += d
		if w < d {
			first++
		}
	}
	if mean := sum / draws; mean < 25*ms || mean > 26*ms {
		t.Errorf("the timeouts' mean is %v, want about 25.5ms", mean)
	}
	if share := float64(first) / draws; share < 0.48 || share > 0.52 {
		t.Errorf("the event came first in %.3f of the draws, want about half", share)
	}
}

// TestCoarseMix checks how CoarseTimeouts's goroutines wait: half with context.WithTimeout, a
// quarter each with time.NewTimer and time.AfterFunc.
func TestCoarseMix(t *testing.T) {
	count := map[uintptr]int{}
	for _, w := range coarseWaits {
		count[reflect.ValueOf(w).Pointer()]++
	}
	for name, want := range map[string]struct {
		f func(d, w time.Duration) (bool, time.Duration)
		n int
	}{"context": {waitContext, 2}, "timer": {waitTimer, 1}, "afterfunc": {waitAfterFunc, 1}} {
		if got := count[reflect.ValueOf(want.f).Pointer()]; 4*got != want.n*len(coarseWaits) {
			t.Errorf("%s: %d of %d goroutines, want %d in 4", name, got, len(coarseWaits), want.n)
		}
	}
}

// TestCoarseFigures runs CoarseTimeouts briefly and checks it reports the figures the harness
// reads, and that both ends of a wait happen: some timeouts fire and some are stopped (expired/op
// strictly between 0 and 1). How many fire is no test's: a goroutine that runs late finds both
// ready, and its select takes either (TestCoarseDraw checks half are due to fire).
func TestCoarseFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a benchmark")
	}
	figures, line := benchFigures(t, "CoarseTimeouts", "4000x")
	for _, u := range []string{units.CPUOp, units.CPU, units.VCSW, units.Expired, units.LateP50, units.LateP99} {
		if _, ok := figures[u]; !ok {
			t.Errorf("no %s in %q", u, line)
		}
	}
	if e := figures[units.Expired]; e <= 0 || e >= 1 {
		t.Errorf("%s = %v: want some timeouts fired and some stopped (%q)", units.Expired, e, line)
	}
}
