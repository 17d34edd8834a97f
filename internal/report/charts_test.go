package report

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
	"gonum.org/v1/plot/plotter"

	"timerlab/internal/plots"
	"timerlab/internal/stats"
	"timerlab/internal/suite"
)

// TestCostVsNChart checks the cost-vs-N chart of the recorded quick matrix: one line per variant
// and benchmark of bench/timers that varies N, each point at its N and at the median ns/op of the
// recorded rounds (computed by hand from raw/*.txt).
func TestCostVsNChart(t *testing.T) {
	r, err := Load("testdata/results")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]plotter.XYs{
		"heap CostVsN":        {{X: 1e3, Y: 499.4}, {X: 1e5, Y: 637.9}},
		"upstream CostVsN":    {{X: 1e3, Y: 588.4}, {X: 1e5, Y: 625.7}},
		"heap TimeoutVsN":     {{X: 1e3, Y: 778.7}, {X: 1e5, Y: 1062}},
		"upstream TimeoutVsN": {{X: 1e3, Y: 615.5}, {X: 1e5, Y: 659.8}},
		"heap AllocVsN":       {{X: 1e3, Y: 225.9}, {X: 1e5, Y: 162.7}},
		"upstream AllocVsN":   {{X: 1e3, Y: 238.2}, {X: 1e5, Y: 210.1}},
	}
	c := r.chart(suite.Timers.Pkg, suite.Timers.Charts[0])
	if c.File != "cost-vs-n.svg" {
		t.Errorf("chart file %q", c.File)
	}
	if len(c.Chart.Series) != len(want) {
		t.Errorf("%d series, want %d", len(c.Chart.Series), len(want))
	}
	for _, s := range c.Chart.Series {
		w, ok := want[s.Name]
		if !ok {
			t.Errorf("unexpected series %q", s.Name)
			continue
		}
		if len(s.Points) != len(w) {
			t.Errorf("%s: %d points, want %d", s.Name, len(s.Points), len(w))
			continue
		}
		for _, wp := range w {
			found := false
			for _, p := range s.Points {
				found = found || near(p, wp)
			}
			if !found {
				t.Errorf("%s: no point %v in %v", s.Name, wp, s.Points)
			}
		}
	}
}

// TestVsNName checks that the cost-vs-N pattern names each benchmark of bench/timers by its whole
// name, so that TimeoutVsNGCOff is not read as TimeoutVsN, and reads N and its suffix.
func TestVsNName(t *testing.T) {
	for name, want := range map[string][]string{
		"TimeoutVsN/N=4M-2":      {"TimeoutVsN", "4", "M"},
		"TimeoutVsNGCOff/N=4M-2": {"TimeoutVsNGCOff", "4", "M"},
		"TimeoutVsNGCOff/N=1K":   {"TimeoutVsNGCOff", "1", "K"},
		"AllocVsN/N=100K-16":     {"AllocVsN", "100", "K"},
		"Burst/timers=1M-2":      nil,
		"TimeoutVsNGC/N=1K":      nil,
	} {
		m := sizeName(suite.Timers.Charts[0].Benchmarks, "N").FindStringSubmatch(name)
		if want == nil {
			if m != nil {
				t.Errorf("%s: matched as %q", name, m[1:4])
			}
			continue
		}
		if m == nil || m[1] != want[0] || m[2] != want[1] || m[3] != want[2] {
			t.Errorf("%s: got %q, want %q", name, m, want)
		}
	}
}

// timersRuns returns runs of bench/timers' bench/N=size for variant, each taking ns times
// 1 + i/100 in run i, so that the runs differ.
func timersRuns(variant, bench, size string, runs int, ns float64) string {
	s := "variant: " + variant + "\npkg: timerlab/bench/timers\n"
	for i := range runs {
		s += fmt.Sprintf("Benchmark%s/N=%s-2 1000 %g ns/op\n", bench, size, ns*(1+float64(i)/100))
	}
	return s
}

// ratioChart returns the timers workload's chart of the ratios against N.
func ratioChart(t *testing.T) suite.Chart {
	t.Helper()
	for _, c := range suite.Timers.Charts {
		if c.Kind == suite.RatioVsSize {
			return c
		}
	}
	t.Fatal("the timers workload has no RatioVsSize chart")
	return suite.Chart{}
}

