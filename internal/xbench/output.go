package xbench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
	"golang.org/x/perf/benchfmt"

	"timerlab/internal/suite"
)

// SweetResults returns the output of one sweet run of set with the configuration config, from
// sweet's -results directory: each benchmark's results file (results/NAME/CONFIG.results, Go
// benchmark format) after a pkg: line naming its driver, so that results of different benchmarks
// and sets stay apart. Every benchmark the set expects must have a result, and every line that
// looks like one must parse.
func SweetResults(dir string, set suite.Set, config string) ([]byte, error) {
	var b bytes.Buffer
	for _, x := range set.XBench {
		path := filepath.Join(dir, x.Name, config+".results")
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("sweet wrote no results for %s: %v", x.Name, err)
		}
		fmt.Fprintf(&b, "pkg: %s\n", x.Pkg)
		b.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), checkResults(b.Bytes(), set, "sweet")
}

// BentResults checks the stdout of one bent run of set (bench/STAMP.CONFIG.stdout): every
// benchmark the set expects has a result there, every line that looks like one parses. Bent
// disables a benchmark it cannot build or run and goes on, so a missing one is an error here.
func BentResults(stdout []byte, set suite.Set) error {
	return checkResults(stdout, set, "bent")
}

// checkResults reports an error if output has a malformed benchmark line, or lacks a result of a
// benchmark set expects.
func checkResults(output []byte, set suite.Set, tool string) error {
	have := map[suite.Expected]bool{}
	r := benchfmt.NewReader(bytes.NewReader(output), tool)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return fmt.Errorf("%s output: malformed line: %v", tool, rec)
		case *benchfmt.Result:
			have[suite.Expected{Pkg: rec.GetConfig("pkg"), Bench: string(rec.Name.Base())}] = true
		}
	}
	var missing []string
	for _, e := range set.Expected() {
		if !have[e] {
			missing = append(missing, e.Pkg+" Benchmark"+e.Bench)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s output has no result for %s", tool, strings.Join(missing, ", "))
	}
	return nil
}

// MergeProfiles merges the CPU profiles files into one, gzipped protobuf as pprof writes it. The
// files are merged in name order; there must be at least one, and each must parse.
func MergeProfiles(files []string) ([]byte, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no CPU profile written")
	}
	files = slices.Clone(files)
	sort.Strings(files)
	var ps []*profile.Profile
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		p, err := profile.ParseData(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		ps = append(ps, p)
	}
	merged, err := profile.Merge(ps)
	if err != nil {
		return nil, fmt.Errorf("merging %s: %v", strings.Join(files, ", "), err)
	}
	if len(merged.Sample) == 0 {
		return nil, fmt.Errorf("the CPU profiles %s hold no sample", strings.Join(files, ", "))
	}
	var b bytes.Buffer
	if err := merged.Write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
