// Package wakeups measures what frequent short timers cost the process and how late they wake
// their goroutines: 1000 tickers with staggered phases, and goroutines sleeping 20-1000 µs
// (golang/go#44343), at random durations (SubMsSleep) or each at its own (SpreadSubMsSleep,
// golang/go#53824's workload); and a program that never asked for sub-millisecond precision,
// thousands of timeouts of 1-50 ms and 10 ms tickers (CoarseTimeouts). One op is one wakeup: a tick
// received, a sleep; in CoarseTimeouts one wait on a timeout, fired or stopped. Besides ns/op every
// benchmark reports:
//
//	vcsw/s        voluntary context switches of the process per second (getrusage ru_nvcsw)
//	cpu-ns/s      CPU time (user+system) of the process per second of wall time
//	cpu-ns/op     CPU time of the process per op: per tick received, per sleep, per wait. Where
//	              the ops come at a fixed rate (the tickers) it is about cpu-ns/s over that rate;
//	              where each op starts when the last one ends (the sleeps, the waits) a precise
//	              policy runs more ops a second, and only cpu-ns/op compares what each op costs
//	late-pNN-ns   quantiles of wakeup lateness: p10, p25, p50, p90, p99, p999 and max
//	slack-ns      median slack the runtime granted the timers armed during the run
//	              (/sched/timers/slack:seconds); 0 without slack or without the metric
//
// and, with a timerlab toolchain, the runtime's own view from runtime/metrics (docs/metrics.md):
//
//	timer-wakeups/s  netpoll sleeps ended by a timer falling due, per second
//	timers-fired/s   timers fired per second
//	coalesced/s      timers fired before their hard deadline (when + slack), on a wakeup or
//	                 scheduler pass that came for something else, per second (toolchains
//	                 with the slack metrics)
//	wake-deferrals/s     times a P kept the goroutines its timers readied for itself rather
//	                     than wake an idle P for them, per second (toolchains with deferred
//	                     wakeups; 0 without slack)
//	deferrals-expired/s  those of them that woke an idle P after all, per second
//
// StaggeredTickers also reports how close the wakeups come to the fewest the slack allows:
//
//	ideal-wakeups/s  the fewest instants that serve every tick received within its window
//	                 [due, due + slack-ns], per second (see minStabs)
//	coalesce-eff     ideal-wakeups/s / timer-wakeups/s (only where timer-wakeups/s is reported):
//	                 not bounded by 1, and not an efficiency despite its name: a timer wakeup is
//	                 a netpoll sleep that a timer ended, while most ticks fire on threads
//	                 already awake for other work (the heap shows about 130). The report calls
//	                 it ideal/wakeup
//
// SubMsSleep and SpreadSubMsSleep how long sleeps of at least 100 µs take against what was asked:
//
//	ratio-p50, ratio-p99  quantiles of actual / requested duration
//
// SpreadSubMsSleep what each timer wakeup cost:
//
//	cpu-ns/timer-wakeup  CPU time of the process per timer wakeup: cpu-ns/s over timer-wakeups/s
//	                     (only where timer-wakeups/s is reported)
//
// and CoarseTimeouts how many of its timeouts fired, its lateness quantiles being theirs:
//
//	expired/op  the share of the waits whose timeout fired (the others' event came first)
package wakeups

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"timerlab/bench/internal/rusage"
	"timerlab/bench/internal/timerstats"
	"timerlab/bench/units"
)

// BenchmarkStaggeredTickers runs 1000 tickers of 10 ms started at random phases; each ticker's
// goroutine records when each tick was due and how long after that it received it.
func BenchmarkStaggeredTickers(b *testing.B) {
	const n, period = 1000, 10 * time.Millisecond
	b.Run(fmt.Sprintf("tickers=%d/period=%s", n, period), func(b *testing.B) {
		r := measure(b, n, func(_ int, quota *atomic.Int64, start time.Time, rec *record) {
			time.Sleep(rand.N(period))
			t := time.NewTicker(period)
			defer t.Stop()
			for quota.Add(-1) >= 0 {
				due := <-t.C // a ticker sends the time the tick was due
				rec.late = append(rec.late, time.Since(due))
				rec.due = append(rec.due, due.Sub(start))
			}
		})
		r.report(b)
		r.reportCoalescing(b)
	})
}

