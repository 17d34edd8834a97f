// Package verify checks that a results directory and a rendered report are usable. A results
// directory is complete when its matrix.json and env.json parse and describe each other, every
// variant's raw file parses as Go benchmark format without a malformed line and holds every run
// cell of the variant, and every profile the matrix takes parses with github.com/google/pprof/profile
// and holds samples. A benchmark a set expects without a result, in runs that all ran, is a
// warning: the toolchain's package lacks it, or it skipped itself (a busy machine, too few Ps). A report is usable when it opens with its verdict, holds tables, its charts are
// well-formed XML, and it was rendered from the results directory it is checked against.
//
// The report renders what Inspect reads, and refuses what Results refuses (unless asked for a
// partial report), so that the two never disagree.
package verify

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"

	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/profiles"
	"timerlab/internal/results"
	"timerlab/internal/suite"
)

// Contents is what a results directory holds: its matrix and environment, the results of its raw
// files, every way it falls short of complete (Gaps), each a line that names a file relative to
// Dir, and the benchmarks its runs did not report (Warnings), each a line that names the set.
type Contents struct {
	Dir      string
	Spec     matrix.Spec
	Env      results.Env
	Results  []*benchfmt.Result // of every raw file that parses, in the order of Spec.Variants
	Gaps     []string
	Warnings []string
}

// Inspect reads the results directory dir. What nothing can be made of is an error: no
// matrix.json or env.json, or one that does not parse or fails matrix.Spec.Validate, a set this
// timerlab does not know (of a newer or older checkout), a variant whose toolchain env.json does
// not describe. What leaves the matrix incomplete is a gap; a benchmark a set expects that its
// complete runs did not report, a warning.
func Inspect(dir string) (*Contents, error) {
	spec, err := matrix.ReadSpec(dir)
	if err != nil {
		return nil, err
	}
	env, err := results.ReadEnv(dir)
	if err != nil {
		return nil, err
	}
	if err := known(dir, spec, env); err != nil {
		return nil, err
	}
	c := &Contents{Dir: dir, Spec: spec, Env: env}
	var read []string // the variants whose raw file holds results
	for _, v := range spec.Variants {
		if c.raw(v) {
			read = append(read, v)
		}
	}
	c.expected(read)
	for _, set := range spec.Sets {
		for _, v := range spec.Variants {
			if spec.Runs(v, set) && spec.Profiled(set) {
				c.profile(results.ProfilePath(v, set))
			}
		}
	}
	return c, nil
}

