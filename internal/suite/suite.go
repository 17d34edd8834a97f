// Package suite defines the benchmark sets timerlab runs with every toolchain. A set is one Go
// package whose benchmarks are built into one test binary per toolchain and then run round after
// round, or benchmarks of golang.org/x/benchmarks that its sweet or bent builds and runs (Tool).
package suite

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Module says where a set's package is built from.
type Module int

const (
	// Std packages are built from the toolchain's own GOROOT/src, so each variant runs the
	// benchmarks of its own tree.
	Std Module = iota
	// Bench packages are built in the repository's bench/ module, which pins the workloads and
	// the third-party libraries.
	Bench
	// External packages are a Package's: built in the module of a local directory, or in the
	// module a results directory holds to require a module at a version (Set.Dir).
	External
)

// Tool says what builds and runs a set's benchmarks.
type Tool int

const (
	// GoTest sets are one package's test binary, built with go test -c and run by timerlab.
	GoTest Tool = iota
	// Sweet sets are benchmarks of golang.org/x/benchmarks/sweet: sweet builds and runs them,
	// one sweet run per cell (internal/xbench).
	Sweet
	// Bent sets are third-party packages' benchmarks that golang.org/x/benchmarks/cmd/bent
	// fetches, builds and runs (internal/xbench).
	Bent
)

func (t Tool) String() string {
	return [...]string{"go test", "sweet", "bent"}[t]
}

// XBench is one benchmark of a Sweet or Bent set.
type XBench struct {
	// Name is sweet's name of the benchmark (sweet run -run NAME), or the name of bent's
	// [[Benchmarks]] entry.
	Name string
	// Suite is bent's suite of the benchmark (its suites.toml: the module, its version); "" for
	// sweet.
	Suite string
	// Bench is bent's -test.bench pattern; "" for sweet.
	Bench string
	// Pkg is the package its results are recorded under: sweet's benchmark driver
	// (golang.org/x/benchmarks/sweet/benchmarks/NAME), or the package bent's test binary reports.
	Pkg string
	// Expect lists the top-level benchmarks it reports, without the Benchmark prefix.
	Expect []string
}

// Set is one benchmark package and the benchmarks of it that are run.
type Set struct {
	Name string // short identifier used in file names: [a-z0-9-]+
	Pkg  string // import path; "" for a Sweet or Bent set (see XBench)
	From Module
	Tool Tool
	// XBench lists the benchmarks of a Sweet or Bent set, which go in its Expect too.
	XBench []XBench
	// OptIn marks a set that runs only when named (timerlab bench --sets): the sets of
	// golang.org/x/benchmarks, which need sweet and bent installed (timerlab xbench) and hours, and
	// std-time-ops, a part of std-time for the first answer (selection.HeadlineSets).
	OptIn bool
	// Expect lists the top-level benchmarks (without the Benchmark prefix) the set runs, the first
	// level of its -test.bench pattern (Pattern). Ones a toolchain's package lacks are reported when
	// the set is built.
	Expect []string
	// Sub is the pattern of the sub-benchmark levels below Expect, '/' separating them (as in
	// -test.bench); "" for every sub-benchmark.
	Sub string
	// Bench, when not "", is the whole -test.bench pattern, which Expect lists what it selects
	// of: a Package's.
	Bench string
	// Dir is where go commands for an External set run: an absolute directory, or one relative
	// to the results directory (ModuleDirOf).
	Dir       string
	Benchtime string // -test.benchtime; "" for the default
	// CPU is the -test.cpu list: the GOMAXPROCS the benchmarks run at, set by the testing package
	// before they start; "" for the binary's own.
	CPU   string
	About string // one line for the report
	// Note is what the report says of the set's results before its tables, if anything: how
	// they were made, where that limits what they compare.
	Note string
	// Sweep marks a set that the timer slack policy changes the figures of: the alias rows of
	// variants.conf (one toolchain at several GODEBUG settings) run on such sets only, unless
	// timerlab bench --sweep-sets says otherwise.
	Sweep bool
	// Floor marks a set the null floor (variants.conf's null, lab.NullExperiment) can run: none of
	// its benchmarks needs an AfterFunc timer to fire. The null floor runs on such sets only.
	Floor bool
}

// ModuleDir returns the directory go commands for s run in: GOROOT/src for the standard library,
// the repository's bench/ for its packages, Dir for an External set's (under results if relative).
func (s Set) ModuleDir(goroot, repoRoot, results string) string {
	switch {
	case s.From == Std:
		return filepath.Join(goroot, "src")
	case s.From == External && filepath.IsAbs(s.Dir):
		return s.Dir
	case s.From == External:
		return filepath.Join(results, s.Dir)
	}
	return filepath.Join(repoRoot, "bench")
}

// benchModule is the module path of the repository's bench/.
const benchModule = "timerlab/bench"