// BenchmarkStaggeredTickersOneP is StaggeredTickers on one P, which has no other thread to wake or
// to share the ticks with. Its CPU per second is what the ticks cost with the fewest threads, about
// one context switch per timer wakeup: what remains is the work of receiving them (the timer run,
// the channel send and receive, the goroutine switches), which no timer or wakeup policy removes.
// So it is a floor, up to the cost of its own wakeups, under the CPU of StaggeredTickers at any
// GOMAXPROCS (docs/log/2026-11-25-b4eb7c04-tickers-on-one-p.md).
//
// It runs only with -test.cpu=1 (or GOMAXPROCS=1), so that the program is at one P from its start.
// Setting GOMAXPROCS(1) here instead, while the program runs, gave about 3x the voluntary context
// switches of the same run at one P from the start (2,200-2,600 against 610-890 a second with the
// heap build), and more CPU: the benchmark would then measure that, not the floor.
func BenchmarkStaggeredTickersOneP(b *testing.B) {
	if p := runtime.GOMAXPROCS(0); p != 1 {
		b.Skipf("GOMAXPROCS is %d: run with -test.cpu=1", p)
	}
	BenchmarkStaggeredTickers(b)
}

// ratioMin is the shortest sleep whose actual / requested ratio SubMsSleep reports: below it, the
// ratio measures the cost of a wakeup more than the timer's precision.
const ratioMin = 100 * time.Microsecond

// BenchmarkSubMsSleep runs 50 goroutines that each sleep for random durations of 20 to 1000 µs
// and record how much longer than asked each sleep took.
func BenchmarkSubMsSleep(b *testing.B) {
	const n = 50
	b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
		r := measure(b, n, func(_ int, quota *atomic.Int64, _ time.Time, rec *record) {
			for quota.Add(-1) >= 0 {
				rec.sleep(20*time.Microsecond + rand.N(980*time.Microsecond))
			}
		})
		r.report(b)
		r.reportRatios(b)
	})
}

// The sleeps of SpreadSubMsSleep: its goroutines' durations spread evenly from spreadMin to
// spreadMax.
const (
	spreadMin = 20 * time.Microsecond
	spreadMax = 1000 * time.Microsecond
)

// BenchmarkSpreadSubMsSleep is the workload of golang/go#53824's SpreadSubMsTimers (50 goroutines
// sleeping at staggered 20-1000 µs intervals, the benchmark its figures of CPU per wakeup and
// wakeups a second come from): 50 goroutines, each sleeping its own fixed duration in a loop, the
// durations spread evenly over 20-1000 µs (goroutine i sleeps 20 µs + i × 20 µs; spread). One op
// is one sleep: cpu-ns/op is that CPU per wakeup. Unlike SubMsSleep, whose goroutines draw a
// new duration for every sleep, each goroutine wakes at its own steady period, as a polling loop
// does; a policy whose sleeps end on time runs more of them a second, the short ones most, and its
// timer wakeups a second count that precision twice. Besides the figures of every workload it
// reports ratio-p50 and ratio-p99 as SubMsSleep does, and cpu-ns/timer-wakeup.
func BenchmarkSpreadSubMsSleep(b *testing.B) {
	const n = 50
	b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
		rates := make([]float64, n)
		for i := range rates {
			rates[i] = 1 / spread(i, n).Seconds()
		}
		r := measureReserving(b, reservations(b.N, rates), func(i int, quota *atomic.Int64, _ time.Time, rec *record) {
			d := spread(i, n)
			for quota.Add(-1) >= 0 {
				rec.sleep(d)
			}
		})
		r.report(b)
		r.reportRatios(b)
		r.reportCPUPerWakeup(b)
	})
}

