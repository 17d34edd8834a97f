// Package matrix plans and runs the experiment matrix: variants × benchmark sets × rounds.
//
// Every cell writes exactly one file under the results directory. A cell is done if and only if
// its file exists: executors write to atomicfile.Partial(path) and the runner renames that to the
// final path only after the executor succeeded, so a file is never half-written and an interrupted run
// resumes where it stopped.
package matrix

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"

	"timerlab/internal/suite"
)

// Kind is what a cell does.
type Kind int

const (
	// Build compiles one set's test binary with one variant's toolchain.
	Build Kind = iota
	// Run runs one round of one set's benchmarks with one variant.
	Run
	// Profile runs one set once more with -cpuprofile, apart from the measured rounds.
	Profile
)

func (k Kind) String() string {
	return [...]string{"build", "run", "profile"}[k]
}

// Cell is one unit of work.
type Cell struct {
	Kind    Kind
	Variant string
	Set     string
	Round   int // 1-based; Run cells only
}

// Path is the cell's output file, relative to the results directory.
func (c Cell) Path() string {
	switch c.Kind {
	case Build:
		return filepath.Join("bin", c.Variant, c.Set+".test")
	case Run:
		return filepath.Join("runs", c.Variant, c.Set, fmt.Sprintf("round-%02d.txt", c.Round))
	default:
		return filepath.Join("profiles", c.Variant, c.Set+".pb.gz")
	}
}

func (c Cell) String() string {
	if c.Kind == Run {
		return fmt.Sprintf("%s %s %s round %d", c.Kind, c.Variant, c.Set, c.Round)
	}
	return fmt.Sprintf("%s %s %s", c.Kind, c.Variant, c.Set)
}

// EtcdSet is the set whose load Spec.EtcdRequests sets: sweet's etcd. Its load has 1000
// clients, so MinEtcdRequests is the fewest requests that keep each of them busy.
const (
	EtcdSet         = "sweet-etcd"
	MinEtcdRequests = 1000
)

// CheckEtcdRequests reports whether n suits Spec.EtcdRequests of a matrix of sets: 0 (sweet's
// load), or MinEtcdRequests or more where sets holds EtcdSet. The error starts with n.
func CheckEtcdRequests(n int, sets []string) error {
	switch {
	case n < 0 || n > 0 && n < MinEtcdRequests:
		return fmt.Errorf("%d: want %d or more (a request per client), or 0 for sweet's load", n, MinEtcdRequests)
	case n > 0 && !slices.Contains(sets, EtcdSet):
		return fmt.Errorf("%d: the matrix runs no %s", n, EtcdSet)
	}
	return nil
}

// Spec is the shape of a matrix. A results directory holds one spec; resuming with another is
// refused so cells of different matrices never mix.
type Spec struct {
	Quick    bool     `json:"quick"`
	Variants []string `json:"variants"`
	Sets     []string `json:"sets"`
	Rounds   int      `json:"rounds"`
	Count    int      `json:"count"` // -test.count per run cell
	// ProfileCount is the -test.count of the profile cells of the sets go test runs (ProfileCount);
	// those of golang.org/x/benchmarks run once. 0: not recorded, as in matrices begun before it
	// was.
	ProfileCount int `json:"profile_count,omitempty"`
	// Only restricts variants to some of Sets: variant -> the sets it runs, in any order. A
	// variant it does not name runs every set. nil when every variant runs every set.
	Only map[string][]string `json:"only,omitempty"`
	// Counts holds the sets of Sets whose run cells count instructions rather than time them
	// (timerlab instr), by set name, with what each counts. Such a set has no profile cells.
	Counts map[string]Count `json:"counts,omitempty"`
	// Packages holds the sets of Sets that timerlab bench --pkg made of a package's benchmarks,
	// by set name: no list of timerlab's knows them.
	Packages map[string]suite.Package `json:"packages,omitempty"`
	// EtcdRequests is the requests of each of sweet-etcd's benchmarks (Put, STM) in a prebuilt
	// run (timerlab bench --build-only --etcd-requests); 0: sweet's, 100,000 each. Only a
	// prebuilt run applies it. At least MinEtcdRequests: one request per client.
	EtcdRequests int `json:"etcd_requests,omitempty"`
}

// Set returns the benchmark set called name of the matrix: one of Packages, or of suite.Sets.
func (s Spec) Set(name string) (suite.Set, bool) {
	if p, ok := s.Packages[name]; ok {
		return p.Set(name), true
	}
	return suite.Find(suite.Sets(s.Quick), name)
}

// Count is what a set of instruction counts measures: benchmarks of a package, each at N and 2N
// iterations under cachegrind.
type Count struct {
	Pkg string `json:"pkg"`
	// Version and Dir say where Pkg is, as suite.Package's do: "" for the standard library.
	Version string `json:"version,omitempty"`
	Dir     string `json:"dir,omitempty"`
	// Bench are -test.bench patterns; each selects the benchmarks that report a result (a
	// benchmark's sub-benchmarks, where it has some).
	Bench []string `json:"bench"`
	N     int      `json:"n,omitempty"` // 0: for each benchmark, calibrated with the first variant
}

// ModuleDir returns the directory go commands for the count set called set run in, with the
// toolchain at goroot and the results directory results.
func (c Count) ModuleDir(goroot, results, set string) string {
	return suite.Package{Path: c.Pkg, Version: c.Version, Dir: c.Dir}.Set(set).ModuleDir(goroot, "", results)
}

