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
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"timerlab/internal/atomicfile"
	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/plots"
	"timerlab/internal/profiles"
	"timerlab/internal/results"
	"timerlab/internal/selection"
	"timerlab/internal/stats"
	"timerlab/internal/suite"
	"timerlab/internal/verify"
)

// Report is everything read from one results directory.
type Report struct {
	Dir      string // the results directory
	Spec     matrix.Spec
	Env      results.Env
	Variants []string // baseline first
	Index    *stats.Index
	Warnings []string
	// Partial is what the results lack or mix (verify.Inspect's gaps), when LoadPartial renders
	// them anyway: the report opens with it.
	Partial []string
	// Digest is results.Digest of the directory, which the report records so that verify can
	// tell the results it was rendered from.
	Digest string

	// CodeSeries is the patch series of the code that renders the report, where it is not the
	// results' (CheckSeries): the report opens with a line naming both.
	CodeSeries string

	partial bool    // loaded by LoadPartial
	xbench  *Report // the matrix of golang.org/x/benchmarks' sets LoadXBench added, if any
	instr   *Report // the matrix of instruction counts LoadInstr added, if any

	profs map[string]*profile.Profile // by file, as loadProfile read them (none is modified)
}

// Load reads the results directory dir, as verify.Inspect reads it, and refuses it where
// verify.Results would: a report of incomplete results would show a verdict that changes, without
// a word, once they are complete.
func Load(dir string) (*Report, error) {
	return load(dir, false)
}

// LoadPartial is Load for results that are incomplete or mixed: it refuses only what nothing can
// be made of, and the report opens with what they lack (Partial).
func LoadPartial(dir string) (*Report, error) {
	return load(dir, true)
}

func load(dir string, partial bool) (*Report, error) {
	c, err := verify.Inspect(dir)
	if err != nil {
		return nil, err
	}
	if len(c.Gaps) > 0 && !partial {
		return nil, fmt.Errorf("%v (timerlab report --partial renders what it holds, and says what it lacks)",
			verify.IncompleteError(dir, c.Gaps))
	}
	if len(c.Results) == 0 {
		return nil, fmt.Errorf("%s holds no benchmark results", dir)
	}
	digest, err := results.Digest(dir, c.Spec)
	if err != nil {
		return nil, err
	}
	return &Report{Dir: dir, Spec: c.Spec, Env: c.Env, Variants: lab.BaselineFirst(c.Spec.Variants),
		Index: stats.NewIndex(c.Results), Warnings: c.Warnings, Partial: c.Gaps, Digest: digest, partial: partial}, nil
}

