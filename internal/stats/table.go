package stats

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"golang.org/x/perf/benchunit"
)

// A Table is the Markdown table of some keys of an Index, the one form in which timerlab shows
// medians: a row per benchmark and unit, grouped by unit in the order Rank gives (then first
// appearance), each group closed by the geomean of its rows where it has more than one. A column
// per variant: the median ± its 95% interval, and for all but the first (the baseline) the change
// from the baseline's median where the U-test finds it significant, "~" where not.
type Table struct {
	Keys     []Key
	Variants []string // the first is the baseline
	// Qualify names each benchmark's package (ShortPkg) before its name.
	Qualify bool
	// Rank orders the units, lowest first; nil: UnitRank.
	Rank func(unit string) int
	// Format overrides, by unit, how a row shows its values; the others are scaled as benchstat
	// scales a row (one scale for all its values).
	Format map[string]func(float64) string
}

// UnitRank orders the standard units first, as benchstat does, then the others.
func UnitRank(unit string) int {
	if i := slices.Index([]string{"sec/op", "B/op", "allocs/op"}, unit); i >= 0 {
		return i
	}
	return 3
}

// Write writes the table of t's keys in ix to w.
func (t Table) Write(w io.Writer, ix *Index) {
	rank := t.Rank
	if rank == nil {
		rank = UnitRank
	}
	var unitOrder []string
	byUnit := map[string][]Key{}
	for _, k := range t.Keys {
		if byUnit[k.Unit] == nil {
			unitOrder = append(unitOrder, k.Unit)
		}
		byUnit[k.Unit] = append(byUnit[k.Unit], k)
	}
	sort.SliceStable(unitOrder, func(i, j int) bool { return rank(unitOrder[i]) < rank(unitOrder[j]) })
	writeRow(w, append([]string{"benchmark", "unit"}, t.Variants...))
	fmt.Fprintln(w, "|"+strings.Repeat(" --- |", len(t.Variants)+2))
	for _, unit := range unitOrder {
		rows := byUnit[unit]
		for _, k := range rows {
			name := k.Name
			if t.Qualify {
				name = "`" + ShortPkg(k.Pkg) + "` " + name
			}
			writeRow(w, append([]string{name, unit}, t.rowCells(ix, k)...))
		}
		if len(rows) > 1 {
			if cells, ok := t.geomeanCells(ix, rows); ok {
				writeRow(w, append([]string{"geomean", unit}, cells...))
			}
		}
	}
	fmt.Fprintln(w)
}

// rowCells formats one row: each variant's median ± interval, the change from the first variant's.
func (t Table) rowCells(ix *Index, k Key) []string {
	var centers []float64
	for _, v := range t.Variants {
		if s, ok := ix.Summary(k, v); ok {
			centers = append(centers, s.Center)
		}
	}
	format := t.Format[k.Unit]
	if format == nil {
		format = benchunit.CommonScale(centers, benchunit.ClassOf(k.Unit)).Format
	}
	var cells []string
	for i, v := range t.Variants {
		s, ok := ix.Summary(k, v)
		if !ok {
			cells = append(cells, "—")
			continue
		}
		cell := format(s.Center) + " ± " + s.PctRangeString()
		if i > 0 {
			if c, ok := ix.Change(k, t.Variants[0], v); ok {
				cell += changeText(c)
			}
		}
		cells = append(cells, cell)
	}
	return cells
}

// changeText is a variant's change from the baseline after its value: " -23% (p=0.002)" where the
// U-test finds the difference significant, " ~" where not, nothing where the baseline's median is 0
// (no change in percent) or the medians are equal.
func changeText(c Change) string {
	switch {
	case !c.Significant():
		return " ~"
	case c.Base == 0 || c.Base == c.Value:
		return ""
	}
	return fmt.Sprintf(" %s (p=%.3f)", DeltaText(c.Base, c.Value), c.P)
}

// geomeanCells is the geomean row of rows: each variant's geometric mean of its medians over the
// rows every variant has a positive median of, and its change from the first variant's in
// percent. false when fewer than two rows qualify.
func (t Table) geomeanCells(ix *Index, rows []Key) ([]string, bool) {
	logs := make([]float64, len(t.Variants))
	n := 0
	for _, k := range rows {
		vals := make([]float64, len(t.Variants))
		ok := true
		for i, v := range t.Variants {
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
	geo := make([]float64, len(t.Variants))
	for i := range logs {
		geo[i] = math.Exp(logs[i] / float64(n))
	}
	format := benchunit.CommonScale(geo, benchunit.ClassOf(rows[0].Unit)).Format
	var cells []string
	for i, g := range geo {
		cell := format(g)
		if i > 0 {
			cell += " " + DeltaText(geo[0], g)
		}
		cells = append(cells, cell)
	}
	return cells, true
}

// DeltaText formats the change from base to value in percent, with at most two significant digits
// and at least the integer: "-23%", "+3.2%", "-0.29%".
func DeltaText(base, value float64) string {
	if value == base {
		return "0%"
	}
	pct := 100 * (value/base - 1)
	var s string
	switch a := math.Abs(pct); {
	case a >= 10:
		s = fmt.Sprintf("%.0f", pct)
	case a >= 1:
		s = fmt.Sprintf("%.1f", pct)
	default:
		s = fmt.Sprintf("%.2f", pct)
	}
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s + "%"
}

func writeRow(w io.Writer, cells []string) {
	fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
}

// ShortPkg is how the tables name a package: the harness's own workloads without the repository
// prefix, sweet's benchmark drivers by their benchmark.
func ShortPkg(pkg string) string {
	pkg = strings.TrimPrefix(pkg, "timerlab/bench/")
	return strings.TrimPrefix(pkg, "golang.org/x/benchmarks/sweet/benchmarks/")
}
