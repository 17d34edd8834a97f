package suite

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"timerlab/bench/units"
)

func TestSetsAreValid(t *testing.T) {
	for _, quick := range []bool{false, true} {
		seen := map[string]bool{}
		for _, s := range Sets(quick) {
			if err := s.Validate(); err != nil {
				t.Error(err)
			}
			if seen[s.Name] {
				t.Errorf("quick=%v: set %s twice", quick, s.Name)
			}
			seen[s.Name] = true
			if s.Tool == GoTest && !strings.HasPrefix(s.Pattern(), "^Benchmark(") {
				t.Errorf("set %s: pattern %q does not select Benchmark functions", s.Name, s.Pattern())
			}
		}
	}
}

func TestMissing(t *testing.T) {
	s := Set{Expect: []string{"WithTimeout", "WithDeadline"}}
	listed := "BenchmarkWithTimeout\n"
	if got := s.Missing(listed); !slices.Equal(got, []string{"WithDeadline"}) {
		t.Errorf("Missing = %v", got)
	}
	if s.ListPattern() != "^Benchmark(WithTimeout|WithDeadline)$" {
		t.Errorf("ListPattern = %q", s.ListPattern())
	}
}

func TestValidateRejectsBadName(t *testing.T) {
	if err := (Set{Name: "Bad Name", Expect: []string{"x"}}).Validate(); err == nil {
		t.Error("bad set name accepted")
	}
}

// TestTimersSets checks which sub-benchmarks of bench/timers the timers, timers-gcoff and floor
// sets select, as go test would: TimeoutVsNGCOff belongs to timers-gcoff alone, the full matrix
// sweeps N over 1K, 10K, 100K, 1M and 4M (the floor set the least and the most), and quick keeps
// the small sizes.
func TestTimersSets(t *testing.T) {
	cases := []struct {
		quick bool
		set   string
		name  string
		want  bool
	}{
		{false, "timers", "CostVsN/N=4M", true},
		{false, "timers", "TimeoutVsN/N=1K", true},
		{false, "timers", "TimeoutVsN/N=10K", true},
		{false, "timers", "CostVsN/N=10K", true},
		{false, "timers", "AllocVsN/N=10K", true},
		{false, "timers", "CostVsN/N=100K", true},
		{false, "timers", "CostVsN/N=1M", true},
		{false, "timers", "CostVsN/N=20K", false},
		{false, "timers", "Burst/timers=1M", true},
		{false, "timers", "TimeoutVsNGCOff/N=1K", false},
		{false, "timers-gcoff", "TimeoutVsNGCOff/N=4M", true},
		{false, "timers-gcoff", "TimeoutVsN/N=4M", false},
		{false, "timers-gcoff", "TimeoutVsNGCOff/N=10K", true},
		{false, "floor", "CostVsN/N=1K", true},
		{false, "floor", "TimeoutVsN/N=4M", true},
		{false, "floor", "CostVsN/N=10K", false},
		{true, "timers", "CostVsN/N=10K", false},
		{true, "timers", "AllocVsN/N=100K", true},
		{true, "timers", "AllocVsN/N=1M", false},
		{true, "timers", "Burst/timers=100K", true},
		{true, "timers-gcoff", "TimeoutVsNGCOff/N=100K", true},
		{true, "timers-gcoff", "TimeoutVsNGCOff/N=1M", false},
	}
	for _, c := range cases {
		s, ok := Find(Sets(c.quick), c.set)
		if !ok {
			t.Fatalf("quick=%v: no set %s", c.quick, c.set)
		}
		if got := selects(s.Pattern(), "Benchmark"+c.name); got != c.want {
			t.Errorf("quick=%v: set %s (%q) selects %s: %v, want %v", c.quick, c.set, s.Pattern(), c.name, got, c.want)
		}
	}
}

