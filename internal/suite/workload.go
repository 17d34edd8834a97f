package suite

import (
	"fmt"
	"slices"
	"strings"

	"timerlab/bench/units"
)

// A Workload is one package of benchmarks (or, for golang.org/x/benchmarks, one tool's) and all
// that timerlab says of it, in one place: the sets that run it in the full and the quick matrix,
// each set's benchmarks and the sizes it selects (its -test.bench pattern is derived from them),
// the figures its benchmarks report besides the testing package's (units named in
// timerlab/bench/units, which the workloads report under), and the charts and summary rows the
// report draws from them. docs/benchmarks.md describes the same sets for readers (TestDocs keeps
// them in step).
type Workload struct {
	Name string // what the docs call it
	Pkg  string // the package of its sets; "" for golang.org/x/benchmarks (see XBench)
	From Module
	// Units are the figures its benchmarks report besides the testing package's, as reported.
	Units []string
	// Charts are the report's charts of its results, in order; one with no point is left out.
	Charts []Chart
	// Summary is the report's table of its results, one row per variant it judges; nil for none.
	Summary *Summary
	// Headlines are the figures of its results that the report's verdict judges every variant by,
	// in order.
	Headlines []Headline

	sets func(quick bool) []Set // its sets in the full or the quick matrix, Pkg and From left to the workload
}

// Sets returns the sets that run w in the full or the quick matrix, in order.
func (w Workload) Sets(quick bool) []Set {
	sets := w.sets(quick)
	for i := range sets {
		if sets[i].Pkg == "" && sets[i].Tool == GoTest {
			sets[i].Pkg, sets[i].From = w.Pkg, w.From
		}
	}
	return sets
}

// Workloads returns every workload, in the order their sets run.
func Workloads() []Workload {
	return []Workload{StdTime, StdContext, StdNet, Timers, Deadline, HTTPTimeout, Wakeups, GRPC, FastHTTP, XBenchmarks}
}

// Sizes are the values of one sub-benchmark parameter that a set selects (N=1K: parameter N, value
// 1K), in the full and the quick matrix.
type Sizes struct {
	Param       string
	Full, Quick []string
}

// Pattern is the parameter with its values of the mode as one alternative of a pattern level:
// N=(1K|100K), or N=1K for a single value.
func (s Sizes) Pattern(quick bool) string {
	values := pick(quick, s.Full, s.Quick)
	if len(values) == 1 {
		return s.Param + "=" + values[0]
	}
	return s.Param + "=(" + strings.Join(values, "|") + ")"
}

// ChartKind is what a chart plots.
type ChartKind int

const (
	// VsSize draws a line per benchmark of Benchmarks and variant: the median of Unit against the
	// size parameter Param of the sub-benchmarks (N=1K is 1000, 4M is 4e6), log-log.
	VsSize ChartKind = iota
	// Quantiles draws a line per variant: the quantiles Quantiles of Benchmarks[0] (their medians,
	// in µs, on a log axis) against their fractions, a cumulative distribution.
	Quantiles
	// VsSlack draws a point per variant: the median of Unit of Benchmarks[0] against the median
	// slack the variant granted in that benchmark (bench/units.Slack, in µs; 0 without the figure).
	VsSlack
	// RatioVsSize draws a line per benchmark of Benchmarks and variant but the baseline
	// (lab.Baseline). A point is the variant's Unit over the baseline's at a size of Param: the
	// verdict's ratio (stats.Index.Ratio). X is logarithmic, Y linear about a dashed line at 1.
	// A bar gives the ratio's confidence interval; a point whose samples bound none has no bar.
	// The lines are drawn a little apart on X, so that their bars do not overlap.
	RatioVsSize
)

// A Chart is one chart of the report.
type Chart struct {
	Kind       ChartKind
	File       string // the SVG's base name
	Title      string
	X, Y       string // the axes' labels
	Benchmarks []string
	Param      string // VsSize, RatioVsSize: the parameter of the sub-benchmarks' names that is the X axis
	Unit       string // VsSize, VsSlack, RatioVsSize: the figure drawn, as the benchmark reports it
	// Scale multiplies the figure as the report reads it, tidied as benchstat tidies units (a unit
	// in ns is read in seconds), into the chart's. A ratio (RatioVsSize) has no unit and no Scale.
	Scale     float64
	Quantiles []units.Quantile // Quantiles
	// Floor is where a Quantiles chart draws figures below it: its axis is logarithmic.
	Floor float64
	// SlackOnly leaves out the variants that granted no slack in the benchmark (VsSlack).
	SlackOnly bool
	Note      string
}

