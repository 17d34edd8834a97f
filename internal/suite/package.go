package suite

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// A Package is a set that timerlab bench --pkg makes of any package's benchmarks: a standard
// library package, a package of a module at a version (downloaded through the module proxy), or a
// package in a local directory. A matrix records its packages (matrix.Spec.Packages), since no
// list of timerlab's knows them.
type Package struct {
	// Path is the package's import path.
	Path string `json:"path"`
	// Version is the version of the module that holds Path (as go list -m reports it); "" for
	// a standard library package or one in a local directory.
	Version string `json:"version,omitempty"`
	// Dir is the absolute local directory that holds the package; "" for a standard library
	// package or one of a module at a version.
	Dir string `json:"dir,omitempty"`
	// Bench is the -test.bench pattern: every level of it, as go test -bench takes it.
	Bench string `json:"bench"`
	// Expect lists the top-level benchmarks Bench selected when the set was planned, without the
	// Benchmark prefix.
	Expect []string `json:"expect"`
}

// PackagePrefix begins the name of every set of a Package.
const PackagePrefix = "pkg-"

// PackageSetName returns the name of the set of the package that arg names (as timerlab bench
// --pkg takes it): PackagePrefix and its path and version, lower case, with every run of other
// characters than letters and digits a '-', so that it is safe in file names.
func PackageSetName(arg string) string {
	return PackagePrefix + strings.Trim(nonName.ReplaceAllString(strings.ToLower(arg), "-"), "-")
}

var nonName = regexp.MustCompile(`[^a-z0-9]+`)

// ModuleDirOf is the directory, relative to a results directory, of the module that requires the
// module of a Package with a Version: go commands for its set run there.
func ModuleDirOf(set string) string {
	return filepath.Join("packages", set)
}

// Set returns the set called name that p's benchmarks make. Alias variants run it (Sweep), the
// null floor does not (its AfterFunc timers never fire).
func (p Package) Set(name string) Set {
	s := Set{Name: name, Pkg: p.Path, From: External, Tool: GoTest, Expect: p.Expect, Bench: p.Bench, Sweep: true}
	switch {
	case p.Dir != "":
		s.Dir = p.Dir
		s.About = fmt.Sprintf("the benchmarks of %s (in %s) matching %s", p.Path, p.Dir, p.Bench)
	case p.Version != "":
		s.Dir = ModuleDirOf(name)
		s.About = fmt.Sprintf("the benchmarks of %s@%s matching %s", p.Path, p.Version, p.Bench)
	default:
		s.From = Std
		s.About = fmt.Sprintf("the benchmarks of %s matching %s", p.Path, p.Bench)
	}
	return s
}

// Validate reports a package no set could be made of.
func (p Package) Validate() error {
	switch {
	case p.Path == "":
		return fmt.Errorf("names no package")
	case p.Bench == "":
		return fmt.Errorf("%s: no -test.bench pattern", p.Path)
	case len(p.Expect) == 0:
		return fmt.Errorf("%s: no benchmark matched %s", p.Path, p.Bench)
	case p.Dir != "" && p.Version != "":
		return fmt.Errorf("%s: both a directory and a version", p.Path)
	case p.Dir != "" && !filepath.IsAbs(p.Dir):
		return fmt.Errorf("%s: directory %s is not absolute", p.Path, p.Dir)
	}
	if err := CheckPattern(p.Bench); err != nil {
		return fmt.Errorf("%s: %v", p.Path, err)
	}
	return nil
}

// CheckPattern reports a -test.bench pattern one of whose levels is not a regular expression.
func CheckPattern(bench string) error {
	for _, alt := range splitPattern(bench, '|') {
		for _, level := range splitPattern(alt, '/') {
			if _, err := regexp.Compile(level); err != nil {
				return fmt.Errorf("-test.bench pattern %q: %v", bench, err)
			}
		}
	}
	return nil
}

// TopPattern returns the top level of the -test.bench pattern bench, as -test.list takes it: the
// first level of each of its alternatives.
func TopPattern(bench string) string {
	var tops []string
	for _, alt := range splitPattern(bench, '|') {
		tops = append(tops, splitPattern(alt, '/')[0])
	}
	return strings.Join(tops, "|")
}

// splitPattern splits a -test.bench pattern as the testing package does: into its alternatives
// at each '|' (sep '|'), or an alternative into its levels at each '/' (sep '/'), outside
// brackets and parentheses and not escaped.
func splitPattern(bench string, sep byte) []string {
	var levels []string
	cs, ps, start := 0, 0, 0
	for i := 0; i < len(bench); i++ {
		switch bench[i] {
		case '[':
			cs++
		case ']':
			if cs > 0 {
				cs--
			}
		case '(':
			if cs == 0 {
				ps++
			}
		case ')':
			if cs == 0 && ps > 0 {
				ps--
			}
		case '\\':
			i++
		case sep:
			if cs == 0 && ps == 0 {
				levels = append(levels, bench[start:i])
				start = i + 1
			}
		}
	}
	return append(levels, bench[start:])
}