// RepoDir returns the directory of s's package in the repository at repoRoot, if it lives there
// (bench/ holds the package and not only its dependencies).
func (s Set) RepoDir(repoRoot string) (string, bool) {
	rel, ok := strings.CutPrefix(s.Pkg, benchModule+"/")
	if s.From != Bench || !ok {
		return "", false
	}
	return filepath.Join(repoRoot, "bench", filepath.FromSlash(rel)), true
}

// ListPattern is the -test.list pattern matching exactly the expected top-level benchmarks.
func (s Set) ListPattern() string {
	return anyOf(s.Expect...)
}

// Pattern is the -test.bench pattern of a go test set: Bench, or its benchmarks by name, then Sub.
// A set of sweet or bent has none: its XBench say what runs.
func (s Set) Pattern() string {
	switch {
	case s.Tool != GoTest:
		return ""
	case s.Bench != "":
		return s.Bench
	}
	if s.Sub == "" {
		return anyOf(s.Expect...)
	}
	return anyOf(s.Expect...) + "/" + s.Sub
}

// Expected is one benchmark a set's results must hold: a top-level benchmark of a package.
type Expected struct {
	Pkg, Bench string
}

// Expected lists the benchmarks the set's results must hold, in order.
func (s Set) Expected() []Expected {
	var out []Expected
	if s.Tool == GoTest {
		for _, b := range s.Expect {
			out = append(out, Expected{s.Pkg, b})
		}
		return out
	}
	for _, x := range s.XBench {
		for _, b := range x.Expect {
			out = append(out, Expected{x.Pkg, b})
		}
	}
	return out
}

// XBenchNames returns the names of the set's sweet or bent benchmarks, in order.
func (s Set) XBenchNames() []string {
	var names []string
	for _, x := range s.XBench {
		names = append(names, x.Name)
	}
	return names
}

// Missing returns the expected benchmarks absent from listed, the output of -test.list.
func (s Set) Missing(listed string) []string {
	have := map[string]bool{}
	for _, line := range strings.Fields(listed) {
		have[strings.TrimPrefix(line, "Benchmark")] = true
	}
	var missing []string
	for _, name := range s.Expect {
		if !have[name] {
			missing = append(missing, name)
		}
	}
	return missing
}

var validName = regexp.MustCompile(`^[a-z0-9-]+$`)

// Validate reports a set whose name cannot be a file name or whose pattern does not compile.
func (s Set) Validate() error {
	if !validName.MatchString(s.Name) {
		return fmt.Errorf("set name %q: want [a-z0-9-]+", s.Name)
	}
	if err := CheckPattern(s.Pattern()); err != nil {
		return fmt.Errorf("set %s: %v", s.Name, err)
	}
	if len(s.Expect) == 0 {
		return fmt.Errorf("set %s expects no benchmarks", s.Name)
	}
	if s.Tool == GoTest {
		if len(s.XBench) > 0 {
			return fmt.Errorf("set %s is built with go test but lists benchmarks of %s", s.Name, Sweet)
		}
		return nil
	}
	if len(s.XBench) == 0 {
		return fmt.Errorf("set %s runs with %s but lists none of its benchmarks", s.Name, s.Tool)
	}
	for _, x := range s.XBench {
		if x.Name == "" || x.Pkg == "" || len(x.Expect) == 0 || (s.Tool == Bent) != (x.Suite != "" && x.Bench != "") {
			return fmt.Errorf("set %s: benchmark %+v: want a name, a package, the benchmarks it reports, "+
				"and for bent (only) a suite and a -test.bench pattern", s.Name, x)
		}
	}
	return nil
}

// Sets returns the benchmark sets of the full or the quick matrix, in the order they are run: the
// sets of each workload of Workloads in turn. The full matrix also knows the OptIn sets of
// golang.org/x/benchmarks, which run only when named.
func Sets(quick bool) []Set {
	var out []Set
	for _, w := range Workloads() {
		out = append(out, w.Sets(quick)...)
	}
	return out
}

// Find returns the set called name among sets.
func Find(sets []Set, name string) (Set, bool) {
	for _, s := range sets {
		if s.Name == name {
			return s, true
		}
	}
	return Set{}, false
}

// anyOf is the top-level -test.bench pattern selecting exactly the benchmarks named.
func anyOf(names ...string) string {
	return "^Benchmark(" + strings.Join(names, "|") + ")$"
}

// level is one level of a -test.bench pattern selecting exactly the sub-benchmarks of one of parts
// (each a pattern of its own, such as Sizes.Pattern's).
func level(parts ...string) string {
	if len(parts) == 1 {
		return "^" + parts[0] + "$"
	}
	return "^(" + strings.Join(parts, "|") + ")$"
}

// pick returns full or quick, as the matrix is.
func pick[T any](quick bool, full, q T) T {
	if quick {
		return q
	}
	return full
}
