package suite

import (
	"regexp"
	"slices"
	"strings"
	"testing"
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
			if s.Tool == GoTest && !strings.HasPrefix(s.Bench, "^Benchmark(") {
				t.Errorf("set %s: pattern %q does not select Benchmark functions", s.Name, s.Bench)
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
	if err := (Set{Name: "Bad Name", Bench: "x", Expect: []string{"x"}}).Validate(); err == nil {
		t.Error("bad set name accepted")
	}
}

// TestSweepSets checks the slack sweep's sets: only wakeups, in both modes.
func TestSweepSets(t *testing.T) {
	for _, quick := range []bool{false, true} {
		if got := SweepSets(Sets(quick)); !slices.Equal(got, []string{"wakeups"}) {
			t.Errorf("quick=%v: SweepSets = %v, want [wakeups]", quick, got)
		}
	}
}

// TestTimersSets checks which sub-benchmarks of bench/timers the timers and timers-gcoff sets
// select, as go test would: TimeoutVsNGCOff belongs to timers-gcoff alone, and quick keeps the
// small sizes.
func TestTimersSets(t *testing.T) {
	cases := []struct {
		quick bool
		set   string
		name  string
		want  bool
	}{
		{false, "timers", "CostVsN/N=4M", true},
		{false, "timers", "TimeoutVsN/N=1K", true},
		{false, "timers", "Burst/timers=1M", true},
		{false, "timers", "TimeoutVsNGCOff/N=1K", false},
		{false, "timers-gcoff", "TimeoutVsNGCOff/N=4M", true},
		{false, "timers-gcoff", "TimeoutVsN/N=4M", false},
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
		if got := selects(s.Bench, "Benchmark"+c.name); got != c.want {
			t.Errorf("quick=%v: set %s (%q) selects %s: %v, want %v", c.quick, c.set, s.Bench, c.name, got, c.want)
		}
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
	for _, s := range Default(full) {
		if s.Tool != GoTest {
			t.Errorf("default sets hold %s", s.Name)
		}
	}
	if len(Default(full)) != len(full)-len(xb) {
		t.Errorf("Default left out %d sets, want %d", len(full)-len(Default(full)), len(xb))
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
