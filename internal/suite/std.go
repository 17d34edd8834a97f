package suite

// The standard library's own timer benchmarks, built from each toolchain's GOROOT, so that each
// variant runs the benchmarks of its own tree.

// StdTime is package time's timer benchmarks.
var StdTime = Workload{Name: "std-time", Pkg: "time", From: Std,
	sets: func(quick bool) []Set {
		sets := []Set{{Name: "std-time", Expect: pick(quick, stdTimeBenchmarks, quickTimeBenchmarks),
			Benchtime: pick(quick, "", "100ms"),
			About:     pick(quick, "Go's own timer benchmarks (src/time)", "Go's own timer benchmarks (src/time), a subset")}}
		if quick {
			return sets
		}
		// The operations alone, without the latency benchmarks (whose eleven sub-benchmarks take
		// most of std-time's time): the std-time of the first answer (selection.HeadlineSets). It runs only
		// when named, and never with std-time, whose benchmarks it repeats.
		// The latency benchmarks alone, the ones that show cross-P wakeups, at half the default
		// benchtime: about 10 s a cell, so that 4 variants × 6 rounds fit the few minutes a 16-core
		// machine is lent for. Only when named, never with std-time.
		return append(sets, Set{Name: "std-time-ops", Expect: opsTimeBenchmarks, OptIn: true,
			About: "Go's own timer benchmarks of single operations (src/time): start, stop, reset"},
			Set{Name: "std-time-latency", Expect: latencyTimeBenchmarks, OptIn: true, Benchtime: "500ms",
				About: "Go's own timer latency benchmarks (src/time): parallel timers, staggered tickers"})
	}, Headlines: []Headline{
		{Bench: "StartStop1000", Unit: "sec/op", Label: "start and stop 1000 timers", Use: "timers started and stopped"},
		{Bench: "Reset/impl=func", Unit: "sec/op", Label: "reset an AfterFunc timer", Use: "timers reset"},
	}}

// Go's own timer benchmarks in package time.
var stdTimeBenchmarks = []string{
	"AfterFunc1000", "After", "Stop", "StartStop1000", "Reset", "Sleep1000",
	"SimultaneousAfterFunc1000", "AdjustTimers10000", "Ticker", "TickerReset",
	"ParallelTimerLatency", "StaggeredTickerLatency",
}

// The benchmarks of stdTimeBenchmarks that time single operations on timers, for std-time-ops.
var opsTimeBenchmarks = []string{"Stop", "StartStop1000", "Reset", "AdjustTimers10000", "TickerReset"}

// The benchmarks of stdTimeBenchmarks that measure how late timers fire, for std-time-latency.
var latencyTimeBenchmarks = []string{"ParallelTimerLatency", "StaggeredTickerLatency"}

// The subset of stdTimeBenchmarks the quick matrix runs.
var quickTimeBenchmarks = []string{
	"AfterFunc1000", "Stop", "StartStop1000", "Reset", "AdjustTimers10000", "TickerReset",
	"ParallelTimerLatency", "StaggeredTickerLatency",
}

// StdContext is context.WithTimeout's churn (go1.27.4's context has no other timer benchmark); the
// quick matrix runs it at one concurrency.
var StdContext = Workload{Name: "std-context", Pkg: "context", From: Std,
	sets: func(quick bool) []Set {
		return []Set{{Name: "std-context", Expect: []string{"WithTimeout"},
			Sub:       pick(quick, "", level(Sizes{Param: "concurrency", Quick: []string{"40"}}.Pattern(true))),
			Benchtime: pick(quick, "", "100ms"), About: "context.WithTimeout churn (src/context)"}}
	}}

// StdNet is package net's deadline benchmarks on loopback TCP; not in the quick matrix.
var StdNet = Workload{Name: "std-net", Pkg: "net", From: Std,
	sets: func(quick bool) []Set {
		if quick {
			return nil
		}
		return []Set{{Name: "std-net", Expect: []string{"TCP4OneShotTimeout", "TCP4PersistentTimeout", "SetReadDeadline"},
			About: "net deadlines on loopback TCP (src/net)"}}
	}}
