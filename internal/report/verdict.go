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

// A figure is one headline figure of a workload (suite.Workload's Headlines) that the matrix
// measured: each judged variant against the baseline.
type figure struct {
	pkg    string
	h      suite.Headline
	key    string                 // how the table names it: "`timers` TimeoutVsN/N=4M"
	ratios map[string]stats.Ratio // by variant, where both have the figure
}

// better and higher report whether variant's figure is significantly below or above the
// baseline's.
func (f figure) better(variant string) bool {
	r, ok := f.ratios[variant]
	return ok && r.Significant() && r.Center < 1
}

func (f figure) higher(variant string) bool {
	r, ok := f.ratios[variant]
	return ok && r.Significant() && r.Center > 1
}

// figures returns the headline figures the matrix measured with the baseline and some variant of
// vs, in the workloads' order.
func (r *Report) figures(vs []string) []figure {
	var out []figure
	for _, w := range suite.Workloads() {
		for _, h := range w.Headlines {
			k, ok := r.headlineKey(w.Pkg, h)
			if !ok {
				continue
			}
			f := figure{pkg: w.Pkg, h: h, key: fmt.Sprintf("`%s` %s", stats.ShortPkg(w.Pkg), h.Bench),
				ratios: map[string]stats.Ratio{}}
			for _, v := range vs {
				if rt, ok := r.Index.Ratio(k, lab.Baseline, v); ok {
					f.ratios[v] = rt
				}
			}
			if len(f.ratios) > 0 {
				out = append(out, f)
			}
		}
	}
	return out
}

// priced reports whether a higher figure f of variant is a price (suite.Headline.PriceOf): the
// variant is better on the figure f is the price of.
func priced(figures []figure, f figure, variant string) bool {
	if f.h.PriceOf == "" {
		return false
	}
	for _, o := range figures {
		if o.pkg == f.pkg && o.h.Bench == f.h.Bench && o.h.Unit == f.h.PriceOf {
			return o.better(variant)
		}
	}
	return false
}

// writeVerdict opens the report: a paragraph per variant but the aliases (the slack sweep and
// upstream's proposal, judged in the sweep's table) and the null floor (a measuring instrument,
// judged by nobody), made from the figures: what it wins, what it costs, and where it is the right
// choice; then the table of each headline figure the matrix measured, every such variant against
// the baseline as the ratio of their values with its 95% interval, and a reading of which variants
// did better or worse.
func (r *Report) writeVerdict(b *bytes.Buffer) {
	b.WriteString("## Verdict\n\n")
	if r.Variants[0] != lab.Baseline {
		fmt.Fprintf(b, "No verdict: the matrix did not run %s, the baseline.\n\n", lab.Baseline)
		return
	}
	vs := r.verdictVariants()
	figures := r.figures(vs)
	if len(figures) == 0 || len(vs) == 0 {
		fmt.Fprintf(b, "No verdict: the matrix measured no headline figure (the sets %s hold them) with %s and another "+
			"variant.\n\n", strings.Join(selection.HeadlineSets, ", "), lab.Baseline)
		return
	}
	for _, v := range vs {
		r.writeParagraph(b, v, figures)
	}
	fmt.Fprintf(b, "Each variant against %[1]s on the figures the comparison rests on, every one better lower. A cell "+
		"is variant / %[1]s, the median of the ratios of all pairs of their runs, with its 95%% confidence interval "+
		"((—): too few runs for one); `~`: no significant difference (U-test, p > 0.05). A figure higher where a "+
		"variant gains what it pays for is that gain's price, not worse.", lab.Baseline)
	if slices.Contains(vs, aaVariant) {
		fmt.Fprintf(b, " %s against %s is this machine's noise plus the cost of the shared patches.", aaVariant, lab.Baseline)
	}
	b.WriteString("\n\n")
	writeRow(b, append(append([]string{"figure"}, vs...), "reading")...)
	b.WriteString("|" + strings.Repeat(" --- |", len(vs)+2) + "\n")
	for _, f := range figures {
		var better, worse []string
		price := map[string][]string{} // what is paid for -> by whom
		var prices []string
		for _, v := range vs {
			switch {
			case f.better(v):
				better = append(better, v)
			case f.higher(v) && priced(figures, f, v):
				if price[f.h.Price] == nil {
					prices = append(prices, f.h.Price)
				}
				price[f.h.Price] = append(price[f.h.Price], v)
			case f.higher(v):
				worse = append(worse, v)
			}
		}
		var parts []string
		if len(better) > 0 {
			parts = append(parts, "better: "+strings.Join(better, ", "))
		}
		if len(worse) > 0 {
			parts = append(parts, "worse: "+strings.Join(worse, ", "))
		}
		for _, p := range prices {
			parts = append(parts, "the price of "+p+": "+strings.Join(price[p], ", "))
		}
		reading := "no significant difference"
		if len(parts) > 0 {
			reading = strings.Join(parts, "; ")
		}
		row := []string{f.h.Label + " (" + f.key + ")"}
		for _, v := range vs {
			if rt, ok := f.ratios[v]; ok {
				row = append(row, ratioCell(rt))
			} else {
				row = append(row, "—")
			}
		}
		writeRow(b, append(row, reading)...)
	}
	b.WriteString("\n")
	r.writeInstr(b, vs)
}

