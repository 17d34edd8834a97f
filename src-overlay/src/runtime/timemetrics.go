// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Timer statistics, read through runtime/metrics under /sched/timers/.
//
// Every timer variant (heap, wheel, slack) counts the same events at the
// same places, so the figures compare across variants:
//
//   - started: a timer goes from not pending to pending (newTimer, Reset
//     of a stopped or fired timer, Sleep, a netpoll deadline).
//   - stopped: a Stop that caught the timer pending (Stop reported true).
//   - fired: a timer function ran. A channel timer whose send a
//     concurrent Stop or Reset squelched did not fire; its Stop counted.
//   - moved: a live timer taken from a destroyed P (GOMAXPROCS shrank).
//   - wakeups: a netpoll sleep with a timeout that ended with no I/O ready
//     at or after the timer deadline it waited for.
//   - lateness: for every firing, the time it ran minus its when.
//   - coalesced: a firing before the timer's hard deadline, when+slack: a
//     wakeup or a scheduler pass that came for something else ran it, so
//     it cost no wakeup of its own (slack only; the others fire no timer
//     before its deadline, when).
//   - cascades: a timer moved from a wheel slot to a finer level or into
//     the near heap (wheel only).
//   - slack: for every timer armed with slack, the slack it got (slack
//     only).
//
// Invariants:
//
//   - pp.timerStats is written only by the M that holds pp, with plain
//     stores: the timer paths take no atomic for statistics. A timer event
//     is counted on the P running the code that caused it, which need not
//     be the P whose set holds the timer (Stop from another P, timer
//     stealing), so only sums over Ps mean anything.
//   - Readers fold every P's counts under sched.lock, which keeps allp
//     still, as schedStatsAggregate does for p.goroutinesCreated. A count
//     read while its P runs may be a few events stale.
//   - A destroyed P's counts move into timerStatsRetired before it dies
//     (the world is stopped), so every counter only grows.
//   - Each firing adds one lateness sample: the histogram's total equals
//     fired. A timer never runs before its when, so the underflow bucket
//     stays empty unless that promise breaks.
//   - A wakeup happens on an M that holds no P, so wakeups are one atomic
//     counter, added once per sleep, off the timer paths.

package runtime

import "internal/runtime/atomic"

// timerStats are one P's timer counts. See the invariants above.
type timerStats struct {
	started   uint64
	stopped   uint64
	fired     uint64
	moved     uint64
	coalesced uint64
	cascades  uint64
	lateness  timerHist
	slack     timerHist
}

// timerHist counts durations in timeHistogram's buckets, with plain
// counters that only the owning P writes.
type timerHist struct {
	counts    [timeHistNumBuckets * timeHistNumSubBuckets]uint64
	underflow uint64
	overflow  uint64
}

// timerStatsRetired holds the counts of destroyed Ps.
var timerStatsRetired struct {
	started   atomic.Uint64
	stopped   atomic.Uint64
	fired     atomic.Uint64
	moved     atomic.Uint64
	coalesced atomic.Uint64
	cascades  atomic.Uint64
	lateness  timeHistogram
	slack     timeHistogram
}

// timerWakeups counts netpoll sleeps ended by a timer falling due.
var timerWakeups atomic.Uint64

// timerStatsHere returns the counts of the P running the caller, or nil
// when the caller holds no P. The count methods accept nil.
//
//go:nosplit
func timerStatsHere() *timerStats {
	if pp := getg().m.p.ptr(); pp != nil {
		return &pp.timerStats
	}
	return nil
}

//go:nosplit
func (s *timerStats) countStarted() {
	if s != nil {
		s.started++
	}
}

//go:nosplit
func (s *timerStats) countStopped() {
	if s != nil {
		s.stopped++
	}
}

//go:nosplit
func (s *timerStats) countMoved() {
	if s != nil {
		s.moved++
	}
}

//go:nosplit
func (s *timerStats) countCoalesced() {
	if s != nil {
		s.coalesced++
	}
}

//go:nosplit
func (s *timerStats) countCascaded() {
	if s != nil {
		s.cascades++
	}
}

// countFired counts one firing that ran late by lateness nanoseconds.
//
//go:nosplit
func (s *timerStats) countFired(lateness int64) {
	if s != nil {
		s.fired++
		s.lateness.record(lateness)
	}
}

// countSlack counts one timer armed with slack nanoseconds of slack.
//
//go:nosplit
func (s *timerStats) countSlack(slack int64) {
	if s != nil {
		s.slack.record(slack)
	}
}

