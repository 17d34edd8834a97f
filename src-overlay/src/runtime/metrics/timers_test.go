// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package metrics_test

import (
	"internal/goexperiment"
	"internal/testenv"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// timerMetrics is one reading of the /sched/timers/ metrics.
type timerMetrics struct {
	started, stopped, fired, moved, wakeups, live, coalesced, cascades uint64
	wakeDeferrals, wakeDeferralsExpired                                uint64
	lateness, slack                                                    *metrics.Float64Histogram
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
		{Name: "/sched/timers/coalesced:timers"},
		{Name: "/sched/timers/cascades:timers"},
		{Name: "/sched/timers/slack:seconds"},
		{Name: "/sched/timers/wake-deferrals:events"},
		{Name: "/sched/timers/wake-deferrals-expired:events"},
	}
	metrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() == metrics.KindBad {
			t.Fatalf("metric %s is not supported", x.Name)
		}
	}
	return timerMetrics{
		started:   s[0].Value.Uint64(),
		stopped:   s[1].Value.Uint64(),
		fired:     s[2].Value.Uint64(),
		moved:     s[3].Value.Uint64(),
		wakeups:   s[4].Value.Uint64(),
		live:      s[5].Value.Uint64(),
		lateness:  s[6].Value.Float64Histogram(),
		coalesced: s[7].Value.Uint64(),
		cascades:  s[8].Value.Uint64(),
		slack:     s[9].Value.Float64Histogram(),

		wakeDeferrals:        s[10].Value.Uint64(),
		wakeDeferralsExpired: s[11].Value.Uint64(),
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
	// Return every free page to the OS first: otherwise the background
	// scavenger may still be releasing what earlier tests freed, and it
	// sleeps between its slices on timers of its own (29 of them in one
	// run at GOMAXPROCS=8, beyond backgroundTimers).
	debug.FreeOSMemory()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const started, stopped = 1000, 400
	before := readTimerMetrics(t)

	var fired sync.WaitGroup
	fired.Add(started - stopped)
	timers := make([]*time.Timer, started)
	for i := range timers {
		// Each is due before those started before it, by more than a start
		// takes under qemu. The heap would sift each up, so the wheel's
		// heap-first rule sends each to the wheel.
		timers[i] = time.AfterFunc(200*time.Millisecond+time.Duration(started-i)*100*time.Microsecond, fired.Done)
	}
	for _, tm := range timers[:stopped] {
		if !tm.Stop() {
			t.Fatal("Stop of a pending timer reported false")
		}
	}
	mid := readTimerMetrics(t)
	// A background timer may also leave the set meanwhile: live is not cumulative.
	if d := int64(mid.live) - int64(before.live); d < started-stopped-backgroundTimers || d > started-stopped+backgroundTimers {
		t.Errorf("live timers went from %d to %d with %d pending, want +%d (± %d background timers)",
			before.live, mid.live, started-stopped, started-stopped, backgroundTimers)
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
	checkVariantCounts(t, before, after, started, started-stopped)
}

// checkVariantCounts checks the counts only some variants keep, over a run
// that armed and fired timers, all beyond the wheel's near horizon:
// cascades (wheel: every fired timer came down through the wheel), slack
// samples (slack: one per fired timer, under the default policy) and
// coalesced firings (slack only, and never more than fired), and deferred
// wakeups (slack only; never fewer than those that expired).
func checkVariantCounts(t *testing.T, before, after timerMetrics, armed, fired uint64) {
	t.Helper()
	cascades := after.cascades - before.cascades
	slacked, _ := histogramDelta(before.slack, after.slack)
	coalesced := after.coalesced - before.coalesced
	deferrals, expired := after.wakeDeferrals-before.wakeDeferrals, after.wakeDeferralsExpired-before.wakeDeferralsExpired
	t.Logf("cascades %d, slack samples %d, coalesced %d, wake deferrals %d (%d expired)", cascades, slacked, coalesced, deferrals, expired)
	if goexperiment.TimerWheel {
		if cascades < fired {
			t.Errorf("cascades went up by %d, want at least %d (each fired wheel timer)", cascades, fired)
		}
	} else if cascades != 0 {
		t.Errorf("cascades went up by %d without a wheel", cascades)
	}
	if goexperiment.TimerSlack {
		wantDelta(t, "slack samples", 0, slacked, fired)
		if coalesced > after.fired-before.fired {
			t.Errorf("coalesced went up by %d, more than fired (%d)", coalesced, after.fired-before.fired)
		}
		if after.wakeDeferralsExpired > after.wakeDeferrals {
			t.Errorf("%d deferred wakeups expired in all, of %d deferred", after.wakeDeferralsExpired, after.wakeDeferrals)
		}
	} else if slacked != 0 || coalesced != 0 || deferrals != 0 || expired != 0 {
		t.Errorf("without slack: slack samples went up by %d, coalesced by %d, wake deferrals by %d (%d expired)",
			slacked, coalesced, deferrals, expired)
	}
}

// TestTimerMetricsWakeDeferrals readies 20 goroutines at a time with timers
// due together, fired early in their windows, with their slack left: the
// test's goroutine waits, so every P is idle, until a read deadline with
// no slack that is due just after them, whose timer readies no goroutine.
// The pass that wakes for it runs the 20 too. Under a slack policy that P
// defers the wakeup of the other, idle, P for them; under the policy 0 it
// does not (but for a few background timers armed before, under the
// other policy). Each expiry ends one deferral counted before it, so over
// the process's life expired never exceeds begun.
func TestTimerMetricsWakeDeferrals(t *testing.T) {
	if !goexperiment.TimerSlack {
		t.Skip("no deferred wakeups without GOEXPERIMENT=timerslack")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, c := range []struct {
		policy string
		defers bool
	}{{"1ms", true}, {"0", false}} {
		t.Setenv("GODEBUG", "timerslackdefer=1,timerslack="+c.policy)
		before := readTimerMetrics(t)
		for range 10 {
			var received atomic.Int32
			done := make(chan bool)
			for range 20 {
				tm := time.NewTimer(2 * time.Millisecond)
				go func() {
					<-tm.C
					if received.Add(1) == 20 {
						close(done)
					}
				}()
			}
			os.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
			r.SetReadDeadline(time.Now().Add(2 * time.Millisecond))
			os.Setenv("GODEBUG", "timerslackdefer=1,timerslack="+c.policy)
			<-done
		}
		after := readTimerMetrics(t)
		deferrals := after.wakeDeferrals - before.wakeDeferrals
		t.Logf("timerslack=%s: %d wake deferrals, %d expired", c.policy, deferrals, after.wakeDeferralsExpired-before.wakeDeferralsExpired)
		if c.defers && deferrals == 0 {
			t.Errorf("timerslack=%s: no wakeup deferred in 10 batches of 20 goroutines readied by timers", c.policy)
		}
		if !c.defers && deferrals > backgroundTimers {
			t.Errorf("timerslack=%s: %d wakeups deferred, want none (+ at most %d background timers)", c.policy, deferrals, backgroundTimers)
		}
		if after.wakeDeferralsExpired > after.wakeDeferrals {
			t.Errorf("timerslack=%s: %d deferred wakeups expired in all, of %d deferred", c.policy, after.wakeDeferralsExpired, after.wakeDeferrals)
		}
	}
}

// TestTimerMetricsSlack sets a 300ms slack with GODEBUG and fires 100 timers
// due 2ms apart: their windows all overlap, so they fire together by the
// first hard deadline, and every timer whose own hard deadline is later than
// that wakeup counts as coalesced: at least half, unless the wakeup comes
// 100ms late. Each gets exactly 300ms of slack, and none fires early.
func TestTimerMetricsSlack(t *testing.T) {
	if !goexperiment.TimerSlack {
		t.Skip("no timer slack without GOEXPERIMENT=timerslack")
	}
	defer os.Setenv("GODEBUG", os.Getenv("GODEBUG"))
	os.Setenv("GODEBUG", "timerslackdefer=1,timerslack=300ms")
	const n, slack, spacing = 100, 300 * time.Millisecond, 2 * time.Millisecond
	before := readTimerMetrics(t)
	var fired sync.WaitGroup
	fired.Add(n)
	for i := range n {
		time.AfterFunc(time.Duration(i)*spacing, fired.Done)
	}
	fired.Wait()
	after := readTimerMetrics(t)

	coalesced := after.coalesced - before.coalesced
	t.Logf("coalesced %d of %d", coalesced, n)
	if coalesced < n/2 {
		t.Errorf("coalesced went up by %d, want at least %d of %d timers with overlapping windows", coalesced, n/2, n)
	}
	if _, negative := histogramDelta(before.lateness, after.lateness); negative != 0 {
		t.Errorf("%d timers fired before their time", negative)
	}
	total, _ := histogramDelta(before.slack, after.slack)
	wantDelta(t, "slack samples", 0, total, n)
	for i := range after.slack.Counts {
		lo, hi := after.slack.Buckets[i], after.slack.Buckets[i+1]
		if d := after.slack.Counts[i] - before.slack.Counts[i]; d != 0 && (lo > slack.Seconds() || hi <= slack.Seconds()) {
			t.Errorf("%d timers got slack in [%g, %g) seconds, want %v", d, lo, hi, slack)
		}
	}
}

// TestTimerMetricsSlackOnHeapEntry checks that a timer gets its slack as it
// enters a heap, not when it is set: resetting a channel timer that nothing
// waits on grants no slack (and reads no clock), and a goroutine blocking
// on its channel, which puts it in a heap, grants it once.
func TestTimerMetricsSlackOnHeapEntry(t *testing.T) {
	if !goexperiment.TimerSlack {
		t.Skip("no timer slack without GOEXPERIMENT=timerslack")
	}
	defer os.Setenv("GODEBUG", os.Getenv("GODEBUG"))
	os.Setenv("GODEBUG", "timerslackdefer=1,timerslack=1ms")
	const resets = 100
	before := readTimerMetrics(t)
	tm := time.NewTimer(time.Hour)
	defer tm.Stop()
	for range resets {
		tm.Reset(time.Hour)
	}
	reset := readTimerMetrics(t)
	if n, _ := histogramDelta(before.slack, reset.slack); n > backgroundTimers {
		t.Errorf("slack samples went up by %d over %d resets of a channel timer nothing waits on, want at most %d (background timers)",
			n, resets, backgroundTimers)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-tm.C:
		case <-done:
		}
	}()
	defer close(done)
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		if n, _ := histogramDelta(reset.slack, readTimerMetrics(t).slack); n > 0 {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("no slack sample after a goroutine blocked on the timer's channel for 10s")
		}
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
	var arrived, fired atomic.Int32
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
				timers[p][i] = time.AfterFunc(time.Hour, func() { fired.Add(1) })
			}
		}()
	}
	done.Wait()
	runtime.GOMAXPROCS(1)
	after := readTimerMetrics(t)
	// A Reset follows a timer's set: one left in a destroyed P's set would
	// be re-armed where no P runs timers, and never fire.
	for p := range procs {
		for _, tm := range timers[p] {
			tm.Reset(time.Millisecond)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); fired.Load() < procs*perP && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if f := fired.Load(); f != procs*perP {
		t.Errorf("%d of %d timers fired after GOMAXPROCS shrank and they were reset to 1ms", f, procs*perP)
	}
	t.Logf("moved: %d of %d", after.moved-before.moved, procs*perP)
	if d := after.moved - before.moved; d == 0 || d > procs*perP+backgroundTimers {
		t.Errorf("moved went up by %d, want between 1 and %d", d, procs*perP)
	}
}

