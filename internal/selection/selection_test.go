package selection

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/suite"
)

// variants are a variants.conf of heap, two variants with a toolchain of their own, an alias and
// the null floor.
var variants = []lab.Variant{{Name: "heap", Toolchain: "heap"}, {Name: "wheel", Toolchain: "wheel"},
	{Name: "slack", Toolchain: "slack"}, {Name: "slack-1ms", Toolchain: "slack"},
	{Name: "null", Toolchain: "null", Goexp: lab.NullExperiment}}

// TestVariants checks the variants names select, in the order of names, all of them for none, and
// that every unknown name, and every name given twice, is in one Error.
func TestVariants(t *testing.T) {
	if got, err := Variants(variants, nil); err != nil || !slices.Equal(lab.Names(got), lab.Names(variants)) {
		t.Errorf("Variants of none = %v, %v; want all", lab.Names(got), err)
	}
	if got, err := Variants(variants, []string{"slack", "heap"}); err != nil || !slices.Equal(lab.Names(got), []string{"slack", "heap"}) {
		t.Errorf("Variants slack,heap = %v, %v", lab.Names(got), err)
	}
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"whel"}, `--variants: unknown variant "whel" (known: heap wheel slack slack-1ms null)`},
		{[]string{"whel", "heap", "slak", "whel"}, `--variants: unknown variants "whel" and "slak" (known: `},
		{[]string{"heap", "wheel", "heap"}, `--variants: variant "heap" named twice: its samples would count twice`},
		{[]string{"a", "heap", "b", "c", "heap"}, `--variants: unknown variants "a", "b" and "c" (known: heap wheel slack ` +
			`slack-1ms null); variant "heap" named twice`},
	} {
		_, err := Variants(variants, tc.names)
		var e *Error
		if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Variants %q: %v, want an Error starting %q", tc.names, err, tc.want)
		}
	}
}

// TestTimerVariants checks that the commands whose benchmarks need AfterFunc timers to fire leave
// the null floor out of their default selection and refuse it when named.
func TestTimerVariants(t *testing.T) {
	if got, err := TimerVariants(variants, nil); err != nil || slices.Contains(lab.Names(got), "null") || len(got) != 4 {
		t.Errorf("TimerVariants of all = %v, %v; want all but null", lab.Names(got), err)
	}
	if got, err := TimerVariants(variants, []string{"wheel", "heap"}); err != nil || !slices.Equal(lab.Names(got), []string{"wheel", "heap"}) {
		t.Errorf("TimerVariants wheel,heap = %v, %v", lab.Names(got), err)
	}
	_, err := TimerVariants(variants, []string{"heap", "null"})
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "null is the null floor") {
		t.Errorf("TimerVariants heap,null: %v, want the null floor refused", err)
	}
}

// TestSetsNamesEveryUnknownSet checks that every unknown set, and every set named twice (each of
// its rounds would count twice, narrowing the intervals and the p-values), is in one Error.
func TestSetsNamesEveryUnknownSet(t *testing.T) {
	if _, err := Sets(true, []string{"timers", "deadline"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		names []string
		want  []string
	}{
		{[]string{"timers", "deadline", "timers"}, []string{`benchmark set "timers" named twice`}},
		{[]string{"timres", "deadline", "nosuch"}, []string{`--sets: unknown benchmark sets "timres" and "nosuch" (known: std-time `,
			", and headline for std-time-ops,timers,deadline,wakeups,precision)"}},
	} {
		_, err := Sets(true, tc.names)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Sets %q: %v, want an Error", tc.names, err)
			continue
		}
		for _, want := range tc.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Sets %q: %v, want it to say %q", tc.names, err, want)
			}
		}
	}
}

// TestHeadlineSets checks the group "headline": the sets of the first answer, std-time's operations
// where the full matrix's std-time would be, and in the quick matrix, which has no such set, the
// others; that each headline set is a set; and that a set sharing benchmarks with another is
// refused beside it.
func TestHeadlineSets(t *testing.T) {
	for _, name := range HeadlineSets {
		if _, ok := suite.Find(suite.Sets(false), name); !ok {
			t.Errorf("headline set %s is no set", name)
		}
	}
	sets, err := Sets(false, []string{"headline"})
	if err != nil {
		t.Fatal(err)
	}
	if got := Names(sets); !slices.Equal(got, []string{"std-time-ops", "timers", "deadline", "wakeups", "precision"}) {
		t.Errorf("headline sets %v", got)
	}
	if sets, err := Sets(true, []string{"headline"}); err != nil ||
		!slices.Equal(Names(sets), []string{"timers", "deadline", "wakeups", "precision"}) {
		t.Errorf("quick headline sets %v, %v", Names(sets), err)
	}
	_, err = Sets(false, []string{"std-time-latency", "std-time"})
	if err == nil || !strings.Contains(err.Error(), "both run BenchmarkParallelTimerLatency of time") {
		t.Errorf("std-time with std-time-latency: %v", err)
	}
	if sets, err := Sets(false, []string{"std-time-ops", "std-time-latency"}); err != nil ||
		!slices.Equal(sets[1].Expect, []string{"ParallelTimerLatency", "StaggeredTickerLatency"}) {
		t.Errorf("std-time-ops with std-time-latency: %v", err)
	}
	_, err = Sets(false, []string{"std-time", "std-time-ops"})
	if err == nil || !strings.Contains(err.Error(), "std-time and std-time-ops both run BenchmarkStop of time") {
		t.Errorf("std-time with std-time-ops: %v", err)
	}
}

