// Package profiles measures, in CPU profiles, how much time the runtime spends in timer code and
// in netpoll waits, and which functions' shares differ between variants.
package profiles

import (
	"fmt"
	"math"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// Category is what a sample's CPU time is attributed to.
type Category int

const (
	Other   Category = iota
	Timer            // runtime timer code: any runtime/time*.go, clock reads excepted
	Clock            // clock reads: runtime.nanotime*, runtime.walltime*
	Netpoll          // runtime.netpoll* and epoll waits
)

// Analysis is one profile's breakdown. Shares are fractions of the profile's total CPU time.
type Analysis struct {
	TotalNanos int64
	Timer      float64
	Clock      float64
	Netpoll    float64
	Flat       map[string]float64 // function name -> share of samples whose leaf it is
}

// Load reads and parses a profile file.
func Load(file string) (*profile.Profile, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return p, nil
}

// Analyze attributes every sample of p to one category and sums the shares.
func Analyze(p *profile.Profile) Analysis {
	idx := cpuIndex(p)
	a := Analysis{Flat: map[string]float64{}}
	byCat := map[Category]int64{}
	for _, s := range p.Sample {
		v := s.Value[idx]
		a.TotalNanos += v
		byCat[Classify(s)] += v
		if leaf := frames(s); len(leaf) > 0 {
			a.Flat[leaf[0].Function.Name] += float64(v)
		}
	}
	if a.TotalNanos == 0 {
		return a
	}
	total := float64(a.TotalNanos)
	a.Timer = float64(byCat[Timer]) / total
	a.Clock = float64(byCat[Clock]) / total
	a.Netpoll = float64(byCat[Netpoll]) / total
	for fn := range a.Flat {
		a.Flat[fn] /= total
	}
	return a
}

// cpuIndex returns the index of the CPU time sample value (the last one if none is named so).
func cpuIndex(p *profile.Profile) int {
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			return i
		}
	}
	return len(p.SampleType) - 1
}

// Classify attributes a sample to the first category met walking its stack from the leaf through
// the runtime frames only: time in a runtime helper (a lock, a syscall) called from timer code is
// timer time, but once the walk leaves the runtime the sample is Other, so work done in timer
// callbacks or by code that merely sets a timer is not counted.
func Classify(s *profile.Sample) Category {
	for _, ln := range frames(s) {
		if ln.Function == nil || !isRuntime(ln.Function.Name) {
			return Other
		}
		if c := frameCategory(ln.Function); c != Other {
			return c
		}
	}
	return Other
}

// frameCategory classifies one runtime frame. Clock reads live in runtime/time_nofake.go but are
// not timer code: benchmarks that spin on time.Since would otherwise look timer-bound.
func frameCategory(fn *profile.Function) Category {
	name := fn.Name
	if strings.HasPrefix(name, "runtime.nanotime") || strings.HasPrefix(name, "runtime.walltime") {
		return Clock
	}
	if strings.HasPrefix(name, "runtime.netpoll") || strings.Contains(strings.ToLower(name), "epollwait") {
		return Netpoll
	}
	if IsTimerFile(fn.Filename) {
		return Timer
	}
	return Other
}

// IsTimerFile reports whether file is runtime timer code: a file of package runtime whose base
// name starts with "time" (time.go, a variant's own timewheel.go, ...).
func IsTimerFile(file string) bool {
	return path.Base(path.Dir(file)) == "runtime" && strings.HasPrefix(path.Base(file), "time")
}

func isRuntime(fn string) bool {
	return strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "internal/runtime/")
}

// frames returns a sample's frames, leaf first, inlined frames expanded.
func frames(s *profile.Sample) []profile.Line {
	var out []profile.Line
	for _, loc := range s.Location {
		out = append(out, loc.Line...) // Line[0] is the innermost inlined frame
	}
	return out
}

// Diff is one function's flat share in each variant.
type Diff struct {
	Function string
	Shares   []float64 // per variant, in the order given to TopDiffs
}

// TopDiffs returns the n functions whose flat share differs most between any variant and the
// first (the baseline), largest difference first.
func TopDiffs(byVariant []Analysis, n int) []Diff {
	fns := map[string]bool{}
	for _, a := range byVariant {
		for fn := range a.Flat {
			fns[fn] = true
		}
	}
	var diffs []Diff
	for fn := range fns {
		d := Diff{Function: fn}
		for _, a := range byVariant {
			d.Shares = append(d.Shares, a.Flat[fn])
		}
		diffs = append(diffs, d)
	}
	sort.Slice(diffs, func(i, j int) bool {
		si, sj := spread(diffs[i]), spread(diffs[j])
		if si != sj {
			return si > sj
		}
		return diffs[i].Function < diffs[j].Function
	})
	if len(diffs) > n {
		diffs = diffs[:n]
	}
	return diffs
}

// spread is the largest difference of a share from the baseline's; with the baseline alone, its
// share.
func spread(d Diff) float64 {
	if len(d.Shares) == 1 {
		return d.Shares[0]
	}
	m := 0.0
	for _, s := range d.Shares[1:] {
		m = math.Max(m, math.Abs(s-d.Shares[0]))
	}
	return m
}
