// Package selection chooses what a matrix runs from the names a command line gives: the variants
// of variants.conf (lab), the benchmark sets of internal/suite (a mode's default, or the group
// headline), the sets the aliases run (the sweep) and those the null floor runs. It is the one
// place that knows which names a command takes and what each stands for, so that every command
// refuses a name the same way: an Error naming every unknown name at once.
package selection

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"timerlab/internal/lab"
	"timerlab/internal/suite"
)

// An Error is a selection refused: unknown names (every one of them), a name given twice, sets that
// share a benchmark, a variant that cannot run what was asked. It is the command line's mistake, not
// the checkout's: timerlab exits 2.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) *Error {
	return &Error{fmt.Sprintf(format, args...)}
}

// Errorf returns an Error for a refusal of the names a command line gave that is found beyond
// this package: a set that cannot be built apart from its run, say.
func Errorf(format string, args ...any) error {
	return errorf(format, args...)
}

// The flags whose names a selection refuses, as its errors name them.
const (
	VariantsFlag  = "--variants"
	SetsFlag      = "--sets"
	SweepSetsFlag = "--sweep-sets"
)

// HeadlineGroup is the name --sets takes for HeadlineSets.
const HeadlineGroup = "headline"

// HeadlineSets are the sets of the first answer, make's default matrix: those that hold the
// figures the report's verdict leads with (suite.Workload.Headlines), at the least cost:
// std-time's single operations without its latency sweeps, the timers against N, deadline churn,
// the wakeups and the precision they buy (golang/go#53824). Left to the full matrix: the rest of
// std-time, timers-gcoff, firing, the loopback servers, and the tickers on one P.
var HeadlineSets = []string{"std-time-ops", "timers", "deadline", "wakeups", "precision"}

// SweepAll is the name --sweep-sets takes for every set of the mode.
const SweepAll = "all"

