// Package timerstats reads the timer metrics that timerlab's toolchains add to runtime/metrics
// (/sched/timers/..., see docs/metrics.md), so that workloads can report what the runtime's timers
// did next to what the OS saw. With a toolchain that lacks them (pristine upstream) a Snapshot is
// empty and Report reports nothing, so that variant's results simply lack those units.
package timerstats

import (
	"runtime/metrics"
	"testing"
)

// Snapshot is one reading of the timer counters.
type Snapshot struct {
	ok      bool   // the toolchain has the timer metrics
	wakeups uint64 // /sched/timers/wakeups:events
	fired   uint64 // /sched/timers/fired:timers
}

// Read reads the timer counters.
func Read() Snapshot {
	s := []metrics.Sample{
		{Name: "/sched/timers/wakeups:events"},
		{Name: "/sched/timers/fired:timers"},
	}
	metrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			return Snapshot{}
		}
	}
	return Snapshot{ok: true, wakeups: s[0].Value.Uint64(), fired: s[1].Value.Uint64()}
}

// Report reports, per second of the secs between before and after, the wakeups that timers caused
// (timer-wakeups/s) and the timers that fired (timers-fired/s). Their ratio is how many timers one
// wakeup served.
func Report(b *testing.B, before, after Snapshot, secs float64) {
	if !before.ok || !after.ok || secs <= 0 {
		return
	}
	b.ReportMetric(float64(after.wakeups-before.wakeups)/secs, "timer-wakeups/s")
	b.ReportMetric(float64(after.fired-before.fired)/secs, "timers-fired/s")
}
