package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"timerlab/internal/lab"
	"timerlab/internal/stats"
)

// LoadInstr adds to r the instructions per op of the results directory dir, a matrix of
// timerlab instr, read as r was (Load or LoadPartial). The verdict gives them beside the times
// of the same benchmarks. Counts of another patch series than r's are refused, for they are not of
// the binaries the times are of, but by a partial report, which says so at its top.
func (r *Report) LoadInstr(dir string) error {
	x, err := load(dir, r.partial)
	if err != nil {
		return err
	}
	if x.Env.Mode != "instr" {
		return fmt.Errorf("%s is no matrix of instruction counts (timerlab instr makes one)", dir)
	}
	if err := r.mixSeries("the instruction counts", dir, x.Env.SeriesSHA256, "count the series timed (timerlab instr)"); err != nil {
		return err
	}
	for _, p := range x.Partial {
		r.Partial = append(r.Partial, fmt.Sprintf("the instruction counts (%s): %s", filepath.Base(dir), p))
	}
	r.Warnings = append(r.Warnings, x.Warnings...)
	x.Warnings = nil
	r.instr = x
	return nil
}

// timeKey returns the key of r's time per op of the benchmark k counts the instructions of: at
// the matrix's GOMAXPROCS, where it ran at several.
func (r *Report) timeKey(k stats.Key) (stats.Key, bool) {
	var found []stats.Key
	for _, t := range r.Index.Keys() {
		if t.Unit != "sec/op" || t.Pkg != k.Pkg {
			continue
		}
		// Counts run at -test.cpu=1, whose names have no -GOMAXPROCS suffix.
		if gomaxprocsSuffix.ReplaceAllString(t.Name, "") == k.Name {
			found = append(found, t)
		}
	}
	for _, t := range found {
		if t.Name == fmt.Sprintf("%s-%d", k.Name, r.Env.GOMAXPROCS) {
			return t, true
		}
	}
	if len(found) > 0 {
		return found[0], true
	}
	return stats.Key{}, false
}

// writeInstr writes the verdict's table of instructions per op (LoadInstr), a row per counted
// benchmark and a cell per variant of vs that was counted: the change in instructions against
// the baseline's, and, where the matrix timed the benchmark, the ratio of the times.
func (r *Report) writeInstr(b *bytes.Buffer, vs []string) {
	x := r.instr
	if x == nil {
		return
	}
	var counted []string
	for _, v := range vs {
		if _, ok := x.Env.Toolchain(v); ok {
			counted = append(counted, v)
		}
	}
	if _, ok := x.Env.Toolchain(lab.Baseline); !ok || len(counted) == 0 {
		fmt.Fprintf(b, "No instruction counts of %s and another variant of the verdict in %s.\n\n", lab.Baseline,
			filepath.Base(x.Dir))
		return
	}
	fmt.Fprintf(b, "Instructions per op of the single operations (`timerlab instr`: cachegrind, GOGC=off, one P; %s, "+
		"%d rounds), beside their times above. A cell is the change in instructions against %s, the median of the "+
		"ratios of all pairs of rounds with its 95%% interval, then `·` and the ratio of the times where this "+
		"matrix timed the benchmark; `~`: no significant difference. Counts are stable to a few tenths of a percent "+
		"where times on this machine are not.\n\n", filepath.Base(x.Dir), x.Spec.Rounds, lab.Baseline)
	writeRow(b, append([]string{"benchmark", lab.Baseline + " instr/op"}, counted...)...)
	b.WriteString("|" + strings.Repeat(" --- |", len(counted)+2) + "\n")
	for _, k := range x.Index.Keys() {
		if k.Unit != "instr/op" {
			continue
		}
		base, ok := x.Index.Median(k, lab.Baseline)
		if !ok {
			continue
		}
		row := []string{fmt.Sprintf("`%s` %s", stats.ShortPkg(k.Pkg), k.Name), sig(base.Center, 4)}
		tk, timed := r.timeKey(k)
		for _, v := range counted {
			cell := "—"
			if rt, ok := x.Index.Ratio(k, lab.Baseline, v); ok {
				cell = changeCell(rt)
			}
			if timed {
				if rt, ok := r.Index.Ratio(tk, lab.Baseline, v); ok {
					cell += " · time " + ratioCell(rt)
				}
			}
			row = append(row, cell)
		}
		writeRow(b, row...)
	}
	b.WriteString("\n")
}

// changeCell is a ratio as a change in percent with its interval, "+0.91% (+0.85 to +0.97)",
// with "~" after it where the U-test finds no significant difference.
func changeCell(r stats.Ratio) string {
	s := fmt.Sprintf("%+.2f%%", (r.Center-1)*100)
	if r.Bounded() {
		s += fmt.Sprintf(" (%+.2f to %+.2f)", (r.Lo-1)*100, (r.Hi-1)*100)
	} else {
		s += " (—)"
	}
	if !r.Significant() {
		s += " ~"
	}
	return s
}