// TestLiveSizesMatchBench checks that the sizes of the full matrix's cost-vs-N sets are those
// bench/timers runs (its liveSizes), in order: a size the benchmarks lack is never measured, and
// one the sets leave out is never selected.
func TestLiveSizesMatchBench(t *testing.T) {
	data, err := os.ReadFile("../../bench/timers/timers_test.go")
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^var liveSizes = \[\]size\{(.*)\}$`).FindSubmatch(data)
	if decl == nil {
		t.Fatal("bench/timers declares no liveSizes on one line")
	}
	var names []string
	for _, m := range regexp.MustCompile(`\{"([^"]+)", [^}]*\}`).FindAllSubmatch(decl[1], -1) {
		names = append(names, string(m[1]))
	}
	if !slices.Equal(names, liveSizes.Full) {
		t.Errorf("bench/timers runs N = %v, the sets select %v", names, liveSizes.Full)
	}
}

// selects reports whether the -test.bench pattern selects the benchmark name: as go test matches,
// each '/'-separated level of the pattern must match the same level of the name.
func selects(pattern, name string) bool {
	levels, parts := strings.Split(pattern, "/"), strings.Split(name, "/")
	for i, level := range levels {
		if i < len(parts) && !regexp.MustCompile(level).MatchString(parts[i]) {
			return false
		}
	}
	return true
}

// TestRepoDir checks which packages a run without toolchains finds in the repository: those of
// the bench module, and not the standard library's or third-party modules' built there.
func TestRepoDir(t *testing.T) {
	for _, tc := range []struct {
		set  Set
		want string
	}{
		{Set{Pkg: "timerlab/bench/wakeups", From: Bench}, "/repo/bench/wakeups"},
		{Set{Pkg: "github.com/valyala/fasthttp", From: Bench}, ""},
		{Set{Pkg: "time", From: Std}, ""},
		{Set{Pkg: "timerlab/benchmarks", From: Bench}, ""},
	} {
		dir, ok := tc.set.RepoDir("/repo")
		if dir != tc.want || ok != (tc.want != "") {
			t.Errorf("RepoDir of %s = %q, %v; want %q", tc.set.Pkg, dir, ok, tc.want)
		}
	}
}

// TestXBenchSets checks the sets of golang.org/x/benchmarks: only in the full matrix, run only when
// named, each benchmark with its package and, for bent, its suite and pattern.
func TestXBenchSets(t *testing.T) {
	full := Sets(false)
	var xb []string
	for _, s := range full {
		if s.Tool != GoTest {
			xb = append(xb, s.Name)
			if !s.OptIn {
				t.Errorf("set %s of %s runs by default", s.Name, s.Tool)
			}
			if len(s.Expected()) != len(s.Expect) {
				t.Errorf("set %s: Expected %v, Expect %v", s.Name, s.Expected(), s.Expect)
			}
		}
	}
	if !slices.Equal(xb, []string{"sweet-etcd", "sweet-controls", "bent"}) {
		t.Errorf("sets of golang.org/x/benchmarks: %v", xb)
	}
	for _, s := range Sets(true) {
		if s.Tool != GoTest {
			t.Errorf("quick matrix has set %s of %s", s.Name, s.Tool)
		}
	}
	etcd, _ := Find(full, "sweet-etcd")
	if want := []Expected{{"golang.org/x/benchmarks/sweet/benchmarks/etcd", "EtcdPut"},
		{"golang.org/x/benchmarks/sweet/benchmarks/etcd", "EtcdSTM"}}; !slices.Equal(etcd.Expected(), want) {
		t.Errorf("sweet-etcd expects %v, want %v", etcd.Expected(), want)
	}
}

// TestValidateXBench checks that a set of sweet or bent lacking what its tool needs is refused.
func TestValidateXBench(t *testing.T) {
	bent, _ := Find(Sets(false), "bent")
	if err := bent.Validate(); err != nil {
		t.Fatal(err)
	}
	for what, change := range map[string]func(*Set){
		"no benchmarks":      func(s *Set) { s.XBench = nil },
		"bent without suite": func(s *Set) { s.XBench = []XBench{{Name: "a", Pkg: "p", Bench: "^B$", Expect: []string{"B"}}} },
		"sweet with suite": func(s *Set) {
			s.Tool = Sweet
			s.XBench = []XBench{{Name: "a", Suite: "s", Bench: "^B$", Pkg: "p", Expect: []string{"B"}}}
		},
		"no package":      func(s *Set) { s.XBench = []XBench{{Name: "a", Suite: "s", Bench: "^B$", Expect: []string{"B"}}} },
		"go test + bench": func(s *Set) { s.Tool = GoTest },
	} {
		s := bent
		s.XBench = slices.Clone(bent.XBench)
		change(&s)
		if err := s.Validate(); err == nil {
			t.Errorf("%s: accepted", what)
		}
	}
}

