package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"

	"timerlab/bench/units"
	"timerlab/internal/lab"
	"timerlab/internal/stats"
	"timerlab/internal/suite"
)

// writeSummaries writes the summary table of each workload that has one (suite.Workload.Summary).
func (r *Report) writeSummaries(b *bytes.Buffer) {
	for _, w := range suite.Workloads() {
		if w.Summary != nil {
			r.writeSummary(b, w.Pkg, *w.Summary)
		}
	}
}

// writeSummary writes the table that judges the variants of the slack sweep against the baseline
// of the same run, the baseline's row first: a cell per column of s. It writes nothing when the
// run has no such variant or no baseline.
func (r *Report) writeSummary(b *bytes.Buffer, pkg string, s suite.Summary) {
	vs := r.sweepVariants()
	if len(vs) == 0 || r.Variants[0] != lab.Baseline {
		return
	}
	fmt.Fprintf(b, "## %s\n\n%s\n\n", s.Title, s.Intro)
	listed := false
	for _, c := range s.Columns {
		if c.About != "" {
			fmt.Fprintf(b, "- *%s*: %s.\n", c.Head, c.About)
			listed = true
		}
	}
	if listed {
		b.WriteString("\n")
	}
	head := []string{"variant", "GODEBUG"}
	for _, c := range s.Columns {
		head = append(head, c.Head)
	}
	writeRow(b, head...)
	b.WriteString("|" + strings.Repeat(" --- |", len(head)) + "\n")
	for _, v := range append([]string{lab.Baseline}, vs...) {
		tc, _ := r.Env.Toolchain(v)
		row := []string{v, orDash(tc.GODEBUG)}
		for _, c := range s.Columns {
			row = append(row, r.cell(pkg, c, v))
		}
		writeRow(b, row...)
	}
	b.WriteString("\n")
}

// sweepVariants returns the variants of the slack sweep's table, in the matrix's order: every
// variant but the baseline that
//
//   - has timer slack built in: the GOEXPERIMENT of its toolchain (variants.conf's goexp column; an
//     alias's target's) names it (lab.HasSlack): slack, wheel-slack and their aliases;
//   - or sets timer slack in its GODEBUG (variants.conf's godebug column, which env.json records):
//     a setting names it, as timerslack=1 or timerslackdefer=1 do. So a variant whose own
//     patches put slack behind a GODEBUG rather than an experiment is here at every setting of it:
//     pwait2-slack (timerslack=1) and its alias pwait2-slack-off (timerslack=0);
//   - or runs the toolchain (the same GOROOT) of a variant of those two kinds: one whose series has
//     slack on by default, with no GODEBUG of its own, beside its alias that turns slack off;
//   - or is an alias (isAlias: not the null floor), whatever its toolchain: aliases run only the
//     sweep sets, whose figures this table holds, at a run-time setting of a knob it compares
//     (pwait2, upstream's proposal of precise waits: heap's toolchain at epollpwait2=1, the peer
//     slack is measured against).
//
// Not a variant's name, nor which patches its series takes: the results record each variant's
// GOEXPERIMENT, GODEBUG and GOROOT, but one hash of the whole series (env.json's series_sha256),
// not the patches each variant takes.
func (r *Report) sweepVariants() []string {
	slack := func(v string) bool {
		tc, _ := r.Env.Toolchain(v)
		return lab.HasSlack(tc.GOEXPERIMENT) || strings.Contains(tc.GODEBUG, "slack")
	}
	roots := map[string]bool{} // the GOROOTs of the variants with slack
	for _, v := range r.Variants {
		if tc, _ := r.Env.Toolchain(v); slack(v) {
			roots[tc.GOROOT] = true
		}
	}
	var out []string
	for _, v := range r.Variants[1:] {
		tc, _ := r.Env.Toolchain(v)
		if slack(v) || roots[tc.GOROOT] || r.isAlias(v) {
			out = append(out, v)
		}
	}
	return out
}

