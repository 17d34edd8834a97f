package suite

import (
	"fmt"

	"timerlab/bench/units"
	"timerlab/internal/lab"
)

// Timers is bench/timers: the cost of AfterFunc+Stop against the number of timers live, a burst of
// timers most of which are cancelled, and timers that all fire.
var Timers = Workload{Name: "timers", Pkg: "timerlab/bench/timers", From: Bench,
	Units: []string{units.NsTimer, units.CPUTimer, units.LiveBytes, units.StoppedBytes, units.StopP50, units.StopP99},
	sets: func(quick bool) []Set {
		sets := []Set{
			{Name: "timers", Expect: []string{costVsN, timeoutVsN, allocVsN, "Burst"},
				Sub: level(liveSizes.Pattern(quick), burstSize.Pattern(quick)), Benchtime: pick(quick, "1s", "100ms"),
				About: "AfterFunc+Stop cost with N long timers live, of a timer due among them and of a " +
					"timeout due before them, and the allocation floor under both; a burst of timers, most cancelled"},
			// TimeoutVsN with the collector off while timed: the timer set's own growth with N, apart
			// from the marking of the live timers that every variant pays. A set of its own, not a
			// benchmark of timers, so that results recorded before it existed still hold every
			// benchmark their sets expect.
			{Name: "timers-gcoff", Expect: []string{timeoutVsNGCOff}, Sub: level(liveSizes.Pattern(quick)),
				Benchtime: pick(quick, "1s", "100ms"),
				About:     "TimeoutVsN with the garbage collector off while timed: the timer set's own cost against N"},
			// The floor under CostVsN and TimeoutVsN: what AfterFunc+Stop costs when no timer set
			// does any work, measured by the null floor (variants.conf's null) beside the variants
			// whose floor it is. The only set the null floor can run, whose AfterFunc timers never
			// fire; a set of its own, named when wanted, since it repeats benchmarks of timers.
			{Name: "floor", Expect: []string{costVsN, timeoutVsN}, Sub: level(floorSizes.Pattern(quick)),
				Benchtime: pick(quick, "1s", "100ms"), OptIn: true, Floor: true,
				About: "AfterFunc+Stop with N long timers live, beside the null floor: what no timer set can remove"},
			// A Stop from another P while the owner handles a crowd of timers: a wheel Stop that took
			// the owner's timers lock would wait behind its cascade. At two Ps, whatever the machine:
			// one spins.
			{Name: "timers-crossstop", Expect: []string{"StopDuringCascade"}, Benchtime: pick(quick, "10x", "3x"), CPU: "2",
				About: "Stop, from another P, of timers whose owner moves a crowd of 100K timers (the wheel's " +
					"cascade of a full slot): quantiles of each Stop's time from when it was asked for"},
			// StoppedBytes on one P, as golang/go#75935 reports it: see the benchmark.
			{Name: "timers-stopped", Expect: []string{"StoppedBytes", "StoppedBytesSelf"}, Benchtime: pick(quick, "3x", "1x"), CPU: "1",
				About: "what a stopped AfterFunc keeps reachable: 20K stopped inside a heap of 120K, " +
					"their functions holding 4 KiB each, and referring to their Timer too (Self) (golang/go#75935)"},
		}
		if quick {
			return sets
		}
		return append(sets, Set{Name: "firing", Expect: []string{"FireAll"}, Sub: level(firingSizes.Pattern(quick)),
			Benchtime: "3x", About: "firing cost: N timers due over one second, all left to fire; CPU per timer from getrusage"})
	},
	Charts: []Chart{{Kind: VsSize, File: "cost-vs-n.svg", Title: "AfterFunc+Stop cost vs live timers",
		X: "live timers (N)", Y: "ns/op", Benchmarks: []string{costVsN, timeoutVsN, timeoutVsNGCOff, allocVsN},
		Param: liveSizes.Param, Unit: "sec/op", Scale: 1e9,
		Note: "CostVsN: a timer due among the live ones; TimeoutVsN: a timeout due before all of them; " +
			"TimeoutVsNGCOff: TimeoutVsN with the garbage collector off while timed, the timer set's own cost; " +
			"AllocVsN: allocating a timer-sized object with no timer, a lower bound under CostVsN and TimeoutVsN " +
			"(too low at large N; the floor itself: the null floor on the floor set, docs/wheel.md)."},
		// The crossover: the N from which a variant costs less than the baseline, if any.
		{Kind: RatioVsSize, File: "ratio-vs-n.svg", Title: "AfterFunc+Stop against " + lab.Baseline + " vs live timers",
			X: "live timers (N)", Y: "sec/op, variant / " + lab.Baseline, Benchmarks: []string{timeoutVsN, costVsN},
			Param: liveSizes.Param, Unit: "sec/op",
			Note: fmt.Sprintf("Each point is a variant's sec/op over %[1]s's at that N, the median of the ratios "+
				"of all pairs of their runs, as the verdict computes it; its bar is that ratio's 95%% confidence "+
				"interval (the U-test inverted), and a point without a bar had too few runs for one. The lines are "+
				"drawn a little apart about each N, so that their bars do not overlap. Below 1 the "+
				"variant is faster than %[1]s; a bar that crosses 1 is no significant difference. "+
				"TimeoutVsN: a timeout due before all the live timers; CostVsN: a timer due among them.", lab.Baseline)}},
	Headlines: []Headline{
		{Bench: timeoutVsN + "/N=1K", Unit: "sec/op", Label: "a timeout started and stopped, 1K timers live",
			Use: "timeouts among a few live timers"},
		{Bench: timeoutVsN + "/N=4M", Unit: "sec/op", Label: "a timeout started and stopped, 4M timers live",
			Use: "timeouts among millions of live timers"},
		{Bench: costVsN + "/N=4M", Unit: "sec/op", Label: "a timer started and stopped among 4M live ones",
			Use: "timers among millions of live ones"},
		{Bench: timeoutVsNGCOff + "/N=4M", Unit: "sec/op", Label: "the 4M timeout with the collector off: the timer set's own cost",
			Use: "timeouts among millions of live timers"},
		{Bench: "FireAll/timers=1M", Unit: units.CPUTimer, Label: "CPU per timer, 1M timers all left to fire",
			Use: "timers left to fire"},
		{Bench: "StopDuringCascade", Unit: units.StopP99, Label: "a Stop from another P while the owner moves 100K timers, p99",
			Use: "timers stopped from other Ps"},
	},
}

// The benchmarks of bench/timers that vary the number of timers live.
const (
	costVsN         = "CostVsN"
	timeoutVsN      = "TimeoutVsN"
	timeoutVsNGCOff = "TimeoutVsNGCOff"
	allocVsN        = "AllocVsN"
)

var (
	// liveSizes are the numbers of long timers live in the cost-vs-N benchmarks: in the full
	// matrix, bench/timers' liveSizes (TestLiveSizesMatchBench).
	liveSizes = Sizes{Param: "N", Full: []string{"1K", "10K", "100K", "1M", "4M"}, Quick: []string{"1K", "100K"}}
	// floorSizes are the numbers of long timers live in the floor set: the least and the most of
	// liveSizes.
	floorSizes = Sizes{Param: "N", Full: []string{"1K", "4M"}, Quick: []string{"1K", "100K"}}
	// burstSize is the number of timers BenchmarkBurst starts at once.
	burstSize = Sizes{Param: "timers", Full: []string{"1M"}, Quick: []string{"100K"}}
	// firingSizes are the numbers of timers BenchmarkFireAll lets fire.
	firingSizes = Sizes{Param: "timers", Full: []string{"100K", "1M"}}
)
