// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Export guts of the timer statistics for tests.

package runtime

// TimerLatenessBucket counts one firing d nanoseconds late on the current
// P, as unlockAndRun does, and returns the boundaries, in seconds, of the
// buckets of /sched/timers/lateness:seconds that the firing added to.
func TimerLatenessBucket(d int64) (lo, hi []float64) {
	metricsLock()
	initMetrics()
	metricsUnlock()

	mp := acquirem()
	h := &mp.p.ptr().timerStats.lateness
	before := *h
	countTimerFired(d, false, false)
	var added timerLateHist
	for i := range h {
		added[i] = h[i] - before[i]
	}
	releasem(mp)

	var v metricValue
	added.write(&v)
	hist := (*metricFloat64Histogram)(v.pointer)
	for i, n := range hist.counts {
		if n != 0 {
			lo = append(lo, hist.buckets[i])
			hi = append(hi, hist.buckets[i+1])
		}
	}
	return lo, hi
}

// ProcID returns the id of the P the caller runs on, which may have
// changed by the time it returns. It is not inlined: inlined into a
// test, the load of m.p could follow a preemption point after the load
// of g.m and find the M without a P.
//
//go:noinline
func ProcID() int {
	mp := acquirem()
	id := int(mp.p.ptr().id)
	releasem(mp)
	return id
}
