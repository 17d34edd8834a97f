// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Timer statistics, read through runtime/metrics under /sched/timers/.
//
// Every timer variant (heap, wheel, slack) counts the same events at the
// same places. So the figures compare across variants:
//
//   - started: a timer goes from not pending to pending. That is newTimer,
//     a Reset of a stopped or fired timer, a Sleep, or a netpoll deadline.
//   - stopped: a Stop that caught the timer pending (Stop reported true).
//   - fired: a timer function ran. A channel timer whose send a concurrent
//     Stop or Reset squelched did not fire. Its Stop counted.
//   - moved: a live timer taken from a destroyed P (GOMAXPROCS shrank).
//   - wakeups: a netpoll sleep with a timeout that ended with no I/O ready,
//     at or after the timer deadline it waited for.
//   - lateness: for every firing, the time it ran minus its when.
//   - coalesced: a firing before the timer's hard deadline, when+slack. A
//     wakeup or a scheduler pass that came for something else ran it. So it
//     cost no wakeup of its own. Only slack counts it: the others fire no
//     timer before its deadline, when.
//   - cascades: a timer moved from a wheel slot to a finer level or into
//     the near heap (wheel only).
//   - slack: for every timer that fires with slack, the slack it got (slack
//     only).
//   - wake-deferrals: a P began to keep the goroutines its timers readied,
//     rather than wake an idle P for them (slack only; see
//     timeslack_wake.go).
//   - wake-deferrals-expired: a P, or sysmon for it, woke an idle P after
//     all. Goroutines were still queued when the deferral ended. The
//     difference from wake-deferrals is the deferrals that saved another
//     thread's wakeup.
//
// Invariants:
//
//   - pp.timerStats is written only by the M that holds pp, with plain
//     stores. The timer paths take no atomic for statistics. An event is
//     counted on the P running the code that caused it. That need not be
//     the P whose set holds the timer: a Stop may come from another P, and
//     Ps steal timers. So only sums over Ps mean anything. Every counting
//     caller holds a P (timerStatsHere), so counting takes no nil test.
//   - Readers fold every P's counts under sched.lock, which keeps allp
//     still, as schedStatsAggregate does for p.goroutinesCreated. A count
//     read while its P runs may be a few events stale.
//   - A destroyed P's counts move into timerStatsRetired before it dies.
//     The world is stopped, and procresize holds sched.lock. Readers load
//     the retired counts under sched.lock too. So a P's counts are in
//     exactly one of the two sums, and every counter only grows.
//   - Each firing adds one lateness sample and nothing else. fired is the
//     lateness histogram's total, summed when read. A timer never runs
//     before its when. So the bucket of negative lateness stays empty
//     unless that promise breaks.
//   - The lateness histogram has power-of-two buckets (timerLateHist). A
//     firing then costs one bit-length and one increment. The slack
//     histogram, counted when a timer with slack fires, has
//     timeHistogram's finer buckets.
//   - A wakeup happens on an M that holds no P. So wakeups are one atomic
//     counter, added once per sleep, off the timer paths.

package runtime

import (
	"internal/runtime/atomic"
	"internal/runtime/sys"
)

// timerStats are one P's timer counts. See the invariants above.
type timerStats struct {
	started   uint64
	stopped   uint64
	resets    uint64
	moved     uint64
	coalesced uint64
	cascades  uint64
	lateness  timerLateHist // fired is its total
	slack     timerHist

	wakeDeferrals uint64
}

// timerLateBuckets is the number of buckets of a timerLateHist.
const timerLateBuckets = 64

// A timerLateHist counts lateness d in bucket sys.Len64(uint64(d)|1)-1, a
// bit-length with no branch. Bucket 0 holds d in [0, 2) nanoseconds. Bucket
// k in 1..62 holds d in [2^k, 2^(k+1)). Bucket 63 holds every negative d,
// whose top bit is set. Only the owning P writes it, with plain increments.
type timerLateHist [timerLateBuckets]uint64