// known refuses a matrix that names a set this timerlab does not know, but the sets of
// instruction counts (matrix.Spec.Counts) and of packages (matrix.Spec.Packages), or a variant whose
// toolchain env.json does not describe.
func known(dir string, spec matrix.Spec, env results.Env) error {
	file := filepath.Join(dir, "matrix.json")
	all := suite.Sets(spec.Quick)
	var unknown, known []string
	for _, s := range all {
		known = append(known, s.Name)
	}
	for _, name := range spec.Sets {
		_, counted := spec.Counts[name]
		if _, pkg := spec.Packages[name]; !counted && !pkg && !slices.Contains(known, name) {
			unknown = append(unknown, fmt.Sprintf("%q", name))
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("%s names the benchmark %s %s, unknown to this timerlab (known: %s)", file,
			plural(len(unknown), "set", "sets"), strings.Join(unknown, ", "), strings.Join(known, " "))
	}
	var undescribed []string
	for _, v := range spec.Variants {
		if _, ok := env.Toolchain(v); !ok {
			undescribed = append(undescribed, fmt.Sprintf("%q", v))
		}
	}
	if len(undescribed) > 0 {
		return fmt.Errorf("%s names the %s %s, whose %s %s does not describe", file,
			plural(len(undescribed), "variant", "variants"), strings.Join(undescribed, ", "),
			plural(len(undescribed), "toolchain", "toolchains"), filepath.Join(dir, "env.json"))
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (c *Contents) gap(format string, args ...any) {
	c.Gaps = append(c.Gaps, fmt.Sprintf(format, args...))
}

// raw reads variant's raw file: it must parse without a malformed line, hold results, and hold
// every run cell of the variant (results.Assemble heads each with the cell). It reports whether
// the file holds results; when it does not, that is the one gap said of it.
func (c *Contents) raw(variant string) bool {
	rel := results.RawPath(variant)
	path := filepath.Join(c.Dir, rel)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		c.gap("%s: missing (timerlab bench writes it after the last cell of the matrix: run it again)", rel)
		return false
	}
	if err != nil {
		c.gap("%s: %v", rel, err)
		return false
	}
	res, warnings, err := results.Read(path)
	if err != nil {
		c.gap("%s: %v", rel, err)
		return false
	}
	c.Results = append(c.Results, res...)
	for _, w := range warnings {
		c.gap("%s", strings.ReplaceAll(w, path, rel))
	}
	if len(res) == 0 {
		c.gap("%s: no benchmark results", rel)
		return false
	}
	var lacking []string
	for _, cell := range c.Spec.RunCells(variant) {
		if !strings.Contains(string(data), "\n# "+cell.String()+"\n") {
			lacking = append(lacking, fmt.Sprintf("%s round %d", cell.Set, cell.Round))
		}
	}
	if len(lacking) > 0 {
		c.gap("%s: lacks the runs of %s", rel, strings.Join(lacking, ", "))
	}
	return true
}

// gomaxprocsSuffix is the -N a benchmark's name ends with when it ran at GOMAXPROCS N.
var gomaxprocsSuffix = regexp.MustCompile(`-\d+$`)

// expected adds a warning for every benchmark a set expects that has no result with some variant
// that ran the set, of the variants read (whose raw file holds results): absent from that
// toolchain's package, filtered out by the set's pattern, or skipped by the benchmark itself,
// which the testing package does not print.
func (c *Contents) expected(read []string) {
	type bench struct{ pkg, name, variant string }
	have := map[bench]bool{}
	for _, r := range c.Results {
		top, _, _ := strings.Cut(string(r.Name.Full()), "/")
		top = gomaxprocsSuffix.ReplaceAllString(top, "") // -test.cpu=1 leaves none
		have[bench{r.GetConfig("pkg"), top, r.GetConfig("variant")}] = true
	}
	for _, name := range c.Spec.Sets {
		set, ok := c.Spec.Set(name)
		if !ok {
			continue // a set of instruction counts
		}
		for _, e := range set.Expected() {
			var without []string
			for _, v := range read {
				if c.Spec.Runs(v, name) && !have[bench{e.Pkg, e.Bench, v}] {
					without = append(without, v)
				}
			}
			if len(without) > 0 {
				c.Warnings = append(c.Warnings, fmt.Sprintf("set %s: no results for Benchmark%s with %s", name, e.Bench,
					strings.Join(without, ", ")))
			}
		}
	}
}

// profile checks the profile at rel parses and holds samples.
func (c *Contents) profile(rel string) {
	p, err := profiles.Load(filepath.Join(c.Dir, rel))
	switch {
	case errors.Is(err, os.ErrNotExist):
		c.gap("%s: missing", rel)
	case err != nil:
		c.gap("%s: %v", rel, strings.TrimPrefix(err.Error(), filepath.Join(c.Dir, rel)+": "))
	case len(p.Sample) == 0:
		c.gap("%s: profile has no samples", rel)
	}
}

// IncompleteError is the one line that refuses the results directory dir for its gaps: the first
// few, and how many more.
func IncompleteError(dir string, gaps []string) error {
	const shown = 4
	list := strings.Join(gaps[:min(shown, len(gaps))], "; ")
	if len(gaps) > shown {
		list += fmt.Sprintf("; and %d more", len(gaps)-shown)
	}
	return fmt.Errorf("%s is incomplete: %s", dir, list)
}

// Results checks the results directory dir is complete (Inspect, with no gap).
func Results(dir string) error {
	c, err := Inspect(dir)
	if err != nil {
		return err
	}
	if len(c.Gaps) > 0 {
		return IncompleteError(dir, c.Gaps)
	}
	return nil
}

// The sources a report records it was rendered from, each in a line of its own (SourceLine).
const (
	SourceResults = "results"
	SourceXBench  = "xbench results"
	SourceInstr   = "instr results"
)

// SourceLine is the comment by which a report records that it was rendered from the results
// directory named name, whose results.Digest is digest, as its source (SourceResults,
// SourceXBench or SourceInstr).
func SourceLine(source, name, digest string) string {
	return fmt.Sprintf("<!-- %s: %s, sha256 %s -->\n", source, name, digest)
}

var sourceLine = regexp.MustCompile(`(?m)^<!-- (` + SourceResults + `|` + SourceXBench + `|` + SourceInstr + `): (.*), sha256 ([0-9a-f]{64}) -->$`)

// Source checks that the report in docsDir was rendered from the results directory dir: that the
// digest it records of its results, of the results of its golang.org/x/benchmarks section, or of
// its instruction counts, is dir's.
func Source(docsDir, dir string) error {
	file := filepath.Join(docsDir, lab.ReportFile)
	md, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	sources := sourceLine.FindAllSubmatch(md, -1)
	if len(sources) == 0 {
		return fmt.Errorf("%s records no results it was rendered from (an older timerlab's report?): "+
			"rerun timerlab report --results %s --docs %s", file, dir, docsDir)
	}
	spec, err := matrix.ReadSpec(dir)
	if err != nil {
		return err
	}
	digest, err := results.Digest(dir, spec)
	if err != nil {
		return err
	}
	for _, m := range sources {
		if string(m[3]) == digest {
			return nil
		}
	}
	m := sources[0]
	return fmt.Errorf("%s was rendered from other results than %s's (from %s, sha256 %.12s; %s's is %.12s): "+
		"rerun timerlab report --results %s --docs %s", file, dir, m[2], m[3], dir, digest, dir, docsDir)
}

// Report checks docsDir/results.md opens with its verdict and holds tables of results, and that its
// charts are XML.
func Report(docsDir string) error {
	md, err := os.ReadFile(filepath.Join(docsDir, lab.ReportFile))
	if err != nil {
		return err
	}
	if !strings.Contains(string(md), "\n## Verdict\n") {
		return fmt.Errorf("%s/results.md has no verdict", docsDir)
	}
	if !strings.Contains(string(md), "\n| benchmark | unit |") {
		return fmt.Errorf("%s/results.md has no table of results", docsDir)
	}
	svgs, err := filepath.Glob(filepath.Join(docsDir, lab.ChartDir, "*.svg"))
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range svgs {
		errs = append(errs, XMLFile(f))
	}
	return errors.Join(errs...)
}

// XMLFile reports whether file is well-formed XML.
func XMLFile(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	d := xml.NewDecoder(f)
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %v", file, err)
		}
	}
}