// checkNames returns an Error for every name of names that known lacks, and every name given twice;
// what names a thing and things is its plural ("variant", "variants").
func checkNames(flag, thing, things string, names, known []string, also string) error {
	var unknown, twice []string
	seen := map[string]bool{}
	for _, n := range names {
		switch {
		case !slices.Contains(known, n):
			if !slices.Contains(unknown, n) {
				unknown = append(unknown, n)
			}
		case seen[n]:
			if !slices.Contains(twice, n) {
				twice = append(twice, n)
			}
		}
		seen[n] = true
	}
	var parts []string
	if len(unknown) > 0 {
		parts = append(parts, fmt.Sprintf("unknown %s %s (known: %s%s)", plural(len(unknown), thing, things),
			quoteList(unknown), strings.Join(known, " "), also))
	}
	if len(twice) > 0 {
		parts = append(parts, fmt.Sprintf("%s %s named twice: its samples would count twice",
			plural(len(twice), thing, things), quoteList(twice)))
	}
	if len(parts) == 0 {
		return nil
	}
	return errorf("%s: %s", flag, strings.Join(parts, "; "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// quoteList is "a", "a" and "b", or "a", "b" and "c".
func quoteList(names []string) string {
	var q []string
	for _, n := range names {
		q = append(q, fmt.Sprintf("%q", n))
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// Variants returns the variants of all that names selects, in the order of names (none: all of
// them, in theirs).
func Variants(all []lab.Variant, names []string) ([]lab.Variant, error) {
	if len(names) == 0 {
		return all, nil
	}
	if err := checkNames(VariantsFlag, "variant", "variants", names, lab.Names(all), ""); err != nil {
		return nil, err
	}
	var out []lab.Variant
	for _, n := range names {
		out = append(out, all[slices.IndexFunc(all, func(v lab.Variant) bool { return v.Name == n })])
	}
	return out, nil
}

// TimerVariants is Variants for a command whose benchmarks need AfterFunc timers to fire (sweet,
// bent, instruction counts): it leaves the null floor (lab.Variant.Null) out of the default
// selection, and refuses it when names names it.
func TimerVariants(all []lab.Variant, names []string) ([]lab.Variant, error) {
	vs, err := Variants(all, names)
	if err != nil {
		return nil, err
	}
	var out, null []lab.Variant
	for _, v := range vs {
		if v.Null() {
			null = append(null, v)
		} else {
			out = append(out, v)
		}
	}
	if len(names) > 0 && len(null) > 0 {
		return nil, errorf("%s: %s is the null floor, whose AfterFunc timers never fire: only timerlab bench's "+
			"floor sets run it", VariantsFlag, strings.Join(lab.Names(null), ", "))
	}
	return out, nil
}

// Default returns the sets that run when none is named: all but the OptIn ones.
func Default(sets []suite.Set) []suite.Set {
	var out []suite.Set
	for _, s := range sets {
		if !s.OptIn {
			out = append(out, s)
		}
	}
	return out
}

// Sets returns the sets of the full or the quick matrix that names selects, in its order: for none,
// Default's; HeadlineGroup stands for HeadlineSets (those of the mode). It refuses a set named
// twice, and two sets that run one benchmark: its samples would count twice.
func Sets(quick bool, names []string) ([]suite.Set, error) {
	all := suite.Sets(quick)
	if len(names) == 0 {
		names = Names(Default(all))
	}
	var expanded []string
	for _, n := range names {
		if n != HeadlineGroup {
			expanded = append(expanded, n)
			continue
		}
		for _, h := range HeadlineSets {
			if _, ok := suite.Find(all, h); ok {
				expanded = append(expanded, h)
			}
		}
	}
	also := fmt.Sprintf(", and %s for %s", HeadlineGroup, strings.Join(HeadlineSets, ","))
	if err := checkNames(SetsFlag, "benchmark set", "benchmark sets", expanded, Names(all), also); err != nil {
		return nil, err
	}
	var out []suite.Set
	for _, n := range expanded {
		s, _ := suite.Find(all, n)
		if err := s.Validate(); err != nil {
			return nil, err
		}
		for _, o := range out {
			if e, ok := Overlap(o, s); ok {
				return nil, errorf("%s: benchmark sets %s and %s both run Benchmark%s of %s: name one of them",
					SetsFlag, o.Name, n, e.Bench, e.Pkg)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// Overlap returns a benchmark that both a and b run, if any: a matrix with both would count its
// samples twice.
func Overlap(a, b suite.Set) (suite.Expected, bool) {
	for _, e := range a.Expected() {
		if slices.Contains(b.Expected(), e) {
			return e, true
		}
	}
	return suite.Expected{}, false
}

// Sweep returns the names of the sets alias variants run on, from --sweep-sets: the sets marked
// Sweep (SweepSets) when list is empty, every set of the mode for SweepAll, else those list names.
func Sweep(quick bool, list []string) ([]string, error) {
	all := suite.Sets(quick)
	switch {
	case len(list) == 0:
		return SweepSets(all), nil
	case len(list) == 1 && list[0] == SweepAll:
		return Names(all), nil
	}
	also := fmt.Sprintf(", or %s for every one", SweepAll)
	if err := checkNames(SweepSetsFlag, "benchmark set", "benchmark sets", list, Names(all), also); err != nil {
		return nil, err
	}
	return list, nil
}

// SweepSets returns the names of the sets marked Sweep, in order: those the aliases run.
func SweepSets(sets []suite.Set) []string {
	return namesWhere(sets, func(s suite.Set) bool { return s.Sweep })
}

// FloorSets returns the names of the sets marked Floor, in order: those the null floor runs.
func FloorSets(sets []suite.Set) []string {
	return namesWhere(sets, func(s suite.Set) bool { return s.Floor })
}

func namesWhere(sets []suite.Set, marked func(suite.Set) bool) []string {
	var names []string
	for _, s := range sets {
		if marked(s) {
			names = append(names, s.Name)
		}
	}
	return names
}

// XBench returns the names of the sets among sets that sweet or bent run.
func XBench(sets []suite.Set) []string {
	return namesWhere(sets, func(s suite.Set) bool { return s.Tool != suite.GoTest })
}

// Names returns the names of sets, in order.
func Names(sets []suite.Set) []string {
	return namesWhere(sets, func(suite.Set) bool { return true })
}

// A Request is what a command line names of a matrix; an empty list takes the default.
type Request struct {
	Quick     bool
	Variants  []string // none: every variant of variants.conf
	Sets      []string // none: the mode's Default; HeadlineGroup: HeadlineSets
	SweepSets []string // the sets aliases run on; none: SweepSets; SweepAll: every set
	// Extra are sets made for this matrix (a Package's), after those Sets names; with Extra and
	// no Sets, the matrix runs Extra alone. Aliases run them, the null floor does not.
	Extra []suite.Set
}

// A Matrix is what a Request chooses.
type Matrix struct {
	Variants []lab.Variant
	Sets     []suite.Set
	// Only is the restriction of each variant that runs some sets only, as matrix.Spec.Only wants
	// it: nil when there is none.
	Only map[string][]string
}

// Choose chooses the matrix r asks for among the variants all: its variants and sets, every alias
// restricted to the selected sets of the sweep and the null floor (lab.Variant.Null), whose
// AfterFunc timers never fire, to the selected floor sets. A restricted variant left with no set is
// dropped, with a line on log where r named it (of all variants, by default, those that run only
// some sets are left out of the others without a word).
func Choose(all []lab.Variant, r Request, log io.Writer) (Matrix, error) {
	vs, err := Variants(all, r.Variants)
	if err != nil {
		return Matrix{}, err
	}
	m := Matrix{}
	if len(r.Sets) > 0 || len(r.Extra) == 0 {
		if m.Sets, err = Sets(r.Quick, r.Sets); err != nil {
			return Matrix{}, err
		}
	}
	for _, x := range r.Extra {
		if err := x.Validate(); err != nil {
			return Matrix{}, err
		}
		for _, o := range m.Sets {
			if o.Name == x.Name {
				return Matrix{}, errorf("benchmark set %s named twice", x.Name)
			}
			if e, ok := Overlap(o, x); ok {
				return Matrix{}, errorf("benchmark sets %s and %s both run Benchmark%s of %s: name one of them",
					o.Name, x.Name, e.Bench, e.Pkg)
			}
		}
		m.Sets = append(m.Sets, x)
	}
	sweep, err := Sweep(r.Quick, r.SweepSets)
	if err != nil {
		return Matrix{}, err
	}
	sweep = append(sweep, Names(r.Extra)...)
	var left []string
	m.Variants, m.Only, left = restrict(vs, m.Sets, sweep, FloorSets(suite.Sets(r.Quick)))
	if len(m.Variants) == 0 {
		return Matrix{}, errorf("%s: no variant left to run: %s", VariantsFlag, strings.Join(left, "; "))
	}
	if len(r.Variants) > 0 && log != nil {
		for _, l := range left {
			fmt.Fprintf(log, "timerlab: %s: left out\n", l)
		}
	}
	return m, nil
}

// restrict restricts the variants that run only some sets: every alias among vs to the selected
// sets that sweep names, and the null floor to the selected sets that floor names. It returns the
// variants that have a set left to run, the restriction of each restricted one (nil when vs has
// none), and why each variant left with no set was dropped.
func restrict(vs []lab.Variant, sets []suite.Set, sweep, floor []string) ([]lab.Variant, map[string][]string, []string) {
	var kept []lab.Variant
	var left []string
	only := map[string][]string{}
	for _, v := range vs {
		var allowed []string
		var what string
		switch {
		case v.Null():
			allowed = floor
			what = fmt.Sprintf("%s (the null floor: its AfterFunc timers never fire)", v.Name)
		case v.IsAlias():
			allowed = sweep
			what = fmt.Sprintf("%s (an alias of %s)", v.Name, v.Toolchain)
		default:
			kept = append(kept, v)
			continue
		}
		var runs []string // the selected sets v runs
		for _, s := range sets {
			if slices.Contains(allowed, s.Name) {
				runs = append(runs, s.Name)
			}
		}
		if len(runs) == 0 {
			why := fmt.Sprintf("%s runs only on the sets %s, none of them selected", what, strings.Join(allowed, ","))
			if v.IsAlias() {
				why += fmt.Sprintf(" (%s %s runs it on every set)", SweepSetsFlag, SweepAll)
			}
			left = append(left, why)
			continue
		}
		kept = append(kept, v)
		only[v.Name] = runs
	}
	if len(only) == 0 {
		return kept, nil, left
	}
	return kept, only, left
}
