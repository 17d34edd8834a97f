package suite

import (
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
			if !strings.HasPrefix(s.Bench, "^Benchmark(") {
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