// TestTimerMetricsMonotonic reads the timer counters while GOMAXPROCS
// shrinks and grows and goroutines start and stop timers: a cumulative
// counter must never go down. It did when a read loaded the destroyed Ps'
// counts before locking allp: a P destroyed in between was in neither sum.
func TestTimerMetricsMonotonic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for !stop.Load() {
				time.NewTimer(time.Hour).Stop()
				runtime.Gosched()
			}
		})
	}
	wg.Go(func() {
		for !stop.Load() {
			runtime.GOMAXPROCS(8)
			time.Sleep(50 * time.Microsecond)
			runtime.GOMAXPROCS(2)
			time.Sleep(50 * time.Microsecond)
		}
	})
	defer wg.Wait()
	defer stop.Store(true)
	samples := []metrics.Sample{{Name: "/sched/timers/started:timers"}, {Name: "/sched/timers/stopped:timers"}}
	last := make([]uint64, len(samples))
	for start := time.Now(); time.Since(start) < time.Second; {
		metrics.Read(samples)
		for i, s := range samples {
			if v := s.Value.Uint64(); v < last[i] {
				t.Fatalf("%s went down from %d to %d", s.Name, last[i], v)
			} else {
				last[i] = v
			}
		}
	}
}

// slackDirectiveProg arms one timer under a //go:debug timerslack
// directive and prints each non-empty bucket of the slack histogram as
// "lo hi count".
const slackDirectiveProg = `//go:debug timerslack=20ms

package main

import (
	"fmt"
	"runtime/metrics"
	"time"
)

func main() {
	<-time.NewTimer(time.Millisecond).C // fires in [1ms, 21ms]: the histogram counts it then
	s := []metrics.Sample{{Name: "/sched/timers/slack:seconds"}}
	metrics.Read(s)
	h := s[0].Value.Float64Histogram()
	for i, n := range h.Counts {
		if n > 0 {
			fmt.Println(h.Buckets[i], h.Buckets[i+1], n)
		}
	}
}
`

