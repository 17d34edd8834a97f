package stats

import (
	"math"
	"slices"
	"sync"
)

// Ratio compares a variant with the baseline as the ratio of their values: the Hodges–Lehmann
// estimate of it (the median of the ratios of every pair of a variant's and a baseline's value)
// with its distribution-free confidence interval (the Mann–Whitney test inverted, Bauer 1972: the
// interval of ratios r such that scaling the baseline's values by r leaves the U-test
// unrejected), and the p-value of benchstat's U-test of the two samples. Lower and upper
// bounds hold at confidence Confidence or more; with too few values for that they are 0 and
// +Inf (Bounded is false).
type Ratio struct {
	Center, Lo, Hi float64
	P              float64 // the U-test's, as Delta reports it
	Alpha          float64
}

// Significant reports whether the U-test rejects that the two samples come from one
// distribution, as Delta's "~" says it does not.
func (r Ratio) Significant() bool {
	return r.P <= r.Alpha
}

// Bounded reports whether the samples are enough for an interval at Confidence.
func (r Ratio) Bounded() bool {
	return r.Lo > 0 && !math.IsInf(r.Hi, 1)
}

// Ratio returns variant against base for k; false when either lacks values or a value is not
// positive (a ratio of them means nothing).
func (ix *Index) Ratio(k Key, base, variant string) (Ratio, bool) {
	return ix.RatioOf(k, base, k, variant)
}

// RatioOf returns variant's values of k against base's values of baseKey (another benchmark,
// such as the same figure at another GOMAXPROCS), as Ratio does.
func (ix *Index) RatioOf(baseKey Key, base string, k Key, variant string) (Ratio, bool) {
	s0, ok0 := ix.Sample(baseKey, base)
	s1, ok1 := ix.Sample(k, variant)
	if !ok0 || !ok1 {
		return Ratio{}, false
	}
	r, ok := RatioInterval(s0.Values, s1.Values, Confidence)
	if !ok {
		return Ratio{}, false
	}
	c := assumption.Compare(s0, s1)
	r.P, r.Alpha = c.P, c.Alpha
	return r, true
}

