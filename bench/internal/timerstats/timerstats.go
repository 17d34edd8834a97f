// Package timerstats reads the timer metrics that timerlab's toolchains add to runtime/metrics
// (/sched/timers/..., see docs/metrics.md), so that workloads can report what the runtime's timers
// did next to what the OS saw. Each group of metrics may be absent: pristine upstream has none of
// them, toolchains built before the slack variant lack the slack metrics, and those built before
// deferred wakeups lack their counters. A figure whose metrics are absent is not reported, so that
// variant's results simply lack that unit; slack-ns alone is always reported, 0 without slack, so
// every variant has a place on a chart against slack.
package timerstats

import (
	"math"
	"runtime/metrics"
	"testing"
	"time"

	"timerlab/bench/units"
)

// The metrics read, in the order of Read's samples.
const (
	wakeupsMetric   = "/sched/timers/wakeups:events"
	firedMetric     = "/sched/timers/fired:timers"
	coalescedMetric = "/sched/timers/coalesced:timers"
	slackMetric     = "/sched/timers/slack:seconds"
	deferralsMetric = "/sched/timers/wake-deferrals:events"
	expiredMetric   = "/sched/timers/wake-deferrals-expired:events"
)

// Snapshot is one reading of the timer metrics.
type Snapshot struct {
	ok      bool   // the toolchain counts timer wakeups
	wakeups uint64 // /sched/timers/wakeups:events
	firedOK bool   // the toolchain counts fired timers (pwait2-slack's series counts only wakeups)
	fired   uint64 // /sched/timers/fired:timers

	slackOK   bool      // the toolchain has the slack metrics (heap and wheel report them as 0)
	coalesced uint64    // /sched/timers/coalesced:timers
	slack     []uint64  // /sched/timers/slack:seconds: Counts, a copy
	buckets   []float64 // its Buckets (boundaries, len(slack)+1)

	deferOK   bool   // the toolchain counts deferred wakeups (zero without slack)
	deferrals uint64 // /sched/timers/wake-deferrals:events
	expired   uint64 // /sched/timers/wake-deferrals-expired:events
}

// Read reads the timer metrics.
func Read() Snapshot {
	s := []metrics.Sample{{Name: wakeupsMetric}, {Name: firedMetric}, {Name: coalescedMetric}, {Name: slackMetric},
		{Name: deferralsMetric}, {Name: expiredMetric}}
	metrics.Read(s)
	var snap Snapshot
	if s[0].Value.Kind() == metrics.KindUint64 {
		snap.ok, snap.wakeups = true, s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		snap.firedOK, snap.fired = true, s[1].Value.Uint64()
	}
	if s[2].Value.Kind() == metrics.KindUint64 && s[3].Value.Kind() == metrics.KindFloat64Histogram {
		h := s[3].Value.Float64Histogram()
		snap.slackOK, snap.coalesced = true, s[2].Value.Uint64()
		snap.slack, snap.buckets = append([]uint64(nil), h.Counts...), h.Buckets
	}
	if s[4].Value.Kind() == metrics.KindUint64 && s[5].Value.Kind() == metrics.KindUint64 {
		snap.deferOK, snap.deferrals, snap.expired = true, s[4].Value.Uint64(), s[5].Value.Uint64()
	}
	return snap
}

// Report reports, per second of the secs between before and after, the wakeups that timers caused
// (timer-wakeups/s), the timers that fired (timers-fired/s) and those of them that a wakeup for
// another timer served before their hard deadline (coalesced/s); the times a P kept the
// goroutines its timers readied rather than wake an idle P for them (wake-deferrals/s), and those
// of them that woke one after all (deferrals-expired/s); and the median slack granted to the
// timers armed in between (slack-ns, see Slack). The ratio of timers-fired/s to timer-wakeups/s is
// how many timers one wakeup served.
func Report(b *testing.B, before, after Snapshot, secs float64) {
	b.ReportMetric(float64(Slack(before, after)), units.Slack)
	if secs <= 0 {
		return
	}
	if rate, ok := WakeupRate(before, after, secs); ok {
		b.ReportMetric(rate, units.TimerWakeups)
	}
	if before.firedOK && after.firedOK && secs > 0 {
		b.ReportMetric(float64(after.fired-before.fired)/secs, units.TimersFired)
	}
	if before.slackOK && after.slackOK {
		b.ReportMetric(float64(after.coalesced-before.coalesced)/secs, units.Coalesced)
	}
	if before.deferOK && after.deferOK {
		b.ReportMetric(float64(after.deferrals-before.deferrals)/secs, units.WakeDeferrals)
		b.ReportMetric(float64(after.expired-before.expired)/secs, units.DeferralsExpired)
	}
}

// WakeupRate returns the timer wakeups per second of the secs between before and after, and
// whether the toolchain counts them.
func WakeupRate(before, after Snapshot, secs float64) (float64, bool) {
	if !before.ok || !after.ok || secs <= 0 {
		return 0, false
	}
	return float64(after.wakeups-before.wakeups) / secs, true
}

// Slack returns the median slack granted to the timers armed with slack between before and after:
// the median of the slack histogram's growth. It is 0 when no timer got slack or the toolchain
// lacks the metric.
func Slack(before, after Snapshot) time.Duration {
	if !before.slackOK || !after.slackOK || len(before.slack) != len(after.slack) {
		return 0
	}
	delta := make([]uint64, len(after.slack))
	for i := range delta {
		delta[i] = after.slack[i] - before.slack[i]
	}
	return time.Duration(math.Round(median(delta, after.buckets) * 1e9))
}

// median returns the median of a histogram of counts in buckets [buckets[i], buckets[i+1]),
// interpolated linearly within the bucket that holds it (so a single filled bucket gives its
// middle); an infinite bound is replaced by the bucket's finite one. It is 0 for an empty
// histogram.
func median(counts []uint64, buckets []float64) float64 {
	var total uint64
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	half := float64(total) / 2
	var below float64
	for i, c := range counts {
		if c == 0 || below+float64(c) < half {
			below += float64(c)
			continue
		}
		lo, hi := buckets[i], buckets[i+1]
		if math.IsInf(lo, -1) {
			lo = hi
		}
		if math.IsInf(hi, 1) {
			hi = lo
		}
		return lo + (hi-lo)*(half-below)/float64(c)
	}
	return 0
}