// record counts one duration of d nanoseconds.
//
//go:nosplit
func (h *timerHist) record(d int64) {
	switch i := timeHistIndex(d); {
	case i < 0:
		h.underflow++
	case i >= len(h.counts):
		h.overflow++
	default:
		h.counts[i]++
	}
}

// retire moves s into timerStatsRetired and clears it.
// Called from (*p).destroy, with the world stopped.
func (s *timerStats) retire() {
	r := &timerStatsRetired
	r.started.Add(int64(s.started))
	r.stopped.Add(int64(s.stopped))
	r.fired.Add(int64(s.fired))
	r.moved.Add(int64(s.moved))
	r.coalesced.Add(int64(s.coalesced))
	r.cascades.Add(int64(s.cascades))
	s.lateness.retire(&r.lateness)
	s.slack.retire(&r.slack)
	*s = timerStats{}
}

// retire adds h's counts to r.
func (h *timerHist) retire(r *timeHistogram) {
	for i, n := range h.counts {
		if n != 0 {
			r.counts[i].Add(int64(n))
		}
	}
	r.underflow.Add(int64(h.underflow))
	r.overflow.Add(int64(h.overflow))
}

// timerStatsAggregate is the sum of the retired counts and every live P's.
type timerStatsAggregate struct {
	timerStats
	wakeups uint64
	live    uint64 // timers held in Ps' timer sets, not counting zombies
	zombies uint64 // stopped timers still held in Ps' timer sets
}

// compute populates a from the retired counts and every P's.
func (a *timerStatsAggregate) compute() {
	r := &timerStatsRetired
	a.started = r.started.Load()
	a.stopped = r.stopped.Load()
	a.fired = r.fired.Load()
	a.moved = r.moved.Load()
	a.coalesced = r.coalesced.Load()
	a.cascades = r.cascades.Load()
	a.lateness.load(&r.lateness)
	a.slack.load(&r.slack)
	a.wakeups = timerWakeups.Load()

	lock(&sched.lock)
	for _, pp := range allp {
		if pp == nil || pp.status == _Pdead {
			break
		}
		a.add(&pp.timerStats)
		held := uint64(pp.timers.len.Load())
		zombies := min(uint64(max(pp.timers.zombies.Load(), 0)), held)
		a.live += held - zombies
		a.zombies += zombies
	}
	unlock(&sched.lock)
}

// add adds one P's counts to a.
func (a *timerStatsAggregate) add(s *timerStats) {
	a.started += s.started
	a.stopped += s.stopped
	a.fired += s.fired
	a.moved += s.moved
	a.coalesced += s.coalesced
	a.cascades += s.cascades
	a.lateness.add(&s.lateness)
	a.slack.add(&s.slack)
}

// load sets h to the counts of r.
func (h *timerHist) load(r *timeHistogram) {
	for i := range h.counts {
		h.counts[i] = r.counts[i].Load()
	}
	h.underflow = r.underflow.Load()
	h.overflow = r.overflow.Load()
}

// add adds the counts of o to h.
func (h *timerHist) add(o *timerHist) {
	for i, n := range o.counts {
		h.counts[i] += n
	}
	h.underflow += o.underflow
	h.overflow += o.overflow
}

// write writes h to out as a float64 histogram in seconds, with
// timeHistogram's buckets.
func (h *timerHist) write(out *metricValue) {
	hist := out.float64HistOrInit(timeHistBuckets)
	hist.counts[0] = h.underflow
	copy(hist.counts[1:], h.counts[:])
	hist.counts[len(hist.counts)-1] = h.overflow
}

// addTimerMetrics adds the /sched/timers/ metrics to m.
// Called from initMetrics. Each compute function is a literal, as in
// initMetrics: the runtime allows no heap-allocated closures.
func addTimerMetrics(m map[string]metricData) {
	deps := makeStatDepSet(timerStatsDep)
	m["/sched/timers/started:timers"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.started
	}}
	m["/sched/timers/stopped:timers"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.stopped
	}}
	m["/sched/timers/fired:timers"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.fired
	}}
	m["/sched/timers/coalesced:timers"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.coalesced
	}}
	m["/sched/timers/cascades:timers"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.cascades
	}}
	m["/sched/timers/moved:timers"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.moved
	}}
	m["/sched/timers/wakeups:events"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.wakeups
	}}
	m["/sched/timers/live:timers"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.live
	}}
	m["/sched/timers/zombies:timers"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.zombies
	}}
	m["/sched/timers/lateness:seconds"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		in.timerStats.lateness.write(out)
	}}
	m["/sched/timers/slack:seconds"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		in.timerStats.slack.write(out)
	}}
}