// spread is the duration goroutine i of n sleeps in SpreadSubMsSleep: spreadMin for the first,
// spreadMax for the last, evenly spaced between.
func spread(i, n int) time.Duration {
	if n == 1 {
		return spreadMin
	}
	return spreadMin + time.Duration(i)*(spreadMax-spreadMin)/time.Duration(n-1)
}

// sleep sleeps for d and records how much longer than d it took, and for a sleep of at least
// ratioMin, the actual / requested ratio.
func (r *record) sleep(d time.Duration) {
	start := time.Now()
	time.Sleep(d)
	took := time.Since(start)
	r.late = append(r.late, took-d)
	if d >= ratioMin {
		r.ratio = append(r.ratio, float64(took)/float64(d))
	}
}

// record is what one worker goroutine recorded, one entry per wakeup (ratio: per long sleep).
type record struct {
	late  []time.Duration // how long after its due time the goroutine ran
	due   []time.Duration // StaggeredTickers: when the tick was due, from the run's start
	ratio []float64       // SubMsSleep: actual / requested duration of sleeps of at least ratioMin
}

// reserve gives every list of r room for n entries, in memory already written to, so that the
// run takes no page faults for it either.
func (r *record) reserve(n int) {
	r.late = touched[time.Duration](n)
	r.due = touched[time.Duration](n)
	r.ratio = touched[float64](n)
}

// reservations returns how many entries the record of each of len(rates) goroutines reserves for
// n ops shared between them: its even share, n/len(rates); or where rates[i] > 0 says how fast
// goroutine i runs its ops at most (its ops a second if every wait ends when asked), the larger of
// that and its share by rate, rates[i]/Σrates; each with a quarter more and 64 as a margin. Under a
// precise policy SpreadSubMsSleep's goroutine of 20 µs takes 22% of the ops, ten times its even
// share; under one that rounds its sleeps up to a millisecond, every goroutine about its even share.
func reservations(n int, rates []float64) []int {
	var sum float64
	for _, r := range rates {
		sum += r
	}
	out := make([]int, len(rates))
	for i, r := range rates {
		share := 1 / float64(len(rates))
		if sum > 0 {
			share = max(share, r/sum)
		}
		out[i] = int(share*1.25*float64(n)) + 64
	}
	return out
}

// touched returns an empty slice with room for n elements, all written to once.
func touched[T any](n int) []T {
	s := make([]T, n)
	clear(s)
	return s[:0]
}

// run is one measured run: the process's usage before and after, and every worker's records
// concatenated.
type run struct {
	before, after sample
	rec           record
}

// A worker is the loop of one goroutine of a workload: i is its index among the run's
// goroutines, and it takes one op from quota before each, until none is left; start is the
// instant the run began; it records into rec.
type worker func(i int, quota *atomic.Int64, start time.Time, rec *record)

// measure runs worker in n goroutines until they have shared b.N ops between them, each taking
// about the same share of them.
func measure(b *testing.B, n int, w worker) run {
	return measureReserving(b, reservations(b.N, make([]float64, n)), w)
}

// measureReserving runs worker in len(reserve) goroutines until they have shared b.N ops between
// them, goroutine i's record with room for reserve[i] entries before the run starts, so that
// recording costs the run no slice growth: growing them was a quarter of the process's CPU in
// StaggeredTickers.
func measureReserving(b *testing.B, reserve []int, w worker) run {
	var quota atomic.Int64
	quota.Store(int64(b.N))
	recs := make([]record, len(reserve))
	for i := range recs {
		recs[i].reserve(reserve[i])
	}
	var wg sync.WaitGroup
	r := run{before: usage(b)}
	b.ResetTimer()
	for i := range recs {
		wg.Go(func() { w(i, &quota, r.before.wall, &recs[i]) })
	}
	wg.Wait()
	b.StopTimer()
	r.after = usage(b)
	for _, rec := range recs {
		r.rec.late = append(r.rec.late, rec.late...)
		r.rec.due = append(r.rec.due, rec.due...)
		r.rec.ratio = append(r.rec.ratio, rec.ratio...)
	}
	return r
}