// RatioInterval returns the Hodges–Lehmann estimate of the ratio of ys to xs and its interval at
// confidence conf or more (Center, Lo, Hi; P is left 0); false if a value is not positive or a
// sample is empty.
func RatioInterval(xs, ys []float64, conf float64) (Ratio, bool) {
	m, n := len(xs), len(ys)
	if m == 0 || n == 0 {
		return Ratio{}, false
	}
	var d []float64
	for _, x := range xs {
		for _, y := range ys {
			if x <= 0 || y <= 0 {
				return Ratio{}, false
			}
			d = append(d, y/x)
		}
	}
	slices.Sort(d)
	r := Ratio{Center: median(d), Lo: 0, Hi: math.Inf(1)}
	// c is the largest count such that P(U < c) <= (1-conf)/2 under the null hypothesis; the
	// interval runs from the c-th smallest ratio to the c-th largest.
	if c := uCritical(m, n, (1-conf)/2); c > 0 {
		r.Lo, r.Hi = d[c-1], d[len(d)-c]
	}
	return r, true
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// uCritical returns the largest c such that P(U <= c-1) <= tail for the Mann–Whitney statistic
// U of samples of m and n values with no ties, under the null hypothesis; 0 when even P(U = 0)
// is larger. Exact for mn up to exactLimit, from the normal approximation above it.
func uCritical(m, n int, tail float64) int {
	if m*n > exactLimit {
		return uCriticalNormal(m, n, tail)
	}
	dist := uDistributionCached(m, n)
	cum, c := 0.0, 0
	for u, p := range dist {
		cum += p
		if cum > tail {
			break
		}
		c = u + 1
	}
	return c
}

var uCache struct {
	sync.Mutex
	dist map[[2]int][]float64
}

// uDistributionCached is uDistribution, computed once per pair of sizes.
func uDistributionCached(m, n int) []float64 {
	uCache.Lock()
	defer uCache.Unlock()
	if d, ok := uCache.dist[[2]int{m, n}]; ok {
		return d
	}
	if uCache.dist == nil {
		uCache.dist = map[[2]int][]float64{}
	}
	d := uDistribution(m, n)
	uCache.dist[[2]int{m, n}] = d
	return d
}

// uCriticalNormal is uCritical from the normal approximation of U, with continuity correction:
// P(U <= c-1) is about Φ((c - 1/2 - mn/2) / σ).
func uCriticalNormal(m, n int, tail float64) int {
	sigma := math.Sqrt(float64(m*n*(m+n+1)) / 12)
	return max(0, int(math.Floor(float64(m*n)/2+normalQuantile(tail)*sigma+0.5)))
}

// exactLimit bounds the samples whose U distribution is computed exactly (m·n values of U, each
// summed over m·n table entries).
const exactLimit = 2500

// uDistribution returns P(U = u) for u = 0..mn: the number of arrangements of m x's and n y's
// with u pairs of a y before an x, over all C(m+n, m) of them, by the recurrence on the last
// value: f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u).
func uDistribution(m, n int) []float64 {
	// f[i][j] is the distribution for i x's and j y's, as counts.
	f := make([][][]float64, m+1)
	for i := range f {
		f[i] = make([][]float64, n+1)
		for j := range f[i] {
			f[i][j] = make([]float64, i*j+1)
			if i == 0 || j == 0 {
				f[i][j][0] = 1
				continue
			}
			for u := range f[i][j] {
				if u-j >= 0 && u-j < len(f[i-1][j]) {
					f[i][j][u] += f[i-1][j][u-j]
				}
				if u < len(f[i][j-1]) {
					f[i][j][u] += f[i][j-1][u]
				}
			}
		}
	}
	dist := f[m][n]
	total := 0.0
	for _, c := range dist {
		total += c
	}
	out := make([]float64, len(dist))
	for u, c := range dist {
		out[u] = c / total
	}
	return out
}

// normalQuantile returns the p-quantile of the standard normal distribution (Acklam's rational
// approximation, relative error below 1.2e-9), for 0 < p < 1.
func normalQuantile(p float64) float64 {
	a := []float64{-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
		1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00}
	b := []float64{-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
		6.680131188771972e+01, -1.328068155288572e+01}
	c := []float64{-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
		-2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00}
	d := []float64{7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
		3.754408661907416e+00}
	const low = 0.02425
	switch {
	case p < low:
		q := math.Sqrt(-2 * math.Log(p))
		return (((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) /
			((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	case p <= 1-low:
		q := p - 0.5
		r := q * q
		return (((((a[0]*r+a[1])*r+a[2])*r+a[3])*r+a[4])*r + a[5]) * q /
			(((((b[0]*r+b[1])*r+b[2])*r+b[3])*r+b[4])*r + 1)
	default:
		return -normalQuantile(1 - p)
	}
}

// Change is a variant's median of a key against the baseline's, with the U-test of their samples:
// what benchstat's delta column reports.
type Change struct {
	Base, Value float64 // the medians
	P, Alpha    float64
}

// Significant reports whether the U-test rejects that the two samples come from one
// distribution.
func (c Change) Significant() bool {
	return c.P <= c.Alpha
}

// Change returns variant's median of k against base's; false when either has no value.
func (ix *Index) Change(k Key, base, variant string) (Change, bool) {
	s0, ok0 := ix.Sample(k, base)
	s1, ok1 := ix.Sample(k, variant)
	if !ok0 || !ok1 {
		return Change{}, false
	}
	c := assumption.Compare(s0, s1)
	return Change{Base: assumption.Summary(s0, Confidence).Center, Value: assumption.Summary(s1, Confidence).Center,
		P: c.P, Alpha: c.Alpha}, true
}

// Interval is a median and its confidence interval; Lo and Hi are infinite where the sample is too
// small for one at Confidence.
type Interval struct {
	Center, Lo, Hi float64
}

// Bounded reports whether the sample was large enough for an interval.
func (i Interval) Bounded() bool {
	return !math.IsInf(i.Lo, 0) && !math.IsInf(i.Hi, 0)
}

// Median returns variant's median of k with its confidence interval.
func (ix *Index) Median(k Key, variant string) (Interval, bool) {
	s, ok := ix.Summary(k, variant)
	return Interval{Center: s.Center, Lo: s.Lo, Hi: s.Hi}, ok
}
