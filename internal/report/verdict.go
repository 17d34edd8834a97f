package report

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"timerlab/internal/lab"
	"timerlab/internal/selection"
	"timerlab/internal/stats"
	"timerlab/internal/suite"
)

// writeVerdict opens the report: for each headline figure of the workloads (suite.Workload's
// Headlines) that the matrix measured, every variant but the aliases against the baseline, as
// the ratio of their values with its 95% interval, and a reading of which variants did better or
// worse. The aliases (the slack sweep and upstream's proposal) are judged in the sweep's table; the
// null floor, a measuring instrument, is judged by nobody.
func (r *Report) writeVerdict(b *bytes.Buffer) {
	b.WriteString("## Verdict\n\n")
	if r.Variants[0] != lab.Baseline {
		fmt.Fprintf(b, "No verdict: the matrix did not run %s, the baseline.\n\n", lab.Baseline)
		return
	}
	vs := r.verdictVariants()
	type row struct {
		label, key string
		cells      []string
		better     []string
		worse      []string
	}
	var rows []row
	for _, w := range suite.Workloads() {
		for _, h := range w.Headlines {
			k, ok := r.headlineKey(w.Pkg, h)
			if !ok {
				continue
			}
			rw := row{label: h.Label, key: fmt.Sprintf("`%s` %s", stats.ShortPkg(w.Pkg), h.Bench)}
			measured := false
			for _, v := range vs {
				rt, ok := r.Index.Ratio(k, lab.Baseline, v)
				if !ok {
					rw.cells = append(rw.cells, "—")
					continue
				}
				rw.cells = append(rw.cells, ratioCell(rt))
				measured = true
				switch {
				case !rt.Significant():
				case rt.Center < 1:
					rw.better = append(rw.better, v)
				case rt.Center > 1:
					rw.worse = append(rw.worse, v)
				}
			}
			if measured {
				rows = append(rows, rw)
			}
		}
	}
	if len(rows) == 0 || len(vs) == 0 {
		fmt.Fprintf(b, "No verdict: the matrix measured no headline figure (the sets %s hold them) with %s and another "+
			"variant.\n\n", strings.Join(selection.HeadlineSets, ", "), lab.Baseline)
		return
	}
	fmt.Fprintf(b, "Each variant against %[1]s on the figures the comparison rests on, every one better lower. A cell "+
		"is variant / %[1]s, the median of the ratios of all pairs of their runs, with its 95%% confidence interval "+
		"((—): too few runs for one); `~`: no significant difference (U-test, p > 0.05).", lab.Baseline)
	if slices.Contains(vs, aaVariant) {
		fmt.Fprintf(b, " %s against %s is this machine's noise plus the cost of the shared patches.", aaVariant, lab.Baseline)
	}
	b.WriteString("\n\n")
	writeRow(b, append(append([]string{"figure"}, vs...), "reading")...)
	b.WriteString("|" + strings.Repeat(" --- |", len(vs)+2) + "\n")
	for _, rw := range rows {
		reading := "no significant difference"
		var parts []string
		if len(rw.better) > 0 {
			parts = append(parts, "better: "+strings.Join(rw.better, ", "))
		}
		if len(rw.worse) > 0 {
			parts = append(parts, "worse: "+strings.Join(rw.worse, ", "))
		}
		if len(parts) > 0 {
			reading = strings.Join(parts, "; ")
		}
		writeRow(b, append(append([]string{rw.label + " (" + rw.key + ")"}, rw.cells...), reading)...)
	}
	b.WriteString("\n")
}

// verdictVariants are the variants the verdict judges: all but the baseline and those the matrix
// ran on some sets only (the aliases and the null floor).
func (r *Report) verdictVariants() []string {
	var out []string
	for _, v := range r.Variants[1:] {
		if !r.restricted(v) {
			out = append(out, v)
		}
	}
	return out
}

// restricted reports whether the matrix ran variant on some of its sets only (matrix.Spec.Only):
// an alias of variants.conf (series @TARGET), on its sweep sets, or the null floor, on the floor
// sets.
func (r *Report) restricted(variant string) bool {
	_, ok := r.Spec.Only[variant]
	return ok
}

// isAlias reports whether the matrix ran variant as an alias of variants.conf: restricted to some
// sets, and not the null floor.
func (r *Report) isAlias(variant string) bool {
	return r.restricted(variant) && !r.isNull(variant)
}

// isNull reports whether variant is the null floor: its toolchain was built with lab.NullExperiment.
func (r *Report) isNull(variant string) bool {
	tc, _ := r.Env.Toolchain(variant)
	return lab.IsNull(tc.GOEXPERIMENT)
}

// gomaxprocsSuffix is the -N a benchmark's name ends with when it ran at GOMAXPROCS N.
var gomaxprocsSuffix = regexp.MustCompile(`-\d+$`)

// headlineKey returns the key of h in the results of pkg: its unit, and the first benchmark whose
// name, without the -GOMAXPROCS suffix, is h.Bench or a sub-benchmark of it.
func (r *Report) headlineKey(pkg string, h suite.Headline) (stats.Key, bool) {
	for _, k := range r.keys(pkg, stats.Tidy(h.Unit)) {
		name := gomaxprocsSuffix.ReplaceAllString(k.Name, "")
		if name == h.Bench || strings.HasPrefix(name, h.Bench+"/") {
			return k, true
		}
	}
	return stats.Key{}, false
}
