package report

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/plotter"

	"timerlab/bench/units"
	"timerlab/internal/lab"
	"timerlab/internal/plots"
	"timerlab/internal/stats"
	"timerlab/internal/suite"
)

// charts returns the charts of every workload (suite.Workloads), each workload's in its order.
func (r *Report) charts() []savedChart {
	var charts []savedChart
	for _, w := range suite.Workloads() {
		for _, c := range w.Charts {
			charts = append(charts, r.chart(w.Pkg, c))
		}
	}
	return charts
}

// chart draws the chart c of the workload of package pkg.
func (r *Report) chart(pkg string, c suite.Chart) savedChart {
	ch := plots.Chart{Title: c.Title, X: c.X, Y: c.Y}
	switch c.Kind {
	case suite.VsSize:
		ch.LogX, ch.LogY, ch.LegendLeft = true, true, true
		ch.Series = r.vsSize(pkg, c)
	case suite.Quantiles:
		ch.LogX, ch.LegendBottom = true, true
		ch.Series = r.quantiles(pkg, c)
	case suite.VsSlack:
		ch.Series = r.vsSlack(pkg, c)
	case suite.RatioVsSize:
		ch.LogX, ch.LegendLeft, ch.LegendBottom = true, true, true
		ch.Refs, ch.Dodge, ch.SpanY = []float64{1}, 1.08, true
		ch.Series = r.ratioVsSize(pkg, c)
	}
	return savedChart{File: c.File, Chart: ch, Note: c.Note}
}

// sizeName matches the names of the sub-benchmarks of benchmarks that carry the size param,
// capturing the benchmark, the size's digits and its K or M suffix: CostVsN/N=4M-2. A benchmark
// matches by its whole name, so that TimeoutVsNGCOff is not read as TimeoutVsN.
func sizeName(benchmarks []string, param string) *regexp.Regexp {
	var quoted []string
	for _, b := range benchmarks {
		quoted = append(quoted, regexp.QuoteMeta(b))
	}
	return regexp.MustCompile(`^(` + strings.Join(quoted, "|") + `)/` + regexp.QuoteMeta(param) + `=(\d+)([KM]?)(-\d+)?$`)
}

// vsSize draws a line per benchmark of c and variant: the median of c.Unit against the size.
func (r *Report) vsSize(pkg string, c suite.Chart) []plots.Series {
	return r.sizeSeries(pkg, c, r.Variants, "", false, func(k stats.Key, v string) (float64, plots.Interval, bool) {
		sum, ok := r.Index.Summary(k, v)
		return sum.Center * c.Scale, plots.Interval{}, ok
	})
}

// ratioVsSize draws a line per benchmark of c and variant other than the baseline (lab.Baseline):
// the ratio of the variant's c.Unit to the baseline's at each size, as the verdict computes it
// (stats.Index.Ratio), with its confidence interval where the samples bound one. A point whose
// ratio has no bounded interval is drawn without a bar (the zero plots.Interval).
func (r *Report) ratioVsSize(pkg string, c suite.Chart) []plots.Series {
	var variants []string
	for _, v := range r.Variants {
		if v != lab.Baseline {
			variants = append(variants, v)
		}
	}
	return r.sizeSeries(pkg, c, variants, "/"+lab.Baseline, true, func(k stats.Key, v string) (float64, plots.Interval, bool) {
		rt, ok := r.Index.Ratio(k, lab.Baseline, v)
		var iv plots.Interval
		if rt.Bounded() {
			iv = plots.Interval{Lo: rt.Lo, Hi: rt.Hi}
		}
		return rt.Center, iv, ok
	})
}

