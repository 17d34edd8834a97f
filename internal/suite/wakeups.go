package suite

import (
	"fmt"
	"strings"

	"timerlab/bench/units"
	"timerlab/internal/lab"
)

// The benchmarks of bench/wakeups. One op is one wakeup: a tick received, a sleep.
const (
	// Tickers is 1000 tickers of 10 ms at random phases.
	Tickers = "StaggeredTickers"
	// Sleeps is 50 goroutines sleeping 20-1000 µs.
	Sleeps = "SubMsSleep"
	// TickersOneP is Tickers at GOMAXPROCS=1 from the binary's start: what receiving the ticks costs
	// with one thread, the floor under the tickers' CPU at any GOMAXPROCS.
	TickersOneP = "StaggeredTickersOneP"
	// Spread is golang/go#53824's workload: 50 goroutines each sleeping its own duration, spread
	// over 20-1000 µs. One op is one sleep.
	Spread = "SpreadSubMsSleep"
	// Coarse is a program that never asked for sub-millisecond precision: 2000 goroutines waiting on
	// timeouts of 1-50 ms, half of which fire, and 100 tickers of 10 ms. One op is one wait.
	Coarse = "CoarseTimeouts"
)

// Wakeups is bench/wakeups: frequent short timers, what their wakeups cost the process and how late
// they wake their goroutines. The one workload the slack policy changes the figures of: the
// aliases of variants.conf (one toolchain at several GODEBUG settings) run its sweep sets, wakeups
// and precision.
var Wakeups = Workload{Name: "wakeups", Pkg: "timerlab/bench/wakeups", From: Bench,
	Units: append([]string{units.VCSW, units.CPU, units.CPUOp, units.Slack, units.TimerWakeups, units.TimersFired, units.Coalesced,
		units.WakeDeferrals, units.DeferralsExpired, units.IdealWakeups, units.CoalesceEff, units.RatioP50,
		units.RatioP99, units.CPUWakeup, units.Expired}, lateUnits()...),
	sets: func(quick bool) []Set {
		benchtime := pick(quick, "1s", "300ms")
		return []Set{
			{Name: "wakeups", Expect: []string{Tickers, Sleeps}, Benchtime: benchtime, Sweep: true,
				About: "1000 staggered 10ms tickers; 50 goroutines sleeping 20-1000us: wakeups, CPU, lateness, coalescing"},
			// The floor under what any wakeup policy can save on the tickers: a set of its own, so that
			// results recorded before it still hold every benchmark of wakeups, and not a sweep set:
			// the floor is the work of receiving the ticks, which the slack policy does not change.
			{Name: "wakeups-1p", Expect: []string{TickersOneP}, Benchtime: benchtime, CPU: "1",
				About: "the 1000 staggered tickers with GOMAXPROCS=1: the CPU of receiving the ticks, the floor under any wakeup policy"},
			// golang/go#53824's question, both sides of it: what precise sleeps cost where a program asks
			// for them, and where it never did. A set of its own, so that results recorded before it
			// still hold every benchmark of wakeups; a sweep set, since the policy is what it measures.
			{Name: "precision", Expect: []string{Spread, Coarse}, Benchtime: benchtime, Sweep: true,
				About: "50 goroutines each sleeping its own 20-1000us (golang/go#53824's workload); 2000 timeouts of " +
					"1-50ms and 100 10ms tickers: CPU per wakeup, wakeups, precision"},
		}
	},
	Headlines: []Headline{
		{Bench: Tickers, Unit: units.VCSW, Label: "1000 staggered 10 ms tickers: context switches per second",
			Use: "many periodic tickers"},
		{Bench: Tickers, Unit: units.CPU, Label: "1000 staggered 10 ms tickers: CPU per second", Use: "many periodic tickers"},
		{Bench: Tickers, Unit: units.LateP99, Label: "1000 staggered 10 ms tickers: p99 lateness",
			Use: "tickers that must fire on time"},
		{Bench: Sleeps, Unit: units.RatioP50, Label: "sleeps of 0.1-1 ms: median actual / requested",
			Use: "short sleeps that must end on time"},
		// A policy whose sleeps end on time runs more of them a second, each with its wakeup: per
		// second, its wakeups count its precision twice.
		{Bench: Sleeps, Unit: units.TimerWakeups, PerOp: true, Label: "sleeps of 20 µs-1 ms: timer wakeups per sleep",
			Use: "short sleeps", PriceOf: units.RatioP50, Price: "sleeps that end on time"},
		{Bench: Sleeps, Unit: units.CPUOp, Label: "sleeps of 20 µs-1 ms: CPU per sleep", Use: "short sleeps"},
		// golang/go#53824's figures, per second as that issue gives them: a policy whose sleeps end on
		// time runs more of them a second, so its wakeups a second are the price of that precision.
		{Bench: Spread, Unit: units.CPUOp, Label: "50 steady sleeps of 20 µs-1 ms: CPU per sleep (golang/go#53824's CPU per wakeup)",
			Use: "goroutines polling at sub-millisecond periods"},
		{Bench: Spread, Unit: units.TimerWakeups, Label: "50 steady sleeps of 20 µs-1 ms: timer wakeups per second",
			Use: "goroutines polling at sub-millisecond periods", PriceOf: units.RatioP50, Price: "sleeps that end on time"},
		{Bench: Spread, Unit: units.RatioP50, Label: "50 steady sleeps of 0.1-1 ms: median actual / requested",
			Use: "polling loops whose sleeps must end on time"},
		// The program that never asked for precision: what a policy costs it, with nothing to gain.
		{Bench: Coarse, Unit: units.CPU, Label: "2000 timeouts of 1-50 ms and 100 10 ms tickers: CPU per second",
			Use: "programs whose timeouts need no sub-millisecond precision"},
		{Bench: Coarse, Unit: units.TimerWakeups, Label: "2000 timeouts of 1-50 ms and 100 10 ms tickers: timer wakeups per second",
			Use: "programs whose timeouts need no sub-millisecond precision"},
		{Bench: Coarse, Unit: units.VCSW, Label: "2000 timeouts of 1-50 ms and 100 10 ms tickers: context switches per second",
			Use: "programs whose timeouts need no sub-millisecond precision"},
	},
	Charts: append([]Chart{latenessCDF(Tickers), latenessCDF(Sleeps)}, append(vsSlackCharts(Tickers), vsSlackCharts(Sleeps)...)...),
	Summary: &Summary{Title: "Slack sweep",
		Intro: fmt.Sprintf("The variants with timer slack (built in, or set by their GODEBUG, as pwait2-slack's), the "+
			"slack sweep's points (slack's toolchain under other policies) and the other aliases (pwait2: upstream's "+
			"proposal of precise waits, golang/go#53824, the peer slack is measured against), each against %[1]s of the "+
			"same run, %[1]s first. A ratio is variant / %[1]s with its 95%% interval and `~` where not significant, as "+
			"in the verdict; another figure is a median with its 95%% interval ((—): too few runs for one). The "+
			"tickers are %[2]s, the sleeps %[3]s, the steady sleeps "+
			"(steady) %[4]s, golang/go#53824's workload, and the coarse timeouts (coarse) %[5]s, a program that never "+
			"asked for sub-millisecond precision, both of the precision set.",
			lab.Baseline, Tickers, Sleeps, Spread, Coarse),
		Columns: []Column{
			{Head: "tickers: slack", Kind: Slack, Bench: Tickers,
				About: "the median slack granted (`slack-ns`), to two digits: it is read from a histogram bucket 12.5% wide"},
			{Head: "vcsw/s", Kind: Ratio, Bench: Tickers, Unit: units.VCSW},
			{Head: "CPU", Kind: Ratio, Bench: Tickers, Unit: units.CPU},
			{Head: "CPU on 1 P", Kind: Ratio, Bench: TickersOneP, Over: Tickers, Unit: units.CPU,
				About: fmt.Sprintf("the variant's CPU for the same tickers with GOMAXPROCS=1 (%s) over %s's at the "+
					"run's GOMAXPROCS: the floor under the CPU any wakeup policy can reach", TickersOneP, lab.Baseline)},
			{Head: "late p99 (% of period)", Kind: PeriodShare, Bench: Tickers, Unit: units.LateP99, Param: "period"},
			{Head: "ideal/wakeup", Kind: SlackValue, Bench: Tickers, Unit: units.CoalesceEff,
				About: "the fewest wakeups that serve every tick in its window, per timer wakeup (the `coalesce-eff` unit). " +
					"Not bounded by 1, so not an efficiency: a timer wakeup is a netpoll sleep that a timer ended, and " +
					"most ticks fire on threads already awake for other work; — where no slack is granted"},
			{Head: "sleeps: slack", Kind: Slack, Bench: Sleeps},
			{Head: "sleep p50 (actual/requested)", Kind: Value, Bench: Sleeps, Unit: units.RatioP50,
				About: fmt.Sprintf("the median of actual / requested duration of the sleeps of at least 100 µs: itself "+
					"a ratio of durations (1: on time), not a variant's ratio to %s", lab.Baseline)},
			{Head: "timer wakeups/s", Kind: Ratio, Bench: Sleeps, Unit: units.TimerWakeups},
			{Head: "CPU/s", Kind: Ratio, Bench: Sleeps, Unit: units.CPU,
				About: "each goroutine sleeps again as soon as it wakes, so a policy whose sleeps end sooner runs more " +
					"of them a second: CPU/s is the CPU at that rate"},
			{Head: "CPU per sleep", Kind: Ratio, Bench: Sleeps, Unit: units.CPUOp,
				About: "what one sleep costs (`cpu-ns/op`): the figure that compares the policies' CPU"},
			{Head: "steady: CPU per sleep", Kind: Ratio, Bench: Spread, Unit: units.CPUOp,
				About: "golang/go#53824's CPU per wakeup"},
			{Head: "steady: timer wakeups/s", Kind: Ratio, Bench: Spread, Unit: units.TimerWakeups},
			{Head: "steady: p50 (actual/requested)", Kind: Value, Bench: Spread, Unit: units.RatioP50},
			{Head: "coarse: CPU/s", Kind: Ratio, Bench: Coarse, Unit: units.CPU},
			{Head: "coarse: timer wakeups/s", Kind: Ratio, Bench: Coarse, Unit: units.TimerWakeups},
			{Head: "coarse: vcsw/s", Kind: Ratio, Bench: Coarse, Unit: units.VCSW},
		}},
}