// TestWorkloadsValid checks every workload's charts and summary use only benchmarks its sets run
// and figures it reports, and that a workload that does not is refused.
func TestWorkloadsValid(t *testing.T) {
	for _, w := range Workloads() {
		if err := w.Validate(); err != nil {
			t.Error(err)
		}
	}
	bad := Wakeups
	bad.Units = slices.DeleteFunc(slices.Clone(bad.Units), func(u string) bool { return u == units.CoalesceEff })
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), units.CoalesceEff) {
		t.Errorf("wakeups without %s among its figures: %v, want it refused", units.CoalesceEff, err)
	}
	bad = Timers
	bad.Charts = []Chart{{Kind: VsSize, File: "x.svg", Benchmarks: []string{"NoSuch"}, Unit: "sec/op"}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "BenchmarkNoSuch") {
		t.Errorf("a chart of a benchmark no set runs: %v, want it refused", err)
	}
}

// TestDocs checks that docs/benchmarks.md, which describes the sets for readers, has a row for every
// set, naming the benchmarks it runs (for sweet and bent, each benchmark or its program), and
// explains every figure of the wakeups workload.
func TestDocs(t *testing.T) {
	data, err := os.ReadFile("../../docs/benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if m := regexp.MustCompile("^\\| `([a-z0-9-]+)` \\|").FindStringSubmatch(line); m != nil {
			rows[m[1]] = line
		}
	}
	for _, s := range Sets(false) {
		row, ok := rows[s.Name]
		if !ok {
			t.Errorf("docs/benchmarks.md has no row for the set %s", s.Name)
			continue
		}
		for _, b := range s.Expect {
			named := strings.Contains(row, b)
			for _, x := range s.XBench {
				named = named || (slices.Contains(x.Expect, b) && strings.Contains(row, x.Name))
			}
			if !named {
				t.Errorf("docs/benchmarks.md's row of %s does not name %s", s.Name, b)
			}
		}
	}
	for _, u := range Wakeups.Units {
		if q, ok := strings.CutPrefix(u, "late-"); ok {
			q = strings.TrimSuffix(q, "-ns")
			if !regexp.MustCompile("`late-\\{[^}]*\\b" + q + "\\b[^}]*\\}-ns`").Match(data) {
				t.Errorf("docs/benchmarks.md does not explain %s", u)
			}
		} else if !strings.Contains(string(data), "`"+u+"`") {
			t.Errorf("docs/benchmarks.md does not explain %s", u)
		}
	}
}

// TestHeadlines checks every headline of the verdict names a benchmark and a figure its workload's
// sets run and report (through Validate), and that a headline of a benchmark no set runs is
// refused.
func TestHeadlines(t *testing.T) {
	n := 0
	for _, w := range Workloads() {
		n += len(w.Headlines)
	}
	if n == 0 {
		t.Fatal("no headline")
	}
	bad := Timers
	bad.Headlines = []Headline{{Bench: "NoSuch/N=4M", Unit: "sec/op"}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "BenchmarkNoSuch") {
		t.Errorf("a headline of a benchmark no set runs: %v", err)
	}
	bad.Headlines = []Headline{{Bench: "CostVsN/N=4M", Unit: "no-such/op"}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "no-such/op") {
		t.Errorf("a headline of a figure the workload does not report: %v", err)
	}
	bad.Headlines = []Headline{{Bench: "CostVsN/N=4M", Unit: "sec/op"}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "says not what it suits (Use)") {
		t.Errorf("a headline without its use: %v", err)
	}
	bad.Headlines = []Headline{{Bench: "CostVsN/N=4M", Unit: "sec/op", Use: "u", PerOp: true}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "PerOp of a figure that is no rate") {
		t.Errorf("a headline per op of no rate: %v", err)
	}
	bad = Wakeups
	bad.Headlines = []Headline{{Bench: Sleeps, Unit: units.TimerWakeups, Use: "u", PriceOf: units.RatioP50, Price: "p"}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "is the price of ratio-p50, no headline of its benchmark") {
		t.Errorf("a price of a figure no headline has: %v", err)
	}
}
