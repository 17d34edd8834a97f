// Package units names the figures timerlab's workloads report besides the testing package's own
// (ns/op, B/op, allocs/op): the units they pass to testing.B.ReportMetric. The workloads of this
// module report under these names, and the harness (timerlab's internal/suite, whose workload
// descriptors chart and tabulate them) reads them under the same names, so a figure is named once.
//
// The harness reads the figures as benchstat does, with each unit tidied (golang.org/x/perf/benchunit):
// a unit holding "ns" is read in seconds, "cpu-ns/s" as "cpu-sec/s" and "late-p99-ns" as "late-p99-sec".
package units

// Figures of any workload that sees the process's usage (bench/internal/rusage).
const (
	VCSW     = "vcsw/s"       // voluntary context switches of the process per wall second
	CPU      = "cpu-ns/s"     // CPU time (user + system) per wall second
	CPUTimer = "cpu-ns/timer" // FireAll: CPU time of the process per timer
	CPUOp    = "cpu-ns/op"    // bench/wakeups: CPU time of the process per op (a tick received, a sleep)
)

// Figures from the runtime's timer metrics (bench/internal/timerstats, docs/metrics.md).
const (
	Slack            = "slack-ns" // median slack granted to the timers armed in the run; 0 without slack
	TimerWakeups     = "timer-wakeups/s"
	TimersFired      = "timers-fired/s"
	Coalesced        = "coalesced/s"
	WakeDeferrals    = "wake-deferrals/s"
	DeferralsExpired = "deferrals-expired/s"
)

// Figures of bench/wakeups.
const (
	IdealWakeups = "ideal-wakeups/s" // StaggeredTickers: the fewest wakeups that serve every tick in its window
	CoalesceEff  = "coalesce-eff"    // IdealWakeups / TimerWakeups: not bounded by 1 (bench/wakeups)
	RatioP50     = "ratio-p50"       // SubMsSleep, SpreadSubMsSleep: quantiles of actual / requested sleep
	RatioP99     = "ratio-p99"
	// SpreadSubMsSleep: CPU time of the process per timer wakeup (TimerWakeups), where the toolchain
	// counts them.
	CPUWakeup = "cpu-ns/timer-wakeup"
)

// Quantiles of wakeup lateness (bench/wakeups), nearest rank: how long after its due time each
// goroutine ran.
const (
	LateP10  = "late-p10-ns"
	LateP25  = "late-p25-ns"
	LateP50  = "late-p50-ns"
	LateP90  = "late-p90-ns"
	LateP99  = "late-p99-ns"
	LateP999 = "late-p999-ns"
	LateMax  = "late-max-ns"
)

// A Quantile is one quantile of lateness and its unit.
type Quantile struct {
	Unit string
	Q    float64
}

// Lateness are the quantiles of lateness bench/wakeups reports, in order.
var Lateness = []Quantile{{LateP10, 0.10}, {LateP25, 0.25}, {LateP50, 0.50}, {LateP90, 0.90}, {LateP99, 0.99},
	{LateP999, 0.999}, {LateMax, 1}}

// Figures of bench/timers and bench/httptimeout.
const (
	LiveBytes    = "live-B/timer"   // LiveBytes: heap bytes live per live timer
	StoppedBytes = "kept-B/stopped" // StoppedBytes: heap bytes a stopped timer keeps live
	NsTimer      = "ns/timer"       // Burst: wall time per timer of the burst
	Expired      = "expired/op"     // HTTPWithTimeout: requests whose context expired, per request; CoarseTimeouts (bench/wakeups): timeouts that fired, per wait
	// StopDuringCascade: quantiles of the time of a Stop, from another P, of a timer whose owner is
	// moving a crowd of timers, from when the Stop was asked for.
	StopP50 = "stop-p50-ns"
	StopP99 = "stop-p99-ns"
)
