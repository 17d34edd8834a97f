package report

import (
	"fmt"
	"math"
	"time"

	"timerlab/internal/stats"
)

// The report's numbers carry the digits their data can back: medians of a few noisy runs are
// shown as benchstat shows them, ratios and shares with two significant digits (two decimals for a
// ratio near 1, where a few percent matter), and the slack the runtime granted, which is read from
// a histogram bucket 12.5% wide, with two.

// sig formats x with n significant digits and no exponent: sig(982.8, 2) is "980", sig(0.0532, 2)
// "0.053".
func sig(x float64, n int) string {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return fmt.Sprint(x)
	}
	e := int(math.Floor(math.Log10(math.Abs(x))))
	if decimals := n - 1 - e; decimals > 0 {
		return fmt.Sprintf("%.*f", decimals, x)
	}
	scale := math.Pow(10, float64(e-n+1))
	return fmt.Sprintf("%.0f", math.Round(x/scale)*scale)
}

// ratioText formats a ratio: two decimals from 0.1 to 10, else two significant digits.
func ratioText(x float64) string {
	if x >= 0.095 && x < 9.995 {
		return fmt.Sprintf("%.2f", x)
	}
	return sig(x, 2)
}

// ratioCell is a ratio with its interval, "×0.70 (0.62–0.79)", with "~" after it where the U-test
// finds no significant difference, and "(—)" where the samples are too few for an interval.
func ratioCell(r stats.Ratio) string {
	s := "×" + ratioText(r.Center)
	if r.Bounded() {
		s += " (" + ratioText(r.Lo) + "–" + ratioText(r.Hi) + ")"
	} else {
		s += " (—)"
	}
	if !r.Significant() {
		s += " ~"
	}
	return s
}

// durationText formats a duration with two significant digits: 982.8µs is "980µs", 1.178ms
// "1.2ms".
func durationText(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	for _, u := range []struct {
		name string
		unit time.Duration
	}{{"s", time.Second}, {"ms", time.Millisecond}, {"µs", time.Microsecond}} {
		if d >= u.unit {
			return sig(float64(d)/float64(u.unit), 2) + u.name
		}
	}
	return sig(float64(d), 2) + "ns"
}

// intervalText is a median with its 95% interval in the form "2.1 (2.0–2.1)", each figure
// formatted by f; "(—)" where the samples are too few for one.
func intervalText(s stats.Interval, f func(float64) string) string {
	if !s.Bounded() {
		return f(s.Center) + " (—)"
	}
	return f(s.Center) + " (" + f(s.Lo) + "–" + f(s.Hi) + ")"
}
