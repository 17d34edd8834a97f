// Package verify checks that a results directory and a rendered report are usable: every raw
// file parses as Go benchmark format without a malformed line, every profile parses with
// github.com/google/pprof/profile and holds samples, and every chart is well-formed XML.
package verify

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/profiles"
	"timerlab/internal/results"
)

// Results checks the raw files and profiles of the matrix recorded in dir: a profile for every set
// each variant runs (an alias variant runs only some sets, and has no profile of the others), but
// the sets of instruction counts, which have none.
func Results(dir string) error {
	spec, err := matrix.ReadSpec(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, v := range spec.Variants {
		errs = append(errs, rawFile(filepath.Join(dir, results.RawPath(v))))
		for _, set := range spec.Sets {
			if !spec.Runs(v, set) || !spec.Profiled(set) {
				continue
			}
			errs = append(errs, profile(filepath.Join(dir, results.ProfilePath(v, set))))
		}
	}
	return errors.Join(errs...)
}

func rawFile(path string) error {
	res, warnings, err := results.Read(path)
	if err != nil {
		return err
	}
	if len(warnings) > 0 {
		return fmt.Errorf("%s: %s", path, strings.Join(warnings, "; "))
	}
	if len(res) == 0 {
		return fmt.Errorf("%s: no benchmark results", path)
	}
	return nil
}

func profile(path string) error {
	p, err := profiles.Load(path)
	if err != nil {
		return err
	}
	if len(p.Sample) == 0 {
		return fmt.Errorf("%s: profile has no samples", path)
	}
	return nil
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