// writeParagraph writes the verdict's paragraph of variant, made from the figures: those it is
// significantly better on (its wins, and the programs they suit: suite.Headline.Use), those it
// is significantly worse on, and those higher as the price of a win (suite.Headline.PriceOf). Of
// upstream, the control, it says its differences are noise and the shared patches' cost; of the
// null floor (in a matrix that ran it beyond the floor sets), that its gains bound any timer set's.
func (r *Report) writeParagraph(b *bytes.Buffer, variant string, figures []figure) {
	var wins, costs, paid, uses []string
	for _, f := range figures {
		cell := fmt.Sprintf("%s (×%s)", f.h.Label, ratioText(f.ratios[variant].Center))
		switch {
		case f.better(variant):
			wins = append(wins, cell)
			if !slices.Contains(uses, f.h.Use) {
				uses = append(uses, f.h.Use)
			}
		case f.higher(variant) && priced(figures, f, variant):
			paid = append(paid, cell+", the price of "+f.h.Price)
		case f.higher(variant):
			costs = append(costs, cell)
		}
	}
	if variant == aaVariant {
		fmt.Fprintf(b, "**%s** is the control: pristine upstream, %s without the shared patches. ", variant, lab.Baseline)
		if d := append(append(wins, costs...), paid...); len(d) > 0 {
			fmt.Fprintf(b, "Its differences from %s are this machine's noise plus those patches' cost: %s.\n\n",
				lab.Baseline, andList(d))
		} else {
			fmt.Fprintf(b, "It differs significantly from %s on no figure.\n\n", lab.Baseline)
		}
		return
	}
	if r.isNull(variant) {
		fmt.Fprintf(b, "**%s** is the null floor, a measuring instrument and not a timer set: its AfterFunc timers never "+
			"fire. ", variant)
		if len(wins) > 0 {
			fmt.Fprintf(b, "What it saves, on %s, is the most any timer set could.\n\n", andList(wins))
		} else {
			fmt.Fprintf(b, "It saves nothing significant on any figure here.\n\n")
		}
		return
	}
	if len(wins)+len(costs)+len(paid) == 0 {
		fmt.Fprintf(b, "**%s** differs significantly from %s on no figure of this run.\n\n", variant, lab.Baseline)
		return
	}
	if len(wins) > 0 {
		fmt.Fprintf(b, "**%s** wins on %s. ", variant, andList(wins))
	} else {
		fmt.Fprintf(b, "**%s** wins on no figure. ", variant)
	}
	switch all := append(costs, paid...); {
	case len(all) > 0:
		fmt.Fprintf(b, "It costs more on %s. ", andList(all))
	default:
		b.WriteString("It is worse on no figure. ")
	}
	switch {
	case len(wins) == 0:
		fmt.Fprintf(b, "On what this run measured, %s remains the better choice.\n\n", lab.Baseline)
	case len(costs) == 0:
		fmt.Fprintf(b, "The right choice for %s.\n\n", andList(uses))
	default:
		fmt.Fprintf(b, "The right choice for %s, where what it costs matters less.\n\n", andList(uses))
	}
}

// andList joins items as prose: "a", "a and b", "a, b and c"; items holding commas are joined by
// semicolons.
func andList(items []string) string {
	sep := ", "
	for _, it := range items {
		if strings.Contains(it, ",") {
			sep = "; "
		}
	}
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], sep) + " and " + items[len(items)-1]
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
// name, without the -GOMAXPROCS suffix, is h.Bench or a sub-benchmark of it; per op where h says so
// (stats.Index.PerOp).
func (r *Report) headlineKey(pkg string, h suite.Headline) (stats.Key, bool) {
	for _, k := range r.keys(pkg, stats.Tidy(h.Unit)) {
		name := gomaxprocsSuffix.ReplaceAllString(k.Name, "")
		if name == h.Bench || strings.HasPrefix(name, h.Bench+"/") {
			if h.PerOp {
				return r.Index.PerOp(k)
			}
			return k, true
		}
	}
	return stats.Key{}, false
}