func writeRow(b *bytes.Buffer, cells ...string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// cell is variant's cell of the column c; "—" where a figure it needs is missing.
func (r *Report) cell(pkg string, c suite.Column, variant string) string {
	switch c.Kind {
	case suite.Slack:
		return r.slackCell(pkg, c.Bench, variant)
	case suite.Ratio:
		over := c.Over
		if over == "" {
			over = c.Bench
		}
		return r.ratioOver(pkg, c.Bench, over, c.Unit, variant)
	case suite.SlackValue:
		if r.slack(pkg, c.Bench, variant) == 0 {
			return "—"
		}
		return r.valueCell(pkg, c.Bench, c.Unit, variant)
	case suite.PeriodShare:
		return r.periodShareCell(pkg, c, variant)
	default:
		return r.valueCell(pkg, c.Bench, c.Unit, variant)
	}
}

// slackCell is the median slack variant granted in bench with two significant digits (the
// figure is read from a histogram bucket 12.5% wide), "—" without the figure.
func (r *Report) slackCell(pkg, bench, variant string) string {
	if _, ok := r.center(pkg, bench, units.Slack, variant); !ok {
		return "—"
	}
	return durationText(r.slack(pkg, bench, variant))
}

// ratioOver is variant's figure unit in bench over the baseline's in baseBench, as a ratio with
// its interval (ratioCell); "×1" for the baseline against itself, "—" where either figure is
// missing. The CPU on 1 P column divides the tickers on one P by the baseline's tickers at the
// run's GOMAXPROCS.
func (r *Report) ratioOver(pkg, bench, baseBench, unit, variant string) string {
	k, ok := r.benchKey(pkg, bench, unit)
	baseKey, okBase := r.benchKey(pkg, baseBench, unit)
	if !ok || !okBase {
		return "—"
	}
	if variant == lab.Baseline && k == baseKey {
		return "×1"
	}
	rt, ok := r.Index.RatioOf(baseKey, lab.Baseline, k, variant)
	if !ok {
		return "—"
	}
	return ratioCell(rt)
}

// valueCell is variant's median of unit in bench with its interval.
func (r *Report) valueCell(pkg, bench, unit, variant string) string {
	k, ok := r.benchKey(pkg, bench, unit)
	if !ok {
		return "—"
	}
	m, ok := r.Index.Median(k, variant)
	if !ok {
		return "—"
	}
	return intervalText(m, func(x float64) string { return fmt.Sprintf("%.2f", x) })
}

// periodShareCell is variant's median of c.Unit in c.Bench, with its interval, as a percentage
// of the period its sub-benchmark names give.
func (r *Report) periodShareCell(pkg string, c suite.Column, variant string) string {
	k, ok := r.benchKey(pkg, c.Bench, c.Unit)
	period := r.period(pkg, c)
	if !ok || period <= 0 {
		return "—"
	}
	m, ok := r.Index.Median(k, variant)
	if !ok {
		return "—"
	}
	return intervalText(m, func(x float64) string { return sig(100*x/period.Seconds(), 2) + "%" })
}

// benchKey returns the key of unit (as the benchmark reports it) in bench, a top-level benchmark
// of pkg: the first of its sub-benchmarks.
func (r *Report) benchKey(pkg, bench, unit string) (stats.Key, bool) {
	for _, k := range r.keys(pkg, stats.Tidy(unit)) {
		if strings.HasPrefix(k.Name, bench+"/") || strings.HasPrefix(k.Name, bench+"-") {
			return k, true
		}
	}
	return stats.Key{}, false
}

// period returns the duration that the names of c.Bench's sub-benchmarks with the figure c.Unit
// give as c.Param (period=10ms); 0 if none does.
func (r *Report) period(pkg string, c suite.Column) time.Duration {
	param := regexp.MustCompile(`/` + regexp.QuoteMeta(c.Param) + `=([^/-]+)`)
	for _, k := range r.keys(pkg, stats.Tidy(c.Unit)) {
		if m := param.FindStringSubmatch(k.Name); m != nil && strings.HasPrefix(k.Name, c.Bench+"/") {
			d, _ := time.ParseDuration(m[1])
			return d
		}
	}
	return 0
}
