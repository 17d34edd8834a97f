package report

import (
	"testing"

	"gonum.org/v1/plot/plotter"

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