// set returns the benchmark set called name in the report's mode.
func (r *Report) set(name string) suite.Set {
	s, _ := r.Spec.Set(name)
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
	fmt.Fprintf(b, "<!-- Generated by `timerlab report` from %s. Do not edit: rerun `timerlab report`. -->\n",
		filepath.Base(r.Dir))
	b.WriteString(verify.SourceLine(verify.SourceResults, filepath.Base(r.Dir), r.Digest))
	if r.xbench != nil {
		b.WriteString(verify.SourceLine(verify.SourceXBench, filepath.Base(r.xbench.Dir), r.xbench.Digest))
	}
	if r.instr != nil {
		b.WriteString(verify.SourceLine(verify.SourceInstr, filepath.Base(r.instr.Dir), r.instr.Digest))
	}
	b.WriteString("\n# timerlab results\n\n")
	r.writeStale(b)
	r.writePartial(b)
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

// mixSeries adds to r a section, named what, of the results directory dir, which ran patch series
// series: where that is not r's series it refuses the section, in an error whose cause is how,
// unless r is partial, whose list then says so.
func (r *Report) mixSeries(what, dir, series, how string) error {
	if series == r.Env.SeriesSHA256 {
		return nil
	}
	if !r.partial {
		return fmt.Errorf("%s (%s) ran patch series %.8s, %s ran %.8s: %s, or render them mixed with --partial",
			what, dir, series, r.Dir, r.Env.SeriesSHA256, how)
	}
	r.Partial = append(r.Partial, fmt.Sprintf("%s (%s) ran patch series %.8s, the rest %.8s", what, filepath.Base(dir),
		series, r.Env.SeriesSHA256))
	return nil
}

// CheckSeries records code, the patch series of the checkout that renders r (lab.Layout.SeriesHash),
// where it differs from the series r's results ran with.
func (r *Report) CheckSeries(code string) {
	r.CodeSeries = ""
	if code != r.Env.SeriesSHA256 {
		r.CodeSeries = code
	}
}

// writeStale opens a report whose results ran with another patch series than the code's with one
// line that names both.
func (r *Report) writeStale(b *bytes.Buffer) {
	if r.CodeSeries == "" {
		return
	}
	fmt.Fprintf(b, "**Not the code's series.** These results ran with patch series `%.8s`; the checkout that "+
		"rendered them is at series `%.8s` (`make` measures it).\n\n", r.Env.SeriesSHA256, r.CodeSeries)
}

// writePartial opens a report of results that are incomplete or mixed (LoadPartial) with what they
// lack or mix.
func (r *Report) writePartial(b *bytes.Buffer) {
	if len(r.Partial) == 0 {
		return
	}
	b.WriteString("**A partial report.** `timerlab report --partial` rendered it from results that are incomplete " +
		"or mixed, which `timerlab verify` refuses. Its figures lack or mix what this list says, and its verdict may " +
		"change once the matrix is complete:\n\n")
	for _, p := range r.Partial {
		fmt.Fprintf(b, "- %s\n", p)
	}
	b.WriteString("\n")
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
	run := "One extra run" // its count not recorded (matrix.Spec.ProfileCount)
	if n := r.Spec.ProfileCount; n > 0 {
		run = fmt.Sprintf("One extra `-count=%d` run", n)
	}
	fmt.Fprintf(b, "%s per variant and set with `-cpuprofile` (profiles/VARIANT/SET.pb.gz). %s %s\n\n",
		run, profileCategories, profileRule)
	r.writeShares(b, sets, "###")
}

// profileRule says when the report shows a share; profiles.MinSamples and profiles.Differs apply it.
var profileRule = fmt.Sprintf("A share is shown with its 95%% interval (Agresti-Coull), and only for a profile "+
	"of at least %d samples (—: fewer). A function is listed as differing from the baseline only where some "+
	"variant's share differs from the baseline's by more than %.2f standard errors of the difference (a 99.9%% "+
	"interval: a profile holds hundreds of functions); a share that does not is marked ~.",
	profiles.MinSamples, profiles.DiffZ)

// DiffProfilePath is where WriteDiffProfiles puts variant's profile of set less the baseline's,
// relative to the results directory.
func DiffProfilePath(variant, set string) string {
	return filepath.Join("profiles-diff", variant, set+".pb.gz")
}

// writeShares writes the timer, clock and netpoll shares of the profiles of sets, one row per set
// and variant that ran it, then, under a heading of level, the functions whose flat share differs
// most from the baseline's, for the variants that are not aliases.
func (r *Report) writeShares(b *bytes.Buffer, sets []string, level string) {
	b.WriteString("| set | variant | samples | timer | clock | netpoll |\n| --- | --- | --- | --- | --- | --- |\n")
	complete := map[string][]profiles.Analysis{} // sets profiled with every variant of their main table
	for _, set := range sets {
		main, _ := r.setVariants(set)
		var analyses []profiles.Analysis
		for _, v := range r.ran(set) {
			a, err := r.analyze(v, set)
			if err != nil { // a gap of a partial report, which it lists
				writeRow(b, set, v, "—", "—", "—", "—")
				continue
			}
			if slices.Contains(main, v) {
				analyses = append(analyses, a)
			}
			writeRow(b, set, v, strconv.FormatInt(a.Samples, 10), share(a.Timer, a), share(a.Clock, a), share(a.Netpoll, a))
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
	example := ""
	for _, set := range sets {
		analyses, ok := complete[set]
		if !ok {
			continue
		}
		main, _ := r.setVariants(set)
		if diffs := profiles.TopDiffs(analyses, 8); len(diffs) > 0 {
			writeDiffs(b, set, main, diffs)
		} else {
			fmt.Fprintf(b, "`%s`: no function's share differs from %s's beyond the interval.\n\n", set, r.Variants[0])
		}
		if example == "" && len(main) > 1 {
			example = DiffProfilePath(main[1], set)
		}
	}
	if example != "" {
		fmt.Fprintf(b, "Each variant's profile less %s's, as `go tool pprof -diff_base` forms it, is in the results "+
			"directory (%s) as profiles-diff/VARIANT/SET.pb.gz (`timerlab report` writes it); one opens with "+
			"`go tool pprof -http=: %s`.\n\n", r.Variants[0], filepath.Base(r.Dir), filepath.ToSlash(example))
	}
}

// share is a share of a's profile with its 95% interval, or — where a has too few samples.
func share(p float64, a profiles.Analysis) string {
	if !a.Supported() {
		return "—"
	}
	return fmt.Sprintf("%.1f ± %.1f%%", 100*p, 100*profiles.HalfWidth(p, a.Samples))
}

// analyze reads and analyses the profile of variant running set.
func (r *Report) analyze(variant, set string) (profiles.Analysis, error) {
	p, err := r.loadProfile(variant, set)
	if err != nil {
		return profiles.Analysis{}, err
	}
	return profiles.Analyze(p), nil
}

// loadProfile returns the profile of variant running set, read once for the shares and the
// difference profiles both.
func (r *Report) loadProfile(variant, set string) (*profile.Profile, error) {
	file := filepath.Join(r.Dir, results.ProfilePath(variant, set))
	if p, ok := r.profs[file]; ok {
		return p, nil
	}
	p, err := profiles.Load(file)
	if err != nil {
		return nil, err
	}
	if r.profs == nil {
		r.profs = map[string]*profile.Profile{}
	}
	r.profs[file] = p
	return p, nil
}

// writeDiffs writes the diffs of set's profiles, those of variants in order.
func writeDiffs(b *bytes.Buffer, set string, variants []string, diffs []profiles.Diff) {
	fmt.Fprintf(b, "`%s`:\n\n| function | %s |\n|%s\n", set, strings.Join(variants, " | "),
		strings.Repeat(" --- |", len(variants)+1))
	for _, d := range diffs {
		row := []string{"`" + d.Function + "`"}
		for i, s := range d.Shares {
			c := pct(s)
			if i > 0 && !d.Differs[i] {
				c += " ~"
			}
			row = append(row, c)
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// WriteDiffProfiles writes, for each set profiled with every variant of its main table, each
// variant's profile less the baseline's to DiffProfilePath in the results directory, and the same
// for the matrix of golang.org/x/benchmarks LoadXBench added. It returns how many it wrote.
func (r *Report) WriteDiffProfiles() (int, error) {
	n := 0
	for _, x := range []*Report{r, r.xbench} {
		if x == nil {
			continue
		}
		for _, set := range x.Spec.Sets {
			main, _ := x.setVariants(set)
			if len(main) < 2 || !x.Spec.Profiled(set) {
				continue
			}
			base, err := x.loadProfile(main[0], set)
			if err != nil {
				continue // a gap of a partial report
			}
			for _, v := range main[1:] {
				p, err := x.loadProfile(v, set)
				if err != nil {
					continue
				}
				var buf bytes.Buffer
				if err := profiles.WriteDiff(&buf, base, p); err != nil {
					return n, fmt.Errorf("%s less %s on %s: %v", v, main[0], set, err)
				}
				file := filepath.Join(x.Dir, DiffProfilePath(v, set))
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					return n, err
				}
				if err := atomicfile.WriteFile(file, buf.Bytes()); err != nil {
					return n, err
				}
				n++
			}
		}
	}
	return n, nil
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
// no such section) and the instruction counts of the results directory instr ("none": none), and
// says on log what it wrote and what it warns about; with partial, results that are incomplete or
// mixed too (LoadPartial). Empty arguments take the layout's defaults: the checkout's docs; the
// main matrix (make full's) if it holds one, else make's first answer. When dir is one of those
// two, an empty xbench or instr takes the layout's matrix of golang.org/x/benchmarks, and the
// first of make's and timerlab instr's counts, that holds a matrix of dir's patch series (one of
// another series is left out, with a line on log). A report of another series than the
// checkout's opens with a line that says so (CheckSeries).
func Render(l lab.Layout, dir, docs, xbench, instr string, partial bool, log io.Writer) error {
	if dir == "" {
		dir = DefaultResults(l)
		if _, err := os.Stat(filepath.Join(dir, "matrix.json")); err != nil {
			return fmt.Errorf("no results to render: neither %s (make full's) nor %s (make's) holds a matrix; "+
				"run make, or name the results with --results", l.Results(false), l.FirstResults())
		}
		fmt.Fprintf(log, "timerlab: rendering %s\n", dir)
	}
	own := samePath(dir, l.Results(false)) || samePath(dir, l.FirstResults())
	if docs == "" {
		docs = l.Docs()
	}
	r, err := load(dir, partial)
	if err != nil {
		return err
	}
	if code, err := l.SeriesHash(); err != nil {
		fmt.Fprintf(log, "timerlab: the checkout's patch series is unknown (%v): the report cannot say whether it is current\n", err)
	} else {
		r.CheckSeries(code)
	}
	if xbench == "" && own {
		if _, err := matrix.ReadSpec(l.XBenchResults()); err == nil {
			d := l.XBenchResults()
			env, err := results.ReadEnv(d)
			switch {
			case err == nil && env.SeriesSHA256 != r.Env.SeriesSHA256:
				err = fmt.Errorf("it ran patch series %.8s, these results %.8s", env.SeriesSHA256, r.Env.SeriesSHA256)
			case err == nil:
				err = r.LoadXBench(d)
			}
			if err != nil {
				fmt.Fprintf(log, "timerlab: the golang.org/x/benchmarks matrix in %s left out: %v\n", d, err)
			} else {
				fmt.Fprintf(log, "timerlab: the golang.org/x/benchmarks section from %s\n", d)
			}
		}
	} else if xbench != "" && xbench != "none" {
		if err := r.LoadXBench(xbench); err != nil {
			return err
		}
		fmt.Fprintf(log, "timerlab: the golang.org/x/benchmarks section from %s\n", xbench)
	}
	if instr == "" && own {
		for _, d := range []string{l.FirstInstrResults(), l.InstrResults()} {
			env, err := results.ReadEnv(d)
			if err != nil || env.Mode != "instr" || env.SeriesSHA256 != r.Env.SeriesSHA256 {
				continue
			}
			if err := r.LoadInstr(d); err != nil {
				fmt.Fprintf(log, "timerlab: instruction counts in %s left out: %v\n", d, err)
				continue
			}
			fmt.Fprintf(log, "timerlab: instructions per op from %s\n", d)
			break
		}
	} else if instr != "" && instr != "none" {
		if err := r.LoadInstr(instr); err != nil {
			return err
		}
		fmt.Fprintf(log, "timerlab: instructions per op from %s\n", instr)
	}
	for _, p := range r.Partial {
		fmt.Fprintln(log, "timerlab: partial:", p)
	}
	err = r.Write(docs)
	if err == nil {
		var n int
		n, err = r.WriteDiffProfiles()
		if err == nil && n > 0 {
			fmt.Fprintf(log, "timerlab: wrote %d difference profiles under %s\n", n, filepath.Join(dir, "profiles-diff"))
		}
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(log, "timerlab: warning:", w)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "timerlab: wrote %s\n", filepath.Join(docs, lab.ReportFile))
	return nil
}

// samePath reports whether a and b name one directory, either of them relative to the working
// directory.
func samePath(a, b string) bool {
	a, errA := filepath.Abs(a)
	b, errB := filepath.Abs(b)
	return errA == nil && errB == nil && a == b
}

// DefaultResults is the results directory timerlab report renders unless told: the main matrix
// (make full's, lab.Layout.Results) if it holds one, else the first answer's (make's,
// lab.Layout.FirstResults).
func DefaultResults(l lab.Layout) string {
	if _, err := os.Stat(filepath.Join(l.Results(false), "matrix.json")); err != nil {
		if _, err := os.Stat(filepath.Join(l.FirstResults(), "matrix.json")); err == nil {
			return l.FirstResults()
		}
	}
	return l.Results(false)
}
