// Package report turns a results directory into docs/results.md and its SVG charts.
package report

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"timerlab/internal/atomicfile"
	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/plots"
	"timerlab/internal/profiles"
	"timerlab/internal/results"
	"timerlab/internal/selection"
	"timerlab/internal/stats"
	"timerlab/internal/suite"
)

// Report is everything read from one results directory.
type Report struct {
	Dir      string // the results directory
	Spec     matrix.Spec
	Env      results.Env
	Variants []string // baseline first
	Index    *stats.Index
	Warnings []string

	xbench *Report // the matrix of golang.org/x/benchmarks' sets LoadXBench added, if any
}

// Load reads the raw files and environment of the results directory dir.
func Load(dir string) (*Report, error) {
	spec, err := matrix.ReadSpec(dir)
	if err != nil {
		return nil, err
	}
	env, err := results.ReadEnv(dir)
	if err != nil {
		return nil, err
	}
	if err := checkSpec(dir, spec, env); err != nil {
		return nil, err
	}
	variants := lab.BaselineFirst(spec.Variants)
	var files []string
	for _, v := range variants {
		f := filepath.Join(dir, results.RawPath(v))
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("%s: no raw file of variant %s (timerlab bench writes raw/VARIANT.txt after the last "+
				"cell; rerun it to finish the matrix)", dir, v)
		}
		files = append(files, f)
	}
	res, warnings, err := results.Read(files...)
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("%s holds no benchmark results", dir)
	}
	r := &Report{Dir: dir, Spec: spec, Env: env, Variants: variants, Index: stats.NewIndex(res), Warnings: warnings}
	r.warnMissing()
	return r, nil
}

// checkSpec refuses a matrix this report cannot render: one that names a benchmark set this
// timerlab does not know (of a newer or older checkout), or a variant whose toolchain env.json does
// not describe.
func checkSpec(dir string, spec matrix.Spec, env results.Env) error {
	file := filepath.Join(dir, "matrix.json")
	all := suite.Sets(spec.Quick)
	for _, name := range spec.Sets {
		if _, ok := suite.Find(all, name); !ok {
			var known []string
			for _, s := range all {
				known = append(known, s.Name)
			}
			return fmt.Errorf("%s names the benchmark set %q, unknown to this timerlab (known: %s)", file, name,
				strings.Join(known, " "))
		}
	}
	for _, v := range spec.Variants {
		if _, ok := env.Toolchain(v); !ok {
			return fmt.Errorf("%s names the variant %q, whose toolchain %s does not describe", file, v,
				filepath.Join(dir, "env.json"))
		}
	}
	return nil
}

// warnMissing adds a warning for every benchmark a set expects that has no result for some
// variant that ran the set: absent from that toolchain's package, or filtered out by the set's
// pattern.
func (r *Report) warnMissing() {
	for _, name := range r.Spec.Sets {
		set := r.set(name)
		for _, e := range set.Expected() {
			var without []string
			for _, v := range r.ran(name) {
				if !r.hasResult(e.Pkg, e.Bench, v) {
					without = append(without, v)
				}
			}
			if len(without) > 0 {
				r.Warnings = append(r.Warnings, fmt.Sprintf("set %s: no results for Benchmark%s with %s",
					name, e.Bench, strings.Join(without, ", ")))
			}
		}
	}
}

// set returns the benchmark set called name in the report's mode.
func (r *Report) set(name string) suite.Set {
	s, _ := suite.Find(suite.Sets(r.Spec.Quick), name)
	return s
}

// setsOf returns the matrix's sets that go test runs (xbench false) or sweet and bent (xbench
// true), in order.
func (r *Report) setsOf(xbench bool) []string {
	var out []string
	for _, name := range r.Spec.Sets {
		if (r.set(name).Tool != suite.GoTest) == xbench {
			out = append(out, name)
		}
	}
	return out
}

// isXBench reports whether k is a result of a set of golang.org/x/benchmarks: a package one of
// the matrix's sweet or bent sets records its results under.
func (r *Report) isXBench(k stats.Key) bool {
	for _, name := range r.setsOf(true) {
		for _, e := range r.set(name).Expected() {
			if e.Pkg == k.Pkg {
				return true
			}
		}
	}
	return false
}