func lateUnits() []string {
	var out []string
	for _, q := range units.Lateness {
		out = append(out, q.Unit)
	}
	return out
}

// latenessCDF charts the distribution of wakeup lateness of bench from its quantile figures.
func latenessCDF(bench string) Chart {
	return Chart{Kind: Quantiles, File: strings.ToLower(bench) + "-lateness-cdf.svg", Title: bench + ": lateness CDF",
		X: "lateness (µs)", Y: "fraction of wakeups", Benchmarks: []string{bench}, Quantiles: units.Lateness,
		Scale: 1e6, Floor: 0.01,
		Note: "Quantiles p10, p25, p50, p90, p99, p99.9 and max of each variant (medians over the runs); " +
			"lateness below 10 ns is drawn at 10 ns."}
}

// vsSlackCharts are bench's figures charted against the slack each variant granted: the slack of
// a variant is the median of its slack-ns in that benchmark, so that a percentage policy or the
// default one has a place too.
func vsSlackCharts(bench string) []Chart {
	var charts []Chart
	for _, f := range []struct {
		unit, label, file string
		scale             float64
	}{
		{units.TimerWakeups, "timer wakeups/s", "timer-wakeups", 1},
		{units.VCSW, "voluntary context switches/s", "vcsw", 1},
		{units.CPU, "CPU seconds per second", "cpu", 1},
		{units.LateP50, "p50 lateness (µs)", "late-p50", 1e6},
		{units.LateP99, "p99 lateness (µs)", "late-p99", 1e6},
		// Ideal wakeups per timer wakeup judges how a variant uses the slack it grants, so it has no
		// meaning without slack: with none, the ideal is one wakeup per distinct due instant, and the
		// figure only says how many dues one wakeup happened to find. It is not bounded by 1 (see the
		// sweep's intro).
		{units.CoalesceEff, "ideal wakeups per timer wakeup", "coalesce-eff", 1},
	} {
		c := Chart{Kind: VsSlack, File: strings.ToLower(bench) + "-" + f.file + "-vs-slack.svg",
			Title: bench + ": " + f.label + " vs timer slack", X: "median timer slack granted (µs)", Y: f.label,
			Benchmarks: []string{bench}, Unit: f.unit, Scale: f.scale, SlackOnly: f.unit == units.CoalesceEff,
			Note: "Slack is the median of the slack the runtime granted the workload's timers (`slack-ns`, from " +
				"/sched/timers/slack:seconds), medians over the runs; "}
		if c.SlackOnly {
			c.Note += "variants that granted no slack are left out."
		} else {
			c.Note += "variants without slack or without the metric are at 0."
		}
		charts = append(charts, c)
	}
	return charts
}