// sizeSeries returns a line per benchmark of c and variant of variants, named "VARIANTsuffix
// BENCHMARK": point's figure of each key of c.Unit against its size (c.Param), in the order of
// the sizes, with point's intervals where bars is set. A line without a point is left out.
func (r *Report) sizeSeries(pkg string, c suite.Chart, variants []string, suffix string, bars bool,
	point func(k stats.Key, v string) (y float64, iv plots.Interval, ok bool)) []plots.Series {
	re := sizeName(c.Benchmarks, c.Param)
	var series []plots.Series
	for _, bench := range c.Benchmarks {
		for _, v := range variants {
			s := plots.Series{Name: v + suffix + " " + bench}
			for _, k := range r.keys(pkg, stats.Tidy(c.Unit)) {
				m := re.FindStringSubmatch(k.Name)
				if m == nil || m[1] != bench {
					continue
				}
				y, iv, ok := point(k, v)
				if !ok {
					continue
				}
				s.Points = append(s.Points, plotter.XY{X: sizeOf(m[2], m[3]), Y: y})
				if bars {
					s.Intervals = append(s.Intervals, iv)
				}
			}
			if len(s.Points) > 0 {
				series = append(series, sortedByX(s))
			}
		}
	}
	return series
}

// sortedByX returns s with its points, and their intervals, in the order of X: the keys come in the
// order the results first name them, which need not be the sizes'.
func sortedByX(s plots.Series) plots.Series {
	order := make([]int, len(s.Points))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return s.Points[order[a]].X < s.Points[order[b]].X })
	out := plots.Series{Name: s.Name, Points: make(plotter.XYs, len(order))}
	if s.Intervals != nil {
		out.Intervals = make([]plots.Interval, len(order))
	}
	for i, j := range order {
		out.Points[i] = s.Points[j]
		if s.Intervals != nil {
			out.Intervals[i] = s.Intervals[j]
		}
	}
	return out
}

// quantiles draws a line per variant: its medians of the quantile figures of the chart's
// benchmark against their fractions. The axis of the figures is logarithmic, so a figure below
// c.Floor is drawn at c.Floor.
func (r *Report) quantiles(pkg string, c suite.Chart) []plots.Series {
	var series []plots.Series
	for _, v := range r.Variants {
		s := plots.Series{Name: v}
		for _, q := range c.Quantiles {
			if val, ok := r.center(pkg, c.Benchmarks[0], q.Unit, v); ok {
				s.Points = append(s.Points, plotter.XY{X: max(val*c.Scale, c.Floor), Y: q.Q})
			}
		}
		series = append(series, s)
	}
	return series
}

// vsSlack draws a point per variant: its median of c.Unit in the chart's benchmark against the
// median slack it granted there (in µs), leaving out the variants without the figure, and with
// c.SlackOnly those that granted no slack.
func (r *Report) vsSlack(pkg string, c suite.Chart) []plots.Series {
	var series []plots.Series
	bench := c.Benchmarks[0]
	for _, v := range r.Variants {
		val, ok := r.center(pkg, bench, c.Unit, v)
		slack := r.slack(pkg, bench, v)
		if !ok || (c.SlackOnly && slack == 0) {
			continue
		}
		series = append(series, plots.Series{Name: v, Points: plotter.XYs{{X: slack.Seconds() * 1e6, Y: val * c.Scale}}})
	}
	return series
}

// slack returns the median slack variant granted in bench (of the workload of pkg): its
// units.Slack figure, 0 if absent.
func (r *Report) slack(pkg, bench, variant string) time.Duration {
	secs, _ := r.center(pkg, bench, units.Slack, variant)
	return time.Duration(math.Round(secs * 1e9))
}

// center returns the median of variant's figure unit (as the benchmark reports it) in bench, a
// top-level benchmark of pkg, read as the index tidied it.
func (r *Report) center(pkg, bench, unit, variant string) (float64, bool) {
	for _, k := range r.keys(pkg, stats.Tidy(unit)) {
		if strings.HasPrefix(k.Name, bench+"/") || strings.HasPrefix(k.Name, bench+"-") {
			if sum, ok := r.Index.Summary(k, variant); ok {
				return sum.Center, true
			}
		}
	}
	return 0, false
}

func (r *Report) keys(pkg, unit string) []stats.Key {
	var out []stats.Key
	for _, k := range r.Index.Keys() {
		if k.Pkg == pkg && k.Unit == unit {
			out = append(out, k)
		}
	}
	return out
}

// sizeOf turns "100" "K" into 100e3.
func sizeOf(digits, suffix string) float64 {
	n, _ := strconv.ParseFloat(digits, 64)
	switch suffix {
	case "K":
		n *= 1e3
	case "M":
		n *= 1e6
	}
	return n
}