// timerLateHistBuckets are the boundaries, in seconds, of the metric a
// timerLateHist is written to: -Inf, 0, 2ns, 4ns, ..., 2^62ns, +Inf. Its
// first bucket holds negative lateness.
var timerLateHistBuckets []float64

// timerHist counts durations in timeHistogram's buckets. Only the owning P
// writes its plain counters.
type timerHist struct {
	counts    [timeHistNumBuckets * timeHistNumSubBuckets]uint64
	underflow uint64
	overflow  uint64
}

// timerStatsRetired holds the counts of destroyed Ps.
var timerStatsRetired struct {
	lateness  [timerLateBuckets]atomic.Uint64
	started   atomic.Uint64
	stopped   atomic.Uint64
	resets    atomic.Uint64
	moved     atomic.Uint64
	coalesced atomic.Uint64
	cascades  atomic.Uint64
	slack     timeHistogram

	wakeDeferrals atomic.Uint64
}

// timerWakeups counts netpoll sleeps ended by a timer falling due.
var timerWakeups atomic.Uint64

// timerWakeDeferralsExpired counts deferred wakeups that woke an idle P
// after all. sysmon, which holds no P, counts some of them. So it is one
// atomic counter, added off the timer paths.
var timerWakeDeferralsExpired atomic.Uint64

// timerStatsHere returns the timer counts of the P running the caller.
// Every caller holds a P. The counts are taken on goroutines (time.Timer's
// methods, Sleep, netpoll deadlines, the scavenger's and the tracer's
// sleeps). They are taken in check and its cascades, which run in the
// scheduler on a P. And they are taken in take, which procresize calls on
// the P it keeps. maybeAdd makes the same assumption. A caller without a P
// would fault here on the nil P rather than lose a count. So the hot paths
// pay no nil test. modify and stop, the hottest, spell the same expression
// out (getg().m.p.ptr().timerStats). That leaves the compiler no inline
// mark to keep as a NOP. A start costs the test of pending, two loads and
// an increment. A stop costs the same, with the test made an add of 0 or 1.
//
//go:nosplit
func timerStatsHere() *timerStats {
	return &getg().m.p.ptr().timerStats
}

// countTimerFired counts one firing that ran late by lateness nanoseconds.
// It counts coalesced if the firing came before the timer's hard deadline.
// It counts on the P running the caller, unlockAndRun, whose race
// annotations use that P too. This is the firing path's only statistics
// cost: a bit-length and an increment. Without slack, coalesced is the
// constant false.
//
//go:nosplit
func countTimerFired(lateness int64, coalesced, rearmed bool) {
	s := timerStatsHere()
	s.lateness[sys.Len64(uint64(lateness)|1)-1]++ // see timerLateHist
	if coalesced {
		s.coalesced++
	}
	if rearmed {
		s.started++ // a periodic timer's next tick is scheduled
	}
}