// sample is the process's resource usage at one instant.
type sample struct {
	wall   time.Time
	cpu    time.Duration
	vcsw   int64
	timers timerstats.Snapshot
}

func usage(b *testing.B) sample {
	u := rusage.Read(b)
	return sample{wall: time.Now(), cpu: u.CPU, vcsw: u.VCSW, timers: timerstats.Read()}
}

// secs is the run's wall time in seconds.
func (r run) secs() float64 {
	return r.after.wall.Sub(r.before.wall).Seconds()
}

// report reports the figures every workload has: usage, timer metrics and lateness quantiles. It
// sorts r.rec.late.
func (r run) report(b *testing.B) {
	secs, cpu := r.secs(), float64(r.after.cpu-r.before.cpu)
	b.ReportMetric(float64(r.after.vcsw-r.before.vcsw)/secs, units.VCSW)
	b.ReportMetric(cpu/secs, units.CPU)
	b.ReportMetric(cpu/float64(b.N), units.CPUOp)
	timerstats.Report(b, r.before.timers, r.after.timers, secs)
	late := r.rec.late
	slices.Sort(late)
	for _, q := range units.Lateness {
		b.ReportMetric(float64(quantile(late, q.Q)), q.Unit)
	}
}

// reportCoalescing reports ideal-wakeups/s, from the recorded due times with the run's median
// slack as every tick's, and coalesce-eff where the toolchain counts timer wakeups.
func (r run) reportCoalescing(b *testing.B) {
	slack := timerstats.Slack(r.before.timers, r.after.timers)
	windows := make([]window, len(r.rec.due))
	for i, due := range r.rec.due {
		windows[i] = window{due, due + slack}
	}
	ideal := float64(minStabs(windows)) / r.secs()
	b.ReportMetric(ideal, units.IdealWakeups)
	if wakeups, ok := timerstats.WakeupRate(r.before.timers, r.after.timers, r.secs()); ok && wakeups > 0 {
		b.ReportMetric(ideal/wakeups, units.CoalesceEff)
	}
}

// reportRatios reports the median and p99 of actual / requested duration of the long sleeps,
// if there were any. It sorts r.rec.ratio.
func (r run) reportRatios(b *testing.B) {
	ratio := r.rec.ratio
	if len(ratio) == 0 {
		return
	}
	slices.Sort(ratio)
	b.ReportMetric(quantile(ratio, 0.50), units.RatioP50)
	b.ReportMetric(quantile(ratio, 0.99), units.RatioP99)
}

// reportCPUPerWakeup reports the process's CPU per timer wakeup (cpu-ns/timer-wakeup), where the
// toolchain counts timer wakeups and the run had some: what each netpoll sleep a timer ended cost,
// with all the work it did once awake.
func (r run) reportCPUPerWakeup(b *testing.B) {
	wakeups, ok := timerstats.WakeupRate(r.before.timers, r.after.timers, r.secs())
	if !ok || wakeups == 0 {
		return
	}
	b.ReportMetric(float64(r.after.cpu-r.before.cpu)/r.secs()/wakeups, units.CPUWakeup)
}

// window is the closed interval [lo, hi] in which one timer may fire: [due, due + slack].
type window struct{ lo, hi time.Duration }

// minStabs returns the fewest instants such that every window holds at least one: the fewest
// wakeups that serve every timer within its slack. Greedy over the windows sorted by right end:
// the first window no instant holds yet gets an instant at its right end, which also serves every
// later window starting by then. windows is sorted in place.
func minStabs(windows []window) int {
	slices.SortFunc(windows, func(a, b window) int { return cmp.Compare(a.hi, b.hi) })
	n := 0
	var last time.Duration
	for _, w := range windows {
		if n == 0 || w.lo > last {
			n++
			last = w.hi
		}
	}
	return n
}

// quantile returns the q-quantile of sorted, by the nearest-rank method.
func quantile[T any](sorted []T, q float64) T {
	if len(sorted) == 0 {
		var zero T
		return zero
	}
	return sorted[int(q*float64(len(sorted)-1))]
}