// TestDefault checks the sets that run when none is named: all but those of golang.org/x/benchmarks,
// std-time's parts (std-time-ops, std-time-latency) and floor.
func TestDefault(t *testing.T) {
	full := suite.Sets(false)
	sets, err := Sets(false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if xb := XBench(sets); len(xb) > 0 {
		t.Errorf("the default sets hold %v", xb)
	}
	var left []string
	for _, s := range full {
		if !slices.Contains(Names(sets), s.Name) {
			left = append(left, s.Name)
		}
	}
	want := []string{"std-time-ops", "std-time-latency", "floor", "sweet-etcd", "sweet-controls", "bent"}
	slices.Sort(left)
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("the default leaves out %v, want %v", left, want)
	}
}

// TestSweepSets checks the slack sweep's sets: only wakeups and precision, in both modes; all of them for "all";
// every unknown name refused.
func TestSweepSets(t *testing.T) {
	for _, quick := range []bool{false, true} {
		if got, err := Sweep(quick, nil); err != nil || !slices.Equal(got, []string{"wakeups", "precision"}) {
			t.Errorf("quick=%v: Sweep = %v, %v; want [wakeups precision]", quick, got, err)
		}
	}
	if got, _ := Sweep(true, []string{"all"}); !slices.Equal(got, Names(suite.Sets(true))) {
		t.Errorf("Sweep all = %v", got)
	}
	_, err := Sweep(false, []string{"nosuch", "timers", "nonesuch"})
	var e *Error
	if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), `--sweep-sets: unknown benchmark sets "nosuch" and "nonesuch"`) {
		t.Errorf("--sweep-sets nosuch,timers,nonesuch: %v", err)
	}
}

// TestRestrictedVariants checks the rules that keep the slack sweep cheap and the null floor
// runnable: alias variants run on the sets marked Sweep (wakeups, precision) unless --sweep-sets says
// otherwise, the null floor on the sets marked Floor (floor) whatever --sweep-sets says, and a
// restricted variant with no such set selected is left out; variants with a toolchain of their own
// run every set.
func TestRestrictedVariants(t *testing.T) {
	vs := []string{"heap", "slack", "slack-1ms", "null"}
	choose := func(r Request) (matrix.Spec, string) {
		t.Helper()
		if r.Variants == nil {
			r.Variants = vs
		}
		var log strings.Builder
		m, err := Choose(variants, r, &log)
		if err != nil {
			t.Fatal(err)
		}
		return matrix.Spec{Variants: lab.Names(m.Variants), Sets: Names(m.Sets), Rounds: 6, Count: 1, Only: m.Only}, log.String()
	}
	full := []string{"floor", "deadline", "wakeups"} // floor and timers share benchmarks
	s, _ := choose(Request{Sets: full})
	if !reflect.DeepEqual(s.Only, map[string][]string{"slack-1ms": {"wakeups"}, "null": {"floor"}}) {
		t.Errorf("default Only = %v, want slack-1ms on wakeups alone, null on floor alone", s.Only)
	}
	perSet := map[string]map[string]int{"slack-1ms": {}, "null": {}, "heap": {}}
	for _, c := range s.Cells() {
		if c.Kind == matrix.Run && perSet[c.Variant] != nil {
			perSet[c.Variant][c.Set]++
		}
	}
	if !reflect.DeepEqual(perSet["slack-1ms"], map[string]int{"wakeups": 6}) ||
		!reflect.DeepEqual(perSet["null"], map[string]int{"floor": 6}) || perSet["heap"]["floor"] != 6 ||
		len(perSet["heap"]) != len(full) {
		t.Errorf("run cells per variant and set %v, want 6 rounds of wakeups for slack-1ms, of floor for null, "+
			"of every set for heap", perSet)
	}
	s, log := choose(Request{Sets: []string{"timers"}})
	if !slices.Equal(s.Variants, []string{"heap", "slack"}) || s.Only != nil ||
		!strings.Contains(log, "slack-1ms (an alias of slack) runs only on the sets wakeups,precision, none of them selected") ||
		!strings.Contains(log, "null (the null floor: its AfterFunc timers never fire) runs only on the sets floor, none") {
		t.Errorf("timers alone: variants %v, Only %v, log %q; want slack-1ms and null left out, said so", s.Variants, s.Only, log)
	}
	if s, _ := choose(Request{Sets: full, SweepSets: []string{"all"}}); !slices.Equal(s.Only["slack-1ms"], s.Sets) ||
		!slices.Equal(s.Only["null"], []string{"floor"}) || len(s.Variants) != 4 {
		t.Errorf("--sweep-sets all: variants %v, Only %v; want every variant on every set, but null on floor", s.Variants, s.Only)
	}
	if s, _ := choose(Request{Sets: full, SweepSets: []string{"deadline", "wakeups"}}); !reflect.DeepEqual(s.Only["slack-1ms"], []string{"deadline", "wakeups"}) {
		t.Errorf("--sweep-sets deadline,wakeups: Only %v", s.Only)
	}
	var quiet strings.Builder
	m, err := Choose(variants, Request{Sets: []string{"timers"}}, &quiet)
	if err != nil || !slices.Equal(lab.Names(m.Variants), []string{"heap", "wheel", "slack"}) || quiet.Len() > 0 {
		t.Errorf("every variant on timers: %v, %v, log %q; want the alias and the null floor left out without a word",
			lab.Names(m.Variants), err, quiet.String())
	}
	_, err = Choose(variants, Request{Variants: []string{"null"}, Sets: []string{"timers"}}, nil)
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "no variant left to run") {
		t.Errorf("null alone on timers: %v, want an Error", err)
	}
}
