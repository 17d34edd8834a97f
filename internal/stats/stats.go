// Package stats summarises benchmark results per variant with golang.org/x/perf's benchmath, the
// statistics cmd/benchstat uses: the median with its 95% confidence interval, and a Mann-Whitney
// U-test of each variant against the baseline (alpha 0.05).
package stats

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

// Confidence is the confidence level of the intervals, as benchstat's default.
const Confidence = 0.95

var assumption = benchmath.AssumeNothing

// Key identifies one measured quantity: a benchmark of a package in one unit.
type Key struct {
	Unit string // tidied, as benchstat prints it (sec/op, B/op, custom units as reported)
	Pkg  string
	Name string // full name, sub-benchmarks and -GOMAXPROCS suffix included
}

// Tidy returns unit as an Index keys it, tidied as benchstat tidies units: a unit of
// nanoseconds becomes one of seconds (ns/op: sec/op, cpu-ns/s: cpu-sec/s), its values scaled.
func Tidy(unit string) string {
	_, tidied := benchunit.Tidy(1, unit)
	return tidied
}

// Index holds the values of every key for every variant.
type Index struct {
	keys   []Key                        // in order of first appearance
	values map[Key]map[string][]float64 // key -> variant -> values
	runs   map[Key]map[string][]int     // key -> variant -> the result each value is of, in order
}

// NewIndex indexes results by key and by their "variant" configuration value.
func NewIndex(res []*benchfmt.Result) *Index {
	ix := &Index{values: map[Key]map[string][]float64{}, runs: map[Key]map[string][]int{}}
	for i, r := range res {
		variant := r.GetConfig("variant")
		for _, v := range r.Values {
			val, unit := benchunit.Tidy(v.Value, v.Unit)
			k := Key{Unit: unit, Pkg: r.GetConfig("pkg"), Name: string(r.Name.Full())}
			if ix.values[k] == nil {
				ix.values[k] = map[string][]float64{}
				ix.runs[k] = map[string][]int{}
				ix.keys = append(ix.keys, k)
			}
			ix.values[k][variant] = append(ix.values[k][variant], val)
			ix.runs[k][variant] = append(ix.runs[k][variant], i)
		}
	}
	return ix
}

// PerOp returns the key of k's figure per op: where k's unit is a rate (a figure per second), each
// of its values times the time per op (sec/op) of the same run, which is what the rate comes to
// for one op; its unit ends in /op where k's ends in /s. The key is not among Keys. false where
// k's unit is no rate or no run of k has its time per op.
func (ix *Index) PerOp(k Key) (Key, bool) {
	base, ok := strings.CutSuffix(k.Unit, "/s")
	if !ok {
		return Key{}, false
	}
	perOp := Key{Unit: base + "/op", Pkg: k.Pkg, Name: k.Name}
	if _, done := ix.values[perOp]; done {
		return perOp, len(ix.values[perOp]) > 0
	}
	secs := Key{Unit: "sec/op", Pkg: k.Pkg, Name: k.Name}
	values := map[string][]float64{}
	for variant, runs := range ix.runs[k] {
		for i, run := range runs {
			if j := slices.Index(ix.runs[secs][variant], run); j >= 0 {
				values[variant] = append(values[variant], ix.values[k][variant][i]*ix.values[secs][variant][j])
			}
		}
	}
	ix.values[perOp] = values
	return perOp, len(values) > 0
}

// Keys returns the keys in order of first appearance.
func (ix *Index) Keys() []Key {
	return ix.keys
}

// Filter returns the index of the keys of ix that keep reports true for, in the same order.
func (ix *Index) Filter(keep func(Key) bool) *Index {
	out := &Index{values: map[Key]map[string][]float64{}, runs: map[Key]map[string][]int{}}
	for _, k := range ix.keys {
		if keep(k) {
			out.keys = append(out.keys, k)
			out.values[k] = ix.values[k]
			out.runs[k] = ix.runs[k]
		}
	}
	return out
}

// Sample returns the values of k measured with variant.
func (ix *Index) Sample(k Key, variant string) (*benchmath.Sample, bool) {
	vals := ix.values[k][variant]
	if len(vals) == 0 {
		return nil, false
	}
	return benchmath.NewSample(append([]float64(nil), vals...), &benchmath.DefaultThresholds), true
}

// Summary returns the median of k with variant and its confidence interval.
func (ix *Index) Summary(k Key, variant string) (benchmath.Summary, bool) {
	s, ok := ix.Sample(k, variant)
	if !ok {
		return benchmath.Summary{}, false
	}
	return assumption.Summary(s, Confidence), true
}

// Delta formats variant against base as benchstat does: "+1.23% (p=0.002 n=6)", with "~" in
// place of the percentage when the difference is not significant; "—" when either has no value.
func (ix *Index) Delta(k Key, base, variant string) string {
	s0, ok0 := ix.Sample(k, base)
	s1, ok1 := ix.Sample(k, variant)
	if !ok0 || !ok1 {
		return "—"
	}
	cmp := assumption.Compare(s0, s1)
	c0 := assumption.Summary(s0, Confidence).Center
	c1 := assumption.Summary(s1, Confidence).Center
	return fmt.Sprintf("%s (%s)", cmp.FormatDelta(c0, c1), cmp)
}
