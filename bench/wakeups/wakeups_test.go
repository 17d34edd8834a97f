// Package wakeups measures what frequent short timers cost the process and how late they wake
// their goroutines: 1000 tickers with staggered phases, and goroutines sleeping 20-1000 µs
// (golang/go#44343). One op is one wakeup. Besides ns/op every benchmark reports:
//
//	vcsw/s        voluntary context switches of the process per second (getrusage ru_nvcsw)
//	cpu-ns/s      CPU time (user+system) of the process per second of wall time
//	late-pNN-ns   quantiles of wakeup lateness: p10, p25, p50, p90, p99, p999 and max
//
// and, with a timerlab toolchain, the runtime's own view from runtime/metrics (docs/metrics.md):
//
//	timer-wakeups/s  netpoll sleeps ended by a timer falling due, per second
//	timers-fired/s   timers fired per second
package wakeups

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"timerlab/bench/internal/timerstats"
)

// BenchmarkStaggeredTickers runs 1000 tickers of 10 ms started at random phases; each ticker's
// goroutine records how long after the tick's due time it received it.
func BenchmarkStaggeredTickers(b *testing.B) {
	const n, period = 1000, 10 * time.Millisecond
	b.Run(fmt.Sprintf("tickers=%d/period=%s", n, period), func(b *testing.B) {
		measure(b, n, func(quota *atomic.Int64, late *[]time.Duration) {
			time.Sleep(rand.N(period))
			t := time.NewTicker(period)
			defer t.Stop()
			for quota.Add(-1) >= 0 {
				due := <-t.C // a ticker sends the time the tick was due
				*late = append(*late, time.Since(due))
			}
		})
	})
}

// BenchmarkSubMsSleep runs 50 goroutines that each sleep for random durations of 20 to 1000 µs
// and record how much longer than asked each sleep took.
func BenchmarkSubMsSleep(b *testing.B) {
	const n = 50
	b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
		measure(b, n, func(quota *atomic.Int64, late *[]time.Duration) {
			for quota.Add(-1) >= 0 {
				d := 20*time.Microsecond + rand.N(980*time.Microsecond)
				start := time.Now()
				time.Sleep(d)
				*late = append(*late, time.Since(start)-d)
			}
		})
	})
}

// measure runs worker in n goroutines until they have shared b.N wakeups between them, taking
// one from quota before each, and reports the wakeup metrics.
func measure(b *testing.B, n int, worker func(quota *atomic.Int64, late *[]time.Duration)) {
	var quota atomic.Int64
	quota.Store(int64(b.N))
	lates := make([][]time.Duration, n)
	var wg sync.WaitGroup
	before := usage(b)
	b.ResetTimer()
	for i := range lates {
		wg.Go(func() { worker(&quota, &lates[i]) })
	}
	wg.Wait()
	b.StopTimer()
	after := usage(b)
	report(b, before, after, slices.Concat(lates...))
}

// sample is the process's resource usage at one instant.
type sample struct {
	wall   time.Time
	cpu    time.Duration
	vcsw   int64
	timers timerstats.Snapshot
}

func usage(b *testing.B) sample {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return sample{wall: time.Now(), cpu: cpu, vcsw: ru.Nvcsw, timers: timerstats.Read()}
}

func report(b *testing.B, before, after sample, late []time.Duration) {
	secs := after.wall.Sub(before.wall).Seconds()
	b.ReportMetric(float64(after.vcsw-before.vcsw)/secs, "vcsw/s")
	b.ReportMetric(float64(after.cpu-before.cpu)/secs, "cpu-ns/s")
	timerstats.Report(b, before.timers, after.timers, secs)
	slices.Sort(late)
	for _, q := range []struct {
		name string
		q    float64
	}{{"p10", 0.10}, {"p25", 0.25}, {"p50", 0.50}, {"p90", 0.90}, {"p99", 0.99}, {"p999", 0.999}, {"max", 1}} {
		b.ReportMetric(float64(quantile(late, q.q)), "late-"+q.name+"-ns")
	}
}

// quantile returns the q-quantile of sorted, by the nearest-rank method.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(q*float64(len(sorted)-1))]
}
