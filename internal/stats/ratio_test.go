package stats

import (
	"math"
	"testing"
)

// TestUCritical checks the exact critical counts against the published two-sided 5% critical values
// of the Mann–Whitney U (the largest U rejected: c-1), and that samples of 3 have none.
func TestUCritical(t *testing.T) {
	for _, tc := range []struct{ m, n, want int }{
		{3, 3, 0}, // P(U = 0) = 1/20 > 2.5%: no interval
		{4, 4, 1}, // U <= 0
		{5, 5, 3}, // U <= 2
		{6, 6, 6}, // U <= 5
		{6, 8, 9}, // U <= 8
		{8, 8, 14},
		{10, 10, 24}, // U <= 23
	} {
		if got := uCritical(tc.m, tc.n, 0.025); got != tc.want {
			t.Errorf("uCritical(%d, %d) = %d, want %d", tc.m, tc.n, got, tc.want)
		}
	}
}

// TestUDistribution checks P(U = u) sums to 1, is symmetric, and gives P(U = 0) = 1/C(m+n, m).
func TestUDistribution(t *testing.T) {
	d := uDistribution(4, 6)
	if len(d) != 25 {
		t.Fatalf("%d values of U, want 25", len(d))
	}
	sum := 0.0
	for u, p := range d {
		sum += p
		if math.Abs(p-d[len(d)-1-u]) > 1e-15 {
			t.Errorf("P(U=%d) = %g, P(U=%d) = %g: not symmetric", u, p, len(d)-1-u, d[len(d)-1-u])
		}
	}
	if math.Abs(sum-1) > 1e-12 || math.Abs(d[0]-1.0/210) > 1e-15 {
		t.Errorf("sum %g, P(U=0) %g; want 1 and 1/210", sum, d[0])
	}
}

// TestUCriticalNormal checks the normal approximation used for large samples is within one count
// of the exact value where both are computed.
func TestUCriticalNormal(t *testing.T) {
	for _, mn := range [][2]int{{20, 20}, {30, 40}, {12, 42}} {
		exact, approx := uCritical(mn[0], mn[1], 0.025), uCriticalNormal(mn[0], mn[1], 0.025)
		if exact-approx > 1 || approx-exact > 1 {
			t.Errorf("m=%d n=%d: exact %d, normal %d", mn[0], mn[1], exact, approx)
		}
	}
}

// TestRatioInterval checks the estimate and its interval by hand on four values each (the interval
// is then the smallest and the largest pairwise ratio), that they scale with the variant's values,
// and that three values each give no interval.
func TestRatioInterval(t *testing.T) {
	xs, ys := []float64{1, 2, 4, 8}, []float64{2, 3, 4, 16}
	r, ok := RatioInterval(xs, ys, 0.95)
	if !ok {
		t.Fatal("no ratio")
	}
	// The 16 ratios y/x, sorted: 0.25 0.375 0.5 0.5 0.75 1 1 1.5 2 2 2 3 4 4 8 16; the median is
	// that of the middle two, (1.5 + 2) / 2.
	if r.Center != 1.75 || r.Lo != 0.25 || r.Hi != 16 || !r.Bounded() {
		t.Errorf("ratio %+v, want 1.75 in [0.25, 16]", r)
	}
	double := []float64{4, 6, 8, 32}
	r2, _ := RatioInterval(xs, double, 0.95)
	if r2.Center != 2*r.Center || r2.Lo != 2*r.Lo || r2.Hi != 2*r.Hi {
		t.Errorf("doubled values give %+v, want twice %+v", r2, r)
	}
	r3, _ := RatioInterval(xs[:3], ys[:3], 0.95)
	if r3.Bounded() || r3.Lo != 0 || !math.IsInf(r3.Hi, 1) {
		t.Errorf("three values each: %+v, want no interval", r3)
	}
	if _, ok := RatioInterval([]float64{0, 1}, ys, 0.95); ok {
		t.Error("a ratio over a zero value")
	}
}

// TestIndexRatio checks a variant half the baseline's time is ×0.5, significant, with an interval
// around it; one within the baseline's noise is not significant and its interval holds 1.
func TestIndexRatio(t *testing.T) {
	text := runs("heap", "Stop", 100, 101, 99, 100, 102, 98) + runs("wheel", "Stop", 50, 51, 49, 50, 52, 48) +
		runs("heap", "Reset", 60, 70, 65, 61, 69, 64) + runs("wheel", "Reset", 62, 68, 66, 60, 70, 63)
	ix := NewIndex(results(t, text))
	keys := ix.Keys()
	stop, ok := ix.Ratio(keys[0], "heap", "wheel")
	if !ok || !stop.Significant() || math.Abs(stop.Center-0.5) > 0.01 || stop.Lo > 0.5 || stop.Hi < 0.5 || stop.Hi > 0.53 {
		t.Errorf("Stop: %+v, want ×0.5, significant, an interval close around it", stop)
	}
	reset, _ := ix.Ratio(keys[1], "heap", "wheel")
	if reset.Significant() || reset.Lo > 1 || reset.Hi < 1 {
		t.Errorf("Reset: %+v, want not significant, an interval holding 1", reset)
	}
	if _, ok := ix.Ratio(keys[0], "heap", "slack"); ok {
		t.Error("a ratio for a variant with no values")
	}
}
