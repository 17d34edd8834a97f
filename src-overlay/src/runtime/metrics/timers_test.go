// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package metrics_test

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// timerMetrics is one reading of the /sched/timers/ metrics.
type timerMetrics struct {
	started, stopped, fired, moved, wakeups, live uint64
	lateness                                      *metrics.Float64Histogram
}

func readTimerMetrics(t *testing.T) timerMetrics {
	t.Helper()
	s := []metrics.Sample{
		{Name: "/sched/timers/started:timers"},
		{Name: "/sched/timers/stopped:timers"},
		{Name: "/sched/timers/fired:timers"},
		{Name: "/sched/timers/moved:timers"},
		{Name: "/sched/timers/wakeups:events"},
		{Name: "/sched/timers/live:timers"},
		{Name: "/sched/timers/lateness:seconds"},
	}
	metrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() == metrics.KindBad {
			t.Fatalf("metric %s is not supported", x.Name)
		}
	}
	return timerMetrics{
		started:  s[0].Value.Uint64(),
		stopped:  s[1].Value.Uint64(),
		fired:    s[2].Value.Uint64(),
		moved:    s[3].Value.Uint64(),
		wakeups:  s[4].Value.Uint64(),
		live:     s[5].Value.Uint64(),
		lateness: s[6].Value.Float64Histogram(),
	}
}

// histogramDelta returns the total number of samples added between a and b,
// and how many of those fell in buckets below zero.
func histogramDelta(a, b *metrics.Float64Histogram) (total, negative uint64) {
	for i := range b.Counts {
		d := b.Counts[i] - a.Counts[i]
		total += d
		if b.Buckets[i] < 0 || math.IsInf(b.Buckets[i], -1) {
			negative += d
		}
	}
	return total, negative
}

// backgroundTimers bounds the timer events that the runtime itself (the
// scavenger, the test framework's alarm) may add while a test runs.
const backgroundTimers = 8

func wantDelta(t *testing.T, name string, before, after, want uint64) {
	t.Helper()
	if d := after - before; d < want || d > want+backgroundTimers {
		t.Errorf("%s went up by %d, want %d (+ at most %d background timers)", name, d, want, backgroundTimers)
	}
}

// TestTimerMetricsCounts starts 1000 timers, stops 400 of them and lets 600
// fire, and checks that every counter moved by that much and that the
// lateness histogram holds one non-negative sample per firing.
func TestTimerMetricsCounts(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const started, stopped = 1000, 400
	before := readTimerMetrics(t)

	var fired sync.WaitGroup
	fired.Add(started - stopped)
	timers := make([]*time.Timer, started)
	for i := range timers {
		timers[i] = time.AfterFunc(200*time.Millisecond+time.Duration(i)*time.Microsecond, fired.Done)
	}
	for _, tm := range timers[:stopped] {
		if !tm.Stop() {
			t.Fatal("Stop of a pending timer reported false")
		}
	}
	mid := readTimerMetrics(t)
	if d := mid.live - before.live; mid.live < before.live || d < started-stopped || d > started-stopped+backgroundTimers {
		t.Errorf("live timers went from %d to %d with %d pending, want +%d", before.live, mid.live, started-stopped, started-stopped)
	}
	fired.Wait()
	after := readTimerMetrics(t)

	t.Logf("deltas: started %d, stopped %d, fired %d, live after stops %+d",
		after.started-before.started, after.stopped-before.stopped, after.fired-before.fired, int64(mid.live-before.live))
	wantDelta(t, "started", before.started, after.started, started)
	wantDelta(t, "stopped", before.stopped, after.stopped, stopped)
	wantDelta(t, "fired", before.fired, after.fired, started-stopped)
	total, negative := histogramDelta(before.lateness, after.lateness)
	if total != after.fired-before.fired {
		t.Errorf("lateness histogram gained %d samples, fired gained %d", total, after.fired-before.fired)
	}
	if negative != 0 {
		t.Errorf("%d timers fired before their time", negative)
	}
}

// TestTimerMetricsWakeups sleeps while nothing else runs: each sleep should
// end with the netpoller waking for the timer.
func TestTimerMetricsWakeups(t *testing.T) {
	const sleeps = 5
	before := readTimerMetrics(t)
	for range sleeps {
		time.Sleep(20 * time.Millisecond)
	}
	after := readTimerMetrics(t)
	// Another goroutine's work may wake the poller early once or twice,
	// turning a timer wakeup into a non-timer one; most must remain.
	t.Logf("wakeups: %d over %d sleeps", after.wakeups-before.wakeups, sleeps)
	if d := after.wakeups - before.wakeups; d < sleeps-2 {
		t.Errorf("wakeups went up by %d over %d idle sleeps", d, sleeps)
	}
}

// TestTimerMetricsMoved parks timers on several Ps, then shrinks GOMAXPROCS
// to 1: the timers of the destroyed Ps move, and none is lost.
func TestTimerMetricsMoved(t *testing.T) {
	const procs, perP = 4, 50
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	before := readTimerMetrics(t)

	// Each goroutine spins until all are running at once, which spreads
	// them over the Ps, then parks its timers on the P it runs on.
	var arrived atomic.Int32
	var done sync.WaitGroup
	done.Add(procs)
	var timers [procs][perP]*time.Timer
	for p := range procs {
		go func() {
			defer done.Done()
			arrived.Add(1)
			for arrived.Load() < procs {
			}
			for i := range perP {
				timers[p][i] = time.AfterFunc(time.Hour, func() {})
			}
		}()
	}
	done.Wait()
	runtime.GOMAXPROCS(1)
	after := readTimerMetrics(t)
	for p := range procs {
		for _, tm := range timers[p] {
			if !tm.Stop() {
				t.Fatal("a moved timer was lost: Stop reported false")
			}
		}
	}
	t.Logf("moved: %d of %d", after.moved-before.moved, procs*perP)
	if d := after.moved - before.moved; d == 0 || d > procs*perP+backgroundTimers {
		t.Errorf("moved went up by %d, want between 1 and %d", d, procs*perP)
	}
}