// TestTimerSlackGoDebugDirective checks that a program sets its default
// policy with //go:debug timerslack=: the go command knows the setting and
// the runtime reads it from the binary's default GODEBUG. Every timer then
// gets 20ms of slack, and GODEBUG=timerslack=0 overrides the directive.
func TestTimerSlackGoDebugDirective(t *testing.T) {
	if !goexperiment.TimerSlack {
		t.Skip("no timer slack without GOEXPERIMENT=timerslack")
	}
	testenv.MustHaveGoBuild(t)
	dir := t.TempDir()
	for name, data := range map[string]string{"go.mod": "module slackdirective\n\ngo 1.27\n", "main.go": slackDirectiveProg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "slackdirective.exe")
	build := testenv.Command(t, testenv.GoToolPath(t), "build", "-o", exe, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(godebug string) (buckets [][2]float64) {
		cmd := testenv.Command(t, exe)
		cmd.Env = append(os.Environ(), "GODEBUG="+godebug)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("GODEBUG=%q: %v\n%s", godebug, err, out)
		}
		for line := range strings.Lines(string(out)) {
			f := strings.Fields(line)
			if len(f) != 3 {
				t.Fatalf("GODEBUG=%q: bad line %q", godebug, line)
			}
			lo, err1 := strconv.ParseFloat(f[0], 64)
			hi, err2 := strconv.ParseFloat(f[1], 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("GODEBUG=%q: bad line %q", godebug, line)
			}
			buckets = append(buckets, [2]float64{lo, hi})
		}
		return buckets
	}
	buckets := run("")
	if len(buckets) == 0 {
		t.Error("no slack sample under //go:debug timerslack=20ms")
	}
	for _, b := range buckets {
		if !(b[0] <= 0.02 && 0.02 < b[1]) {
			t.Errorf("a slack sample in [%v, %v) under //go:debug timerslack=20ms, want every one at 0.02s", b[0], b[1])
		}
	}
	if buckets := run("timerslack=0"); len(buckets) != 0 {
		t.Errorf("slack samples in %v with GODEBUG=timerslack=0 over the directive, want none", buckets)
	}
}
