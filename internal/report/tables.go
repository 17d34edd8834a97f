package report

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"timerlab/bench/units"
	"timerlab/internal/lab"
	"timerlab/internal/stats"
	"timerlab/internal/suite"
)

// setKeys returns the keys of ix that set's benchmarks report, in the order of ix: those of a
// package the set runs whose top-level benchmark is one the set expects.
func setKeys(ix *stats.Index, set suite.Set) []stats.Key {
	expected := set.Expected()
	var out []stats.Key
	for _, k := range ix.Keys() {
		if slices.Contains(expected, suite.Expected{Pkg: k.Pkg, Bench: topName(k.Name)}) {
			out = append(out, k)
		}
	}
	return out
}

// topName returns the top-level benchmark of a result's name: up to its first '/', or without its
// -GOMAXPROCS suffix.
func topName(name string) string {
	if top, _, ok := strings.Cut(name, "/"); ok {
		return top
	}
	return gomaxprocsSuffix.ReplaceAllString(name, "")
}

// setVariants returns the variants that ran set with a table of their own: the baseline and the
// others that are not aliases (main: the null floor, which runs only the floor sets, is shown
// beside the variants whose floor it is), and the aliases (sweep), each in the matrix's order.
func (r *Report) setVariants(set string) (main, sweep []string) {
	for _, v := range r.ran(set) {
		if r.isAlias(v) {
			sweep = append(sweep, v)
		} else {
			main = append(main, v)
		}
	}
	return main, sweep
}

// writeSetTables writes the tables of set (stats.Table): one of the baseline and the variants that
// are not aliases, and, if aliases ran it, one of the baseline and them. rank orders the units.
func (r *Report) writeSetTables(b *bytes.Buffer, level string, set suite.Set, rank func(string) int) {
	keys := setKeys(r.Index, set)
	fmt.Fprintf(b, "%s %s\n\n", level, set.Name)
	if len(keys) == 0 {
		b.WriteString("No results.\n\n")
		return
	}
	main, sweep := r.setVariants(set.Name)
	t := stats.Table{Keys: keys, Variants: main, Qualify: len(pkgsOf(keys)) > 1, Rank: rank, Format: valueFormats}
	t.Write(b, r.Index)
	if len(sweep) > 0 {
		base := main[:min(1, len(main))] // the baseline, if it ran the set
		fmt.Fprintf(b, "The aliases (series @TARGET of variants.conf: the slack sweep's points and upstream's proposal) "+
			"on %s, against %s:\n\n", set.Name, strings.Join(base, ""))
		t.Variants = append(slices.Clone(base), sweep...)
		t.Write(b, r.Index)
	}
}

func pkgsOf(keys []stats.Key) []string {
	var pkgs []string
	for _, k := range keys {
		if !slices.Contains(pkgs, k.Pkg) {
			pkgs = append(pkgs, k.Pkg)
		}
	}
	return pkgs
}

// valueFormats are the units whose values the tables do not show as benchstat scales them: the
// slack granted, which has two significant digits (docs/benchmarks.md: it is read from a histogram
// bucket 12.5% wide).
var valueFormats = map[string]func(float64) string{
	stats.Tidy(units.Slack): func(x float64) string { return durationText(time.Duration(math.Round(x * 1e9))) },
}

// writeResults writes the tables of the sets go test runs, each with the variants that ran it.
func (r *Report) writeResults(b *bytes.Buffer) {
	sets := r.setsOf(false)
	if len(sets) == 0 {
		return
	}
	b.WriteString("## Results by set\n\n")
	fmt.Fprintf(b, "One table per set, with the variants that ran it: per benchmark and figure, the median of the "+
		"runs ± its 95%% confidence interval, and each variant's change from %s where a Mann-Whitney U-test finds "+
		"it significant (p ≤ 0.05; golang.org/x/perf/benchmath, as benchstat), `~` where not; geomean: of the "+
		"medians of the rows above it that every variant has. The aliases, which run the sets sensitive to the "+
		"slack policy only, have a table of their own under each such set.\n\n", lab.Baseline)
	n := r.Spec.Rounds * r.Spec.Count
	if n < 4 {
		fmt.Fprintf(b, "With %d samples per variant no difference can reach p < 0.05: this matrix checks the pipeline, "+
			"it does not compare the variants.\n\n", n)
	}
	if n < 6 {
		fmt.Fprintf(b, "With %d samples per variant the 95%% confidence interval of a median cannot be computed: "+
			"it shows as ± ∞.\n\n", n)
	}
	for _, name := range sets {
		r.writeSetTables(b, "###", r.set(name), nil)
	}
}
