package report

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/perf/benchunit"

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

// writeSetTables writes the tables of set: one of the baseline and the variants that are not
// aliases, and, if aliases ran it, one of the baseline and them. unitRank orders the units.
func (r *Report) writeSetTables(b *bytes.Buffer, level string, set suite.Set, unitRank func(string) int) {
	keys := setKeys(r.Index, set)
	fmt.Fprintf(b, "%s %s\n\n", level, set.Name)
	if len(keys) == 0 {
		b.WriteString("No results.\n\n")
		return
	}
	main, sweep := r.setVariants(set.Name)
	writeSetTable(b, r.Index, keys, main, unitRank, len(pkgsOf(keys)) > 1)
	if len(sweep) > 0 {
		base := main[:min(1, len(main))] // the baseline, if it ran the set
		fmt.Fprintf(b, "The aliases (series @TARGET of variants.conf: the slack sweep's points and upstream's proposal) "+
			"on %s, against %s:\n\n", set.Name, strings.Join(base, ""))
		writeSetTable(b, r.Index, keys, append(slices.Clone(base), sweep...), unitRank, len(pkgsOf(keys)) > 1)
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

// writeSetTable writes one table of keys: a row per benchmark and unit, grouped by unit in the
// order unitRank gives (then first appearance), each group closed by the geomean of its rows
// where it has more than one. A column per variant: the median ± its 95% interval, and for all
// but the first (the baseline) the change from the baseline's median where the U-test finds it
// significant, "~" where not. qualify names each benchmark's package.
func writeSetTable(b *bytes.Buffer, ix *stats.Index, keys []stats.Key, variants []string, unitRank func(string) int, qualify bool) {
	var unitOrder []string
	byUnit := map[string][]stats.Key{}
	for _, k := range keys {
		if byUnit[k.Unit] == nil {
			unitOrder = append(unitOrder, k.Unit)
		}
		byUnit[k.Unit] = append(byUnit[k.Unit], k)
	}
	sort.SliceStable(unitOrder, func(i, j int) bool { return unitRank(unitOrder[i]) < unitRank(unitOrder[j]) })
	writeRow(b, append([]string{"benchmark", "unit"}, variants...)...)
	b.WriteString("|" + strings.Repeat(" --- |", len(variants)+2) + "\n")
	for _, unit := range unitOrder {
		rows := byUnit[unit]
		for _, k := range rows {
			name := k.Name
			if qualify {
				name = "`" + stats.ShortPkg(k.Pkg) + "` " + name
			}
			writeRow(b, append([]string{name, unit}, rowCells(ix, k, variants)...)...)
		}
		if len(rows) > 1 {
			if cells, ok := geomeanCells(ix, rows, variants); ok {
				writeRow(b, append([]string{"geomean", unit}, cells...)...)
			}
		}
	}
	b.WriteString("\n")
}

// rowCells formats one row: each variant's median ± interval, the change from the first variant's.
func rowCells(ix *stats.Index, k stats.Key, variants []string) []string {
	var centers []float64
	for _, v := range variants {
		if s, ok := ix.Summary(k, v); ok {
			centers = append(centers, s.Center)
		}
	}
	format := valueFormat(k.Unit, centers)
	var cells []string
	for i, v := range variants {
		s, ok := ix.Summary(k, v)
		if !ok {
			cells = append(cells, "—")
			continue
		}
		cell := format(s.Center) + " ± " + s.PctRangeString()
		if i > 0 {
			if c, ok := ix.Change(k, variants[0], v); ok {
				cell += changeText(c)
			}
		}
		cells = append(cells, cell)
	}
	return cells
}

// valueFormat returns how a row of unit shows its values: as benchstat scales a row (one scale for
// all its values), except the slack granted, which has two significant digits (docs/benchmarks.md:
// it is read from a histogram bucket 12.5% wide).
func valueFormat(unit string, centers []float64) func(float64) string {
	if unit == stats.Tidy(units.Slack) {
		return func(x float64) string { return durationText(time.Duration(math.Round(x * 1e9))) }
	}
	return benchunit.CommonScale(centers, benchunit.ClassOf(unit)).Format
}

// changeText is a variant's change from the baseline after its value: " -23% (p=0.002)" where the
// U-test finds the difference significant, " ~" where not, nothing where the baseline's median is 0
// (no change in percent) or the medians are equal.
func changeText(c stats.Change) string {
	switch {
	case !c.Significant():
		return " ~"
	case c.Base == 0 || c.Base == c.Value:
		return ""
	}
	return fmt.Sprintf(" %s (p=%.3f)", deltaText(c.Base, c.Value), c.P)
}

// geomeanCells is the geomean row of rows: each variant's geometric mean of its medians over the
// rows every variant has a positive median of, and its change from the first variant's in
// percent. false when no row qualifies.
func geomeanCells(ix *stats.Index, rows []stats.Key, variants []string) ([]string, bool) {
	logs := make([]float64, len(variants))
	n := 0
	for _, k := range rows {
		vals := make([]float64, len(variants))
		ok := true
		for i, v := range variants {
			s, has := ix.Summary(k, v)
			ok = ok && has && s.Center > 0
			vals[i] = s.Center
		}
		if !ok {
			continue
		}
		for i, x := range vals {
			logs[i] += math.Log(x)
		}
		n++
	}
	if n < 2 {
		return nil, false
	}
	geo := make([]float64, len(variants))
	for i := range logs {
		geo[i] = math.Exp(logs[i] / float64(n))
	}
	format := benchunit.CommonScale(geo, benchunit.ClassOf(rows[0].Unit)).Format
	var cells []string
	for i, g := range geo {
		cell := format(g)
		if i > 0 {
			cell += " " + deltaText(geo[0], g)
		}
		cells = append(cells, cell)
	}
	return cells, true
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
		r.writeSetTables(b, "###", r.set(name), unitRank)
	}
}

// unitRank orders the standard units first, as benchstat does, then the workloads' own figures.
func unitRank(unit string) int {
	if i := slices.Index([]string{"sec/op", "B/op", "allocs/op"}, unit); i >= 0 {
		return i
	}
	return 3
}