// countTimerArmed counts a timer set to fire: a reset if it was
// pending, else a start. The caller holds t's lock, for a t that was
// pending if pending.
func countTimerArmed(pending bool) {
	s := timerStatsHere()
	if pending {
		s.resets++
	} else {
		s.started++
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
	s.lateness.retire(&r.lateness)
	r.started.Add(int64(s.started))
	r.stopped.Add(int64(s.stopped))
	r.resets.Add(int64(s.resets))
	r.moved.Add(int64(s.moved))
	r.coalesced.Add(int64(s.coalesced))
	r.cascades.Add(int64(s.cascades))
	r.wakeDeferrals.Add(int64(s.wakeDeferrals))
	s.slack.retire(&r.slack)
	*s = timerStats{}
}

// retire adds h's counts to r.
func (h *timerLateHist) retire(r *[timerLateBuckets]atomic.Uint64) {
	for i, n := range h {
		if n != 0 {
			r[i].Add(int64(n))
		}
	}
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
	fired   uint64 // the lateness histogram's total
	wakeups uint64
	expired uint64 // deferred wakeups that woke an idle P after all
	live    uint64 // timers held in Ps' timer sets, not counting zombies
	zombies uint64 // stopped timers still held in Ps' timer sets
}

// compute populates a from the retired counts and every P's.
func (a *timerStatsAggregate) compute() {
	a.wakeups = timerWakeups.Load()
	// Loaded before the deferrals it ends, so that it never exceeds them. A
	// deferral is counted before the store of wake.at that its expiry's
	// compare-and-swap observes.
	a.expired = timerWakeDeferralsExpired.Load()

	lock(&sched.lock)
	r := &timerStatsRetired
	a.lateness.load(&r.lateness)
	a.started = r.started.Load()
	a.stopped = r.stopped.Load()
	a.resets = r.resets.Load()
	a.moved = r.moved.Load()
	a.coalesced = r.coalesced.Load()
	a.cascades = r.cascades.Load()
	a.wakeDeferrals = r.wakeDeferrals.Load()
	a.slack.load(&r.slack)
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

	for _, n := range a.lateness {
		a.fired += n
	}
}

// pending returns the timers pending: started less stopped and fired.
// Each P's counts are read while it may be counting, so the difference
// may be briefly off; it is never below 0.
func (a *timerStatsAggregate) pending() uint64 {
	if done := a.stopped + a.fired; done < a.started {
		return a.started - done
	}
	return 0
}

// add adds one P's counts to a.
func (a *timerStatsAggregate) add(s *timerStats) {
	a.lateness.add(&s.lateness)
	a.started += s.started
	a.stopped += s.stopped
	a.resets += s.resets
	a.moved += s.moved
	a.coalesced += s.coalesced
	a.cascades += s.cascades
	a.wakeDeferrals += s.wakeDeferrals
	a.slack.add(&s.slack)
}

// load sets h to the counts of r.
func (h *timerLateHist) load(r *[timerLateBuckets]atomic.Uint64) {
	for i := range h {
		h[i] = r[i].Load()
	}
}

// add adds the counts of o to h.
func (h *timerLateHist) add(o *timerLateHist) {
	for i, n := range o {
		h[i] += n
	}
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

// write writes h to out as a float64 histogram in seconds, with the
// boundaries timerLateHistBuckets.
func (h *timerLateHist) write(out *metricValue) {
	hist := out.float64HistOrInit(timerLateHistBuckets)
	hist.counts[0] = h[timerLateBuckets-1]
	copy(hist.counts[1:], h[:timerLateBuckets-1])
}

// timerLateHistMetricsBuckets returns the boundaries of timerLateHistBuckets.
func timerLateHistMetricsBuckets() []float64 {
	b := make([]float64, timerLateBuckets+1)
	b[0] = float64NegInf()
	b[1] = 0
	for k := 1; k < timerLateBuckets-1; k++ {
		b[k+1] = float64(uint64(1)<<k) / 1e9
	}
	b[timerLateBuckets] = float64Inf()
	return b
}

// addTimerMetrics adds the /sched/timers/ metrics to m.
// Called from initMetrics. Each compute function is a literal, as in
// initMetrics: the runtime allows no heap-allocated closures.
func addTimerMetrics(m map[string]metricData) {
	timerLateHistBuckets = timerLateHistMetricsBuckets()
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
	// The metrics golang/go#75956 proposes, from the same counters:
	// total is started, expired is fired, and pending what is left.
	m["/sched/timers/classes/total:timers"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.started
	}}
	m["/sched/timers/classes/expired:timers"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.fired
	}}
	m["/sched/timers/classes/stopped:timers"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.stopped
	}}
	m["/sched/timers/classes/pending:timers"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.pending()
	}}
	m["/sched/timers/resets:resets"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.resets
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
	m["/sched/timers/wake-deferrals:events"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.wakeDeferrals
	}}
	m["/sched/timers/wake-deferrals-expired:events"] = metricData{deps: deps, compute: func(in *statAggregate, out *metricValue) {
		out.kind, out.scalar = metricKindUint64, in.timerStats.expired
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