// name is what a variant's or a set's name must look like: it is a path component of the
// directory's files.
var name = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Validate reports a spec no matrix could run: no variant or no set, a name twice or one that
// cannot be a file's, fewer than one round or one run a round, a restriction (Only) or a count set
// (Counts) of a variant or set the matrix lacks.
func (s Spec) Validate() error {
	switch {
	case len(s.Variants) == 0:
		return fmt.Errorf("names no variant")
	case len(s.Sets) == 0:
		return fmt.Errorf("names no benchmark set")
	case s.Rounds < 1:
		return fmt.Errorf("rounds %d: want 1 or more", s.Rounds)
	case s.Count < 1:
		return fmt.Errorf("count %d: want 1 or more", s.Count)
	}
	for _, list := range []struct {
		what  string
		names []string
	}{{"variant", s.Variants}, {"benchmark set", s.Sets}} {
		for i, n := range list.names {
			if !name.MatchString(n) {
				return fmt.Errorf("%s %q: want letters, digits, '.', '_' and '-'", list.what, n)
			}
			if slices.Contains(list.names[:i], n) {
				return fmt.Errorf("%s %q named twice", list.what, n)
			}
		}
	}
	for v, sets := range s.Only {
		if !slices.Contains(s.Variants, v) {
			return fmt.Errorf("only: %q is none of its variants", v)
		}
		if len(sets) == 0 {
			return fmt.Errorf("only: %s runs no set", v)
		}
		for _, set := range sets {
			if !slices.Contains(s.Sets, set) {
				return fmt.Errorf("only: %s runs %q, none of its sets", v, set)
			}
		}
	}
	if err := CheckEtcdRequests(s.EtcdRequests, s.Sets); err != nil {
		return fmt.Errorf("etcd_requests %v", err)
	}
	for set, c := range s.Counts {
		if !slices.Contains(s.Sets, set) {
			return fmt.Errorf("counts: %q is none of its sets", set)
		}
		if c.Pkg == "" || len(c.Bench) == 0 {
			return fmt.Errorf("counts: %s names no package or no benchmark", set)
		}
	}
	for set, p := range s.Packages {
		if !slices.Contains(s.Sets, set) {
			return fmt.Errorf("packages: %q is none of its sets", set)
		}
		if _, counted := s.Counts[set]; counted {
			return fmt.Errorf("packages: %s is a set of counts too", set)
		}
		if err := p.Validate(); err != nil {
			return fmt.Errorf("packages: %s: %v", set, err)
		}
	}
	return nil
}

// ProfileCount is the -test.count of a profile cell. A run of the sets' benchmarks gives about
// 50-130 samples at 100 Hz on 2 cores, fewer than a share needs (profiles.MinSamples); the
// profile cells, apart from the measured rounds, run them twice as long.
const ProfileCount = 2

// Profiled reports whether the matrix has profile cells of set: every set but those of Counts.
func (s Spec) Profiled(set string) bool {
	_, counted := s.Counts[set]
	return !counted
}

// Runs reports whether the matrix runs set with variant.
func (s Spec) Runs(variant, set string) bool {
	only, ok := s.Only[variant]
	return !ok || slices.Contains(only, set)
}

// Cells lists the matrix in execution order: all builds first, then the rounds, each round
// running every set with every variant in turn (so that drift of the machine during the run hits
// all variants alike), then one profiling run per variant and set (but those of Counts). Round r starts the turn at
// the (r-1)th variant, modulo their number, so that no variant always runs first or right after
// the same neighbour (position effects: caches, frequency, the previous run's leftovers). Pairs of
// a variant and a set that Only excludes have no cells.
func (s Spec) Cells() []Cell {
	var cells []Cell
	for _, v := range s.Variants {
		for _, set := range s.Sets {
			cells = s.add(cells, Cell{Kind: Build, Variant: v, Set: set})
		}
	}
	for r := 1; r <= s.Rounds; r++ {
		turn := rotate(s.Variants, r-1)
		for _, set := range s.Sets {
			for _, v := range turn {
				cells = s.add(cells, Cell{Kind: Run, Variant: v, Set: set, Round: r})
			}
		}
	}
	for _, set := range s.Sets {
		for _, v := range s.Variants {
			if s.Profiled(set) {
				cells = s.add(cells, Cell{Kind: Profile, Variant: v, Set: set})
			}
		}
	}
	return cells
}

// rotate returns vs starting at index k modulo len(vs), wrapping around.
func rotate(vs []string, k int) []string {
	if len(vs) == 0 {
		return nil
	}
	k %= len(vs)
	return append(slices.Clone(vs[k:]), vs[:k]...)
}

// RunCells returns, in round order, the run cells of variant v.
func (s Spec) RunCells(v string) []Cell {
	var cells []Cell
	for _, set := range s.Sets {
		for r := 1; r <= s.Rounds; r++ {
			cells = s.add(cells, Cell{Kind: Run, Variant: v, Set: set, Round: r})
		}
	}
	return cells
}

// add appends c to cells if the matrix runs its variant and set.
func (s Spec) add(cells []Cell, c Cell) []Cell {
	if !s.Runs(c.Variant, c.Set) {
		return cells
	}
	return append(cells, c)
}