// A Headline is one figure of a workload that the report's verdict opens with: every variant
// against the baseline, as a ratio with its confidence interval. Lower is better for every
// headline, so that the verdict can say better and worse, but for a price (PriceOf).
type Headline struct {
	// Bench is the benchmark, with its sub-benchmark levels and without the -GOMAXPROCS suffix
	// (TimeoutVsN/N=4M). A name with fewer levels than the results stands for the first
	// sub-benchmark under it.
	Bench string
	Unit  string // as the benchmark reports it
	Label string // what the row says it measures, in words
	// Use is the programs a variant better on this figure suits, in words that end the verdict's
	// "the right choice for ...".
	Use string
	// PerOp shows the figure, a rate (Unit ends in /s), per op: each run's rate times its time per
	// op. A policy whose ops end sooner runs more of them a second, so its rate says how fast it
	// runs as much as what each op costs.
	PerOp bool
	// PriceOf, if set, is the Unit of another headline of Bench, and Price what a variant better
	// on that one gains, in words: a variant better there is not "worse" for a higher figure here,
	// which is that gain's price (the timer wakeups of sleeps that end on time).
	PriceOf, Price string
}

// Top returns the top-level benchmark of the headline: its Bench up to the first '/'.
func (h Headline) Top() string {
	top, _, _ := strings.Cut(h.Bench, "/")
	return top
}

// A Summary is a table of the report that judges variants against the baseline, a row per variant.
type Summary struct {
	Title   string
	Intro   string
	Columns []Column
}

// ColumnKind is how a summary column makes a cell of one variant's results.
type ColumnKind int

const (
	// Slack is the median slack the variant granted in Bench (bench/units.Slack), "—" without it.
	Slack ColumnKind = iota
	// Ratio is the variant's median of Unit in Bench over the baseline's in Over (Bench if "").
	Ratio
	// Value is the variant's median of Unit in Bench.
	Value
	// SlackValue is Value where the variant granted slack in Bench, "—" where it granted none.
	SlackValue
	// PeriodShare is the median of Unit (a duration) as a percentage of the period that Bench's
	// sub-benchmark names give as Param (period=10ms).
	PeriodShare
)

// A Column is one column of a summary, after the variant and its GODEBUG.
type Column struct {
	Head  string
	Kind  ColumnKind
	Bench string // a top-level benchmark of the workload
	Unit  string // as the benchmark reports it
	Over  string // Ratio: the baseline's benchmark the figure is divided by, if not Bench
	Param string // PeriodShare
	About string // what the column shows, in words: the report lists it under the table's intro
}

// Validate reports a workload whose charts or summary use a figure it does not declare, or a
// benchmark none of its sets runs.
func (w Workload) Validate() error {
	var benches []string
	for _, quick := range []bool{false, true} {
		for _, s := range w.Sets(quick) {
			benches = append(benches, s.Expect...)
		}
	}
	known := func(unit string) bool {
		return unit == "" || unit == "sec/op" || slices.Contains(w.Units, unit)
	}
	check := func(what string, bench []string, units ...string) error {
		for _, b := range bench {
			if !slices.Contains(benches, b) {
				return fmt.Errorf("workload %s: %s: no set runs Benchmark%s", w.Name, what, b)
			}
		}
		for _, u := range units {
			if !known(u) {
				return fmt.Errorf("workload %s: %s: the workload reports no %s", w.Name, what, u)
			}
		}
		return nil
	}
	for _, c := range w.Charts {
		figures := []string{c.Unit}
		for _, q := range c.Quantiles {
			figures = append(figures, q.Unit)
		}
		if c.Kind == VsSlack {
			figures = append(figures, units.Slack)
		}
		if err := check("chart "+c.File, c.Benchmarks, figures...); err != nil {
			return err
		}
	}
	for _, h := range w.Headlines {
		if err := check("headline "+h.Bench, []string{h.Top()}, h.Unit); err != nil {
			return err
		}
		if h.Use == "" {
			return fmt.Errorf("workload %s: headline %s %s says not what it suits (Use)", w.Name, h.Bench, h.Unit)
		}
		if h.PerOp && !strings.HasSuffix(h.Unit, "/s") {
			return fmt.Errorf("workload %s: headline %s %s: PerOp of a figure that is no rate", w.Name, h.Bench, h.Unit)
		}
		if h.PriceOf != "" && (h.Price == "" || !slices.ContainsFunc(w.Headlines, func(o Headline) bool {
			return o.Bench == h.Bench && o.Unit == h.PriceOf
		})) {
			return fmt.Errorf("workload %s: headline %s %s is the price of %s, no headline of its benchmark, "+
				"or says not of what", w.Name, h.Bench, h.Unit, h.PriceOf)
		}
	}
	if w.Summary != nil {
		for _, c := range w.Summary.Columns {
			bench := []string{c.Bench}
			if c.Over != "" {
				bench = append(bench, c.Over)
			}
			figures := []string{c.Unit}
			if c.Kind == Slack || c.Kind == SlackValue {
				figures = append(figures, units.Slack)
			}
			if err := check("summary column "+c.Head, bench, figures...); err != nil {
				return err
			}
		}
	}
	return nil
}
