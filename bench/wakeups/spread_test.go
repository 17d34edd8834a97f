package wakeups

import (
	"math"
	"slices"
	"testing"
	"time"

	"timerlab/bench/units"
)

// TestSpread checks SpreadSubMsSleep's durations: 20 µs for the first goroutine, 1000 µs for the
// last, 20 µs apart for 50.
func TestSpread(t *testing.T) {
	const n = 50
	var got []time.Duration
	for i := range n {
		got = append(got, spread(i, n))
	}
	for i, d := range got {
		if want := 20*time.Microsecond + time.Duration(i)*20*time.Microsecond; d != want {
			t.Errorf("spread(%d, %d) = %v, want %v", i, n, d, want)
		}
	}
	if d := spread(0, 1); d != spreadMin {
		t.Errorf("spread(0, 1) = %v, want %v", d, spreadMin)
	}
}

// TestReservations checks each goroutine's record has room for its even share and, where the
// goroutines run at different rates, for its share by rate, with the margin.
func TestReservations(t *testing.T) {
	if got, want := reservations(4000, make([]float64, 4)), []int{1314, 1314, 1314, 1314}; !slices.Equal(got, want) {
		t.Errorf("even: reservations = %v, want %v", got, want)
	}
	// The first goroutine three times as fast as the second: three quarters of the ops at most; the
	// second its even share, where the first's ops take as long as its own.
	if got, want := reservations(800, []float64{3, 1}), []int{750 + 64, 500 + 64}; !slices.Equal(got, want) {
		t.Errorf("by rate: reservations = %v, want %v", got, want)
	}
}

// TestSpreadFigures runs SpreadSubMsSleep briefly and checks it reports the figures the harness
// reads: CPU per sleep, the ratios of its long sleeps, lateness; and CPU per timer wakeup exactly
// where the toolchain counts timer wakeups (a timerlab toolchain), as the CPU per second over them.
func TestSpreadFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a benchmark")
	}
	figures, line := benchFigures(t, "SpreadSubMsSleep", "2000x")
	for _, u := range []string{units.CPUOp, units.CPU, units.VCSW, units.RatioP50, units.RatioP99, units.LateP50, units.LateP99} {
		if _, ok := figures[u]; !ok {
			t.Errorf("no %s in %q", u, line)
		}
	}
	if r := figures[units.RatioP50]; r < 1 {
		t.Errorf("%s = %v: a sleep took less than asked (%q)", units.RatioP50, r, line)
	}
	wakeups, counted := figures[units.TimerWakeups]
	perWakeup, reported := figures[units.CPUWakeup]
	switch {
	case reported != (counted && wakeups > 0):
		t.Errorf("%s reported %v, %s %v (%q)", units.CPUWakeup, reported, units.TimerWakeups, wakeups, line)
	case reported:
		// Both are printed to four significant digits.
		if want := figures[units.CPU] / wakeups; math.Abs(perWakeup-want) > 2e-3*want {
			t.Errorf("%s = %v, want %s / %s = %v (%q)", units.CPUWakeup, perWakeup, units.CPU, units.TimerWakeups, want, line)
		}
	}
}