// TestRatioVsNChart checks the chart of the ratios against N on runs made up to give known
// ratios: wheel's sec/op over heap's at each N, with the interval the verdict gives it. With six
// runs a variant, the ratios of all pairs are the ratio times (1+j/100)/(1+i/100), i, j < 6,
// whose median is 1 and whose 6th smallest and 6th largest, the 95% interval's bounds, are
// 1.02/1.05 and 1.05/1.02. With two runs a variant there is no interval: the point has no bar. Where
// heap has no run (CostVsN at 1M) there is no point; heap has no series of its own, and
// TimeoutVsNGCOff, not charted, none either.
func TestRatioVsNChart(t *testing.T) {
	text := timersRuns("heap", "TimeoutVsN", "1K", 6, 300) + timersRuns("wheel", "TimeoutVsN", "1K", 6, 330) +
		timersRuns("heap", "TimeoutVsN", "10K", 6, 400) + timersRuns("wheel", "TimeoutVsN", "10K", 6, 280) +
		timersRuns("heap", "TimeoutVsN", "100K", 2, 500) + timersRuns("wheel", "TimeoutVsN", "100K", 2, 250) +
		timersRuns("heap", "CostVsN", "1K", 6, 200) + timersRuns("wheel", "CostVsN", "1K", 6, 200) +
		timersRuns("heap", "CostVsN", "100K", 6, 250) + timersRuns("wheel", "CostVsN", "100K", 6, 200) +
		timersRuns("wheel", "CostVsN", "1M", 6, 300) +
		timersRuns("heap", "TimeoutVsNGCOff", "1K", 6, 300) + timersRuns("wheel", "TimeoutVsNGCOff", "1K", 6, 150)
	res := parseResults(t, text, "timers")
	r := &Report{Variants: []string{"heap", "wheel"}, Index: stats.NewIndex(res)}
	c := r.chart(suite.Timers.Pkg, ratioChart(t))
	lo, hi := 1.02/1.05, 1.05/1.02
	bar := func(ratio float64) plots.Interval { return plots.Interval{Lo: ratio * lo, Hi: ratio * hi} }
	want := []plots.Series{
		{Name: "wheel/heap TimeoutVsN", Points: plotter.XYs{{X: 1e3, Y: 1.1}, {X: 1e4, Y: 0.7}, {X: 1e5, Y: 0.5}},
			Intervals: []plots.Interval{bar(1.1), bar(0.7), {}}},
		{Name: "wheel/heap CostVsN", Points: plotter.XYs{{X: 1e3, Y: 1}, {X: 1e5, Y: 0.8}},
			Intervals: []plots.Interval{bar(1), bar(0.8)}},
	}
	if c.File != "ratio-vs-n.svg" || !c.Chart.LogX || c.Chart.LogY || len(c.Chart.Refs) != 1 || c.Chart.Refs[0] != 1 {
		t.Errorf("chart %s: log X %v, log Y %v, references %v; want ratio-vs-n.svg, log X, linear Y, a line at 1",
			c.File, c.Chart.LogX, c.Chart.LogY, c.Chart.Refs)
	}
	if len(c.Chart.Series) != len(want) {
		t.Fatalf("%d series, want %d: %+v", len(c.Chart.Series), len(want), c.Chart.Series)
	}
	for i, w := range want {
		s := c.Chart.Series[i]
		if s.Name != w.Name || len(s.Points) != len(w.Points) || len(s.Intervals) != len(w.Intervals) {
			t.Errorf("series %d: %s, %v, %v; want %s, %v, %v", i, s.Name, s.Points, s.Intervals, w.Name, w.Points, w.Intervals)
			continue
		}
		for j, wp := range w.Points {
			p, iv, wi := s.Points[j], s.Intervals[j], w.Intervals[j]
			if !near(p, wp) {
				t.Errorf("%s: point %d is %v, want %v", s.Name, j, p, wp)
			}
			if !nearly(iv.Lo, wi.Lo) || !nearly(iv.Hi, wi.Hi) {
				t.Errorf("%s: interval of %v is [%g, %g], want [%g, %g]", s.Name, wp, iv.Lo, iv.Hi, wi.Lo, wi.Hi)
			}
		}
	}
	if err := c.Chart.SaveSVG(t.TempDir() + "/ratio-vs-n.svg"); err != nil {
		t.Error(err)
	}
}

// TestRatioVsNNote checks that the note of the ratio chart gives the confidence level the ratios'
// intervals are computed at (stats.Confidence) and says what a bar across 1 means.
func TestRatioVsNNote(t *testing.T) {
	note := ratioChart(t).Note
	for _, want := range []string{fmt.Sprintf("%.0f%% confidence interval", 100*stats.Confidence),
		"a bar that crosses 1 is no significant difference", "without a bar"} {
		if !strings.Contains(note, want) {
			t.Errorf("the note lacks %q: %s", want, note)
		}
	}
}

// parseResults reads benchmark results in the text format, named name, failing t on a line that is
// not a result.
func parseResults(t *testing.T, text, name string) []*benchfmt.Result {
	t.Helper()
	rd := benchfmt.NewReader(strings.NewReader(text), name)
	var res []*benchfmt.Result
	for rd.Scan() {
		rec, ok := rd.Result().(*benchfmt.Result)
		if !ok {
			t.Fatal(rd.Result())
		}
		res = append(res, rec.Clone())
	}
	return res
}

// TestSortedByX checks that a series' points, with their intervals, are put in the order of X.
func TestSortedByX(t *testing.T) {
	s := plots.Series{Name: "a", Points: plotter.XYs{{X: 1e6, Y: 3}, {X: 1e3, Y: 1}, {X: 1e4, Y: 2}},
		Intervals: []plots.Interval{{Lo: 2, Hi: 4}, {}, {Lo: 1, Hi: 3}}}
	got := sortedByX(s)
	want := plots.Series{Name: "a", Points: plotter.XYs{{X: 1e3, Y: 1}, {X: 1e4, Y: 2}, {X: 1e6, Y: 3}},
		Intervals: []plots.Interval{{}, {Lo: 1, Hi: 3}, {Lo: 2, Hi: 4}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sortedByX = %+v, want %+v", got, want)
	}
	if got := sortedByX(plots.Series{Points: plotter.XYs{{X: 2}, {X: 1}}}); got.Intervals != nil || got.Points[0].X != 1 {
		t.Errorf("sortedByX without intervals = %+v", got)
	}
}
