// Package profiles measures, in CPU profiles, how much time the runtime spends in timer code and
// in netpoll waits, and which functions' shares differ between variants.
package profiles

import (
	"fmt"
	"io"
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
	Samples    int64 // how many samples the shares rest on
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
	idx, cnt := cpuIndex(p), countIndex(p)
	a := Analysis{Flat: map[string]float64{}}
	byCat := map[Category]int64{}
	for _, s := range p.Sample {
		v := s.Value[idx]
		a.TotalNanos += v
		if cnt >= 0 {
			a.Samples += s.Value[cnt]
		}
		byCat[Classify(s)] += v
		if leaf := frames(s); len(leaf) > 0 {
			a.Flat[leaf[0].Function.Name] += float64(v)
		}
	}
	if cnt < 0 && p.Period > 0 {
		a.Samples = a.TotalNanos / p.Period
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

// countIndex returns the index of the sample count value, or -1 if the profile has none.
func countIndex(p *profile.Profile) int {
	for i, st := range p.SampleType {
		if st.Type == "samples" {
			return i
		}
	}
	return -1
}

// The rule for what a profile's samples support. A share is x of n samples. Its 95% interval is
// Agresti and Coull's: p̃ ± 1.96·√(p̃(1−p̃)/(n+4)) with p̃ = (x+2)/(n+4), which, unlike the plain
// normal one, is not zero wide at a share of 0. The report prints a profile's shares only when it
// has at least MinSamples samples (there a 10% share is known to about ±6 points), each with that
// half-width. It lists a function as differing from the baseline only where the two shares differ
// beyond DiffZ standard errors of their difference (Agresti and Caffo's: one sample added to and
// one kept from each profile). DiffZ is 3.29, a 99.9% interval, not 1.96: a profile holds hundreds
// of functions, and at 95% one in twenty would differ by chance.

// MinSamples is the fewest samples a profile needs for its shares to be shown.
const MinSamples = 100

// DiffZ is how many standard errors apart two shares must be to differ.
const DiffZ = 3.29

// Supported reports whether a's shares rest on enough samples to be shown.
func (a Analysis) Supported() bool { return a.Samples >= MinSamples }

// HalfWidth is the half-width of the 95% interval of a share p of n samples.
func HalfWidth(p float64, n int64) float64 {
	if n <= 0 {
		return math.Inf(1)
	}
	m := float64(n) + 4
	q := (p*float64(n) + 2) / m
	return 1.96 * math.Sqrt(q*(1-q)/m)
}

// Differs reports whether share p1 of n1 samples and share p2 of n2 differ by more than DiffZ
// standard errors of their difference.
func Differs(p1 float64, n1 int64, p2 float64, n2 int64) bool {
	if n1 <= 0 || n2 <= 0 {
		return false
	}
	m1, m2 := float64(n1)+2, float64(n2)+2
	q1, q2 := (p1*float64(n1)+1)/m1, (p2*float64(n2)+1)/m2
	se := math.Sqrt(q1*(1-q1)/m1 + q2*(1-q2)/m2)
	return math.Abs(q1-q2) > DiffZ*se
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
	Differs  []bool    // per variant: its share differs from the first's beyond the interval (Differs)
}

// TopDiffs returns at most n functions whose flat share in some variant differs from the first's
// (the baseline's) beyond the interval of Differs, largest such difference first. Variants whose
// profile is not Supported take no part: with the baseline unsupported, there are none.
func TopDiffs(byVariant []Analysis, n int) []Diff {
	if len(byVariant) < 2 || !byVariant[0].Supported() {
		return nil
	}
	base := byVariant[0]
	fns := map[string]bool{}
	for _, a := range byVariant {
		for fn := range a.Flat {
			fns[fn] = true
		}
	}
	var diffs []Diff
	var widest []float64
	for fn := range fns {
		d := Diff{Function: fn}
		w := 0.0
		for i, a := range byVariant {
			d.Shares = append(d.Shares, a.Flat[fn])
			differs := i > 0 && a.Supported() && Differs(base.Flat[fn], base.Samples, a.Flat[fn], a.Samples)
			d.Differs = append(d.Differs, differs)
			if differs {
				w = math.Max(w, math.Abs(a.Flat[fn]-base.Flat[fn]))
			}
		}
		if w > 0 {
			diffs = append(diffs, d)
			widest = append(widest, w)
		}
	}
	order := make([]int, len(diffs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if widest[a] != widest[b] {
			return widest[a] > widest[b]
		}
		return diffs[a].Function < diffs[b].Function
	})
	out := make([]Diff, 0, min(n, len(order)))
	for _, i := range order[:min(n, len(order))] {
		out = append(out, diffs[i])
	}
	return out
}

// WriteDiff writes to w the profile p less base, as `go tool pprof -diff_base` forms it: base's
// samples negated and labelled pprof::base, so that pprof reads shares against base's total.
func WriteDiff(w io.Writer, base, p *profile.Profile) error {
	b := base.Copy()
	for _, s := range b.Sample {
		if s.Label == nil {
			s.Label = map[string][]string{}
		}
		s.Label["pprof::base"] = []string{"true"}
	}
	b.Scale(-1)
	d, err := profile.Merge([]*profile.Profile{p.Copy(), b})
	if err != nil {
		return err
	}
	return d.Write(w)
}