// ran returns the variants the matrix ran set with, baseline first.
func (r *Report) ran(set string) []string {
	var out []string
	for _, v := range r.Variants {
		if r.Spec.Runs(v, set) {
			out = append(out, v)
		}
	}
	return out
}

// hasResult reports whether the benchmark (a top-level name) of pkg has a result with variant.
func (r *Report) hasResult(pkg, bench, variant string) bool {
	for _, k := range r.Index.Keys() {
		// A benchmark run with -test.cpu=1 has no -N suffix.
		if k.Pkg == pkg && (k.Name == bench || strings.HasPrefix(k.Name, bench+"-") || strings.HasPrefix(k.Name, bench+"/")) {
			if _, ok := r.Index.Sample(k, variant); ok {
				return true
			}
		}
	}
	return false
}

// Write renders the report as docsDir/results.md (lab.ReportFile) and its charts as
// docsDir/results/*.svg (lab.ChartDir),
// replacing the SVGs of an earlier report. Everything is rendered into a temporary directory
// first, so a report that fails leaves the earlier one as it was.
func (r *Report) Write(docsDir string) error {
	if err := os.MkdirAll(docsDir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(docsDir, ".results-*.tmp")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	charts, err := r.saveCharts(tmp)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	r.writeMarkdown(&b, charts)
	svgDir := filepath.Join(docsDir, lab.ChartDir)
	if err := removeSVGs(svgDir); err != nil {
		return err
	}
	for _, c := range charts {
		if err := os.Rename(filepath.Join(tmp, c.File), filepath.Join(svgDir, c.File)); err != nil {
			return err
		}
	}
	return atomicfile.WriteFile(filepath.Join(docsDir, lab.ReportFile), b.Bytes())
}

// removeSVGs empties the chart directory of charts; it holds nothing but generated files.
func removeSVGs(dir string) error {
	old, err := filepath.Glob(filepath.Join(dir, "*.svg"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	return os.MkdirAll(dir, 0o755)
}

// savedChart is a chart written to File (a base name in the chart directory).
type savedChart struct {
	File  string
	Chart plots.Chart
	Note  string
}

func (r *Report) saveCharts(dir string) ([]savedChart, error) {
	var saved []savedChart
	for _, c := range r.charts() {
		if c.Chart.Empty() {
			continue
		}
		if err := c.Chart.SaveSVG(filepath.Join(dir, c.File)); err != nil {
			return nil, err
		}
		saved = append(saved, c)
	}
	return saved, nil
}

func (r *Report) writeMarkdown(b *bytes.Buffer, charts []savedChart) {
	fmt.Fprintf(b, "<!-- Generated by `timerlab report` from %s. Do not edit: rerun `timerlab report`. -->\n\n",
		filepath.Base(r.Dir))
	b.WriteString("# timerlab results\n\n")
	r.writeIntro(b)
	r.writeVerdict(b)
	r.writeSummaries(b)
	r.writeEnv(b)
	r.writeSets(b)
	writeCharts(b, charts)
	r.writeResults(b)
	r.writeProfiles(b)
	r.writeXBench(b)
	r.writeWarnings(b)
}

// writeIntro says in one paragraph where the figures come from and where each part of the report is.
func (r *Report) writeIntro(b *bytes.Buffer) {
	e := r.Env
	fmt.Fprintf(b, "%s of %s: %s, %s, %s × -count=%d, run interleaved round-robin on %s, patch "+
		"series `%.8s` on %s. The verdict comes first; then the slack sweep, the environment, the charts, one "+
		"table per set, and the CPU profiles.\n\n", r.matrixName(), e.Date, count(len(r.Variants), "variant"),
		count(len(r.Spec.Sets), "benchmark set"), count(r.Spec.Rounds, "round"), r.Spec.Count, e.MachineLine(),
		e.SeriesSHA256, e.BaseVersion)
}

// matrixName names the matrix the report renders for its opening line: the CI's quick matrix, the
// first answer's (make: the headline sets), the full one (every set of the mode), or a matrix of
// some sets.
func (r *Report) matrixName() string {
	switch {
	case r.Env.Mode == "quick":
		return "A quick matrix"
	case slices.Equal(r.Spec.Sets, selection.HeadlineSets):
		return "The first answer's matrix (make: the headline sets)"
	case r.ranEverySet():
		return "A full matrix"
	}
	return "A matrix"
}

// ranEverySet reports whether the matrix ran every set a full matrix runs when none is named.
func (r *Report) ranEverySet() bool {
	for _, s := range selection.Default(suite.Sets(false)) {
		if !slices.Contains(r.Spec.Sets, s.Name) {
			return false
		}
	}
	return true
}

func (r *Report) writeEnv(b *bytes.Buffer) {
	e := r.Env
	b.WriteString("## Environment\n\n| | |\n| --- | --- |\n")
	fmt.Fprintf(b, "| date | %s |\n", e.Date)
	fmt.Fprintf(b, "| matrix | %s: %d rounds × -count=%d, runs interleaved round-robin across variants |\n",
		e.Mode, r.Spec.Rounds, r.Spec.Count)
	fmt.Fprintf(b, "| CPU | %s |\n| kernel | %s |\n", e.CPUModel, e.Kernel)
	fmt.Fprintf(b, "| cores / GOMAXPROCS | %d / %d |\n", e.Cores, e.GOMAXPROCS)
	fmt.Fprintf(b, "| base | %s |\n| patch series sha256 | `%s` |\n\n", e.BaseVersion, e.SeriesSHA256)
	b.WriteString("| variant | go version | GOEXPERIMENT | GODEBUG |\n| --- | --- | --- | --- |\n")
	for _, v := range r.Variants {
		tc, _ := e.Toolchain(v)
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", v, tc.Version, orDash(tc.GOEXPERIMENT), orDash(tc.GODEBUG))
	}
	b.WriteString("\n")
}

func (r *Report) writeSets(b *bytes.Buffer) {
	b.WriteString("## Benchmark sets\n\n")
	for _, name := range r.Spec.Sets {
		s := r.set(name)
		if s.Tool != suite.GoTest {
			var names []string // sweet's benchmarks, bent's suites
			for _, x := range s.XBench {
				names = append(names, cmp.Or(x.Suite, x.Name))
			}
			fmt.Fprintf(b, "- `%s` (%s: %s): %s\n", name, s.Tool, strings.Join(names, ", "), s.About)
			continue
		}
		fmt.Fprintf(b, "- `%s` (`%s`, `-bench '%s'`): %s\n", name, s.Pkg, s.Pattern(), s.About)
	}
	b.WriteString("\n")
}

func writeCharts(b *bytes.Buffer, charts []savedChart) {
	b.WriteString("## Charts\n\n")
	if len(charts) == 0 {
		b.WriteString("No chart: the results hold none of the charted benchmarks.\n\n")
	}
	note := ""
	for _, c := range charts {
		fmt.Fprintf(b, "### %s\n\n![%s](%s/%s)\n\n", c.Chart.Title, c.Chart.Title, lab.ChartDir, c.File)
		if c.Note != "" && c.Note != note { // a note the chart before had says nothing new
			b.WriteString(c.Note + "\n\n")
		}
		note = c.Note
	}
}

// profileCategories says how the profile shares are counted.
const profileCategories = "Each sample counts once, for the first of these met walking from the leaf through runtime frames only: " +
	"clock: runtime.nanotime*, runtime.walltime*; timer: a function in runtime/time*.go; " +
	"netpoll: runtime.netpoll* and epoll waits. A variant has a row for each set it ran (an alias runs only the " +
	"sets sensitive to timer slack)."

// writeProfiles writes the profile shares of the sets go test runs; those of golang.org/x/benchmarks
// are in their own section.
func (r *Report) writeProfiles(b *bytes.Buffer) {
	sets := r.setsOf(false)
	if len(sets) == 0 {
		return
	}
	b.WriteString("## CPU profiles\n\n")
	b.WriteString("One extra `-count=1` run per variant and set with `-cpuprofile` (profiles/VARIANT/SET.pb.gz). " +
		profileCategories + "\n\n")
	r.writeShares(b, sets, "###")
}

// writeShares writes the timer, clock and netpoll shares of the profiles of sets, one row per set
// and variant that ran it, then, under a heading of level, the functions whose flat share differs
// most from the baseline's, for the variants that are not aliases.
func (r *Report) writeShares(b *bytes.Buffer, sets []string, level string) {
	b.WriteString("| set | variant | timer | clock | netpoll |\n| --- | --- | --- | --- | --- |\n")
	complete := map[string][]profiles.Analysis{} // sets profiled with every variant of their main table
	for _, set := range sets {
		main, _ := r.setVariants(set)
		var analyses []profiles.Analysis
		for _, v := range r.ran(set) {
			a, err := r.analyze(v, set)
			if err != nil {
				r.Warnings = append(r.Warnings, err.Error())
				writeRow(b, set, v, "—", "—", "—")
				continue
			}
			if slices.Contains(main, v) {
				analyses = append(analyses, a)
			}
			writeRow(b, set, v, pct(a.Timer), pct(a.Clock), pct(a.Netpoll))
		}
		if len(analyses) == len(main) {
			complete[set] = analyses
		}
	}
	b.WriteString("\n")
	if len(complete) == 0 {
		return
	}
	b.WriteString(level + " Functions whose flat CPU share differs most from " + r.Variants[0] + "\n\n")
	for _, set := range sets {
		if analyses, ok := complete[set]; ok {
			main, _ := r.setVariants(set)
			writeDiffs(b, set, main, profiles.TopDiffs(analyses, 8))
		}
	}
}

// analyze reads and analyses the profile of variant running set.
func (r *Report) analyze(variant, set string) (profiles.Analysis, error) {
	p, err := profiles.Load(filepath.Join(r.Dir, results.ProfilePath(variant, set)))
	if err != nil {
		return profiles.Analysis{}, err
	}
	return profiles.Analyze(p), nil
}

// writeDiffs writes the diffs of set's profiles, those of variants in order.
func writeDiffs(b *bytes.Buffer, set string, variants []string, diffs []profiles.Diff) {
	fmt.Fprintf(b, "`%s`:\n\n| function | %s |\n|%s\n", set, strings.Join(variants, " | "),
		strings.Repeat(" --- |", len(variants)+1))
	for _, d := range diffs {
		row := []string{"`" + d.Function + "`"}
		for _, s := range d.Shares {
			row = append(row, pct(s))
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	b.WriteString("\n")
}

func (r *Report) writeWarnings(b *bytes.Buffer) {
	if len(r.Warnings) == 0 {
		return
	}
	b.WriteString("## Warnings\n\n")
	for _, w := range r.Warnings {
		fmt.Fprintf(b, "- %s\n", strings.ReplaceAll(w, "\n", " "))
	}
}

// count is n things, "1 round" or "6 rounds".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func pct(f float64) string {
	return fmt.Sprintf("%.1f%%", 100*f)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Render renders the matrix in the results directory dir into docs (lab.ReportFile and its
// charts), with the section of golang.org/x/benchmarks from the results directory xbench ("none":
// no such section), and says on log what it wrote and what it warns about. Empty arguments take
// the layout's defaults: the main matrix, the checkout's docs, and the layout's matrix of
// golang.org/x/benchmarks when dir is the default and that directory holds a matrix.
func Render(l lab.Layout, dir, docs, xbench string, log io.Writer) error {
	if xbench == "" && dir == "" {
		if _, err := matrix.ReadSpec(l.XBenchResults()); err == nil {
			xbench = l.XBenchResults()
		}
	}
	if dir == "" {
		dir = l.Results(false)
	}
	if docs == "" {
		docs = l.Docs()
	}
	r, err := Load(dir)
	if err != nil {
		return err
	}
	if xbench != "" && xbench != "none" {
		if err := r.LoadXBench(xbench); err != nil {
			return err
		}
		fmt.Fprintf(log, "timerlab: the golang.org/x/benchmarks section from %s\n", xbench)
	}
	err = r.Write(docs)
	for _, w := range r.Warnings { // Write adds those about the profiles
		fmt.Fprintln(log, "timerlab: warning:", w)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "timerlab: wrote %s\n", filepath.Join(docs, lab.ReportFile))
	return nil
}
