package plots

import (
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

func TestSaveSVG(t *testing.T) {
	c := Chart{Title: "cost", X: "N", Y: "ns/op", LogX: true, LogY: true, Series: []Series{
		{Name: "heap", Points: plotter.XYs{{X: 1e3, Y: 100}, {X: 1e6, Y: 180}}},
		{Name: "wheel"}, // no data: left out
	}}
	data := saveSVG(t, c)
	if !strings.Contains(string(data), ">heap<") || strings.Contains(string(data), ">wheel<") {
		t.Error("legend should name heap only")
	}
}

func TestSaveSVGRejectsZeroOnLogAxis(t *testing.T) {
	c := Chart{Title: "cdf", LogX: true, Series: []Series{{Name: "heap", Points: plotter.XYs{{X: 0, Y: 0.5}}}}}
	if err := c.SaveSVG(filepath.Join(t.TempDir(), "c.svg")); err == nil {
		t.Error("drew x=0 on a log axis")
	}
}

func TestEmpty(t *testing.T) {
	if !(Chart{Series: []Series{{Name: "heap"}}}).Empty() {
		t.Error("chart without points is not empty")
	}
}

// TestSaveSVGWithIntervals checks a series with intervals: a bar for each interval but the zero
// one, and a reference line, drawn in a valid SVG; and that intervals that are not one per point,
// or one that does not hold its point, are refused.
func TestSaveSVGWithIntervals(t *testing.T) {
	points := plotter.XYs{{X: 1e3, Y: 1}, {X: 1e4, Y: 1.1}, {X: 1e6, Y: 0.6}}
	// The bars lie within the points' range, so that the axes, and their grid, are the same with
	// and without them.
	bars := []Interval{{Lo: 0.95, Hi: 1.05}, {}, {Lo: 0.55, Hi: 0.66}}
	strokes := func(intervals []Interval, refs []float64) int {
		t.Helper()
		c := Chart{Title: "ratio", X: "N", Y: "wheel / heap", LogX: true, Refs: refs,
			Series: []Series{{Name: "wheel/heap", Points: points, Intervals: intervals}}}
		return strings.Count(string(saveSVG(t, c)), "<path")
	}
	plain := strokes(nil, nil)
	// A bar is three strokes: the bar and its two caps.
	if got := strokes(bars, nil) - plain; got != 2*3 {
		t.Errorf("two bars draw %d strokes, want 6", got)
	}
	if got := strokes(nil, []float64{1}) - plain; got != 1 {
		t.Errorf("a reference line draws %d strokes, want 1", got)
	}
	for name, ivs := range map[string][]Interval{
		"two intervals for three points": {{Lo: 0.95, Hi: 1.05}, {}},
		"an interval above its point":    {{Lo: 1.02, Hi: 1.05}, {}, {}},
		"an unbounded interval":          {{Lo: 0.95, Hi: math.Inf(1)}, {}, {}},
	} {
		c := Chart{Title: "ratio", Series: []Series{{Name: "wheel/heap", Points: points, Intervals: ivs}}}
		if err := c.SaveSVG(filepath.Join(t.TempDir(), "bad.svg")); err == nil {
			t.Errorf("%s: drawn", name)
		}
	}
}

// saveSVG draws c into a file and returns the file's contents, failing t if drawing fails or what
// it drew is not XML.
func saveSVG(t *testing.T, c Chart) []byte {
	t.Helper()
	file := filepath.Join(t.TempDir(), "c.svg")
	if err := c.SaveSVG(file); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(data, new(struct{})); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	return data
}

// TestDodge checks that Dodge spreads the series about their X, symmetrically, on a log X axis
// only, and leaves the series given unchanged.
func TestDodge(t *testing.T) {
	s := Series{Name: "a", Points: plotter.XYs{{X: 1e3, Y: 1}, {X: 1e4, Y: 2}}}
	c := Chart{LogX: true, Dodge: 2}
	for _, tc := range []struct {
		index, n int
		factor   float64
	}{{0, 3, 0.5}, {1, 3, 1}, {2, 3, 2}, {0, 2, 1 / math.Sqrt2}, {0, 1, 1}} {
		got := c.dodged(s, tc.index, tc.n)
		for i, pt := range got.Points {
			if want := s.Points[i].X * tc.factor; math.Abs(pt.X-want) > 1e-9*want || pt.Y != s.Points[i].Y {
				t.Errorf("series %d of %d: point %d drawn at %v, want (%g, %g)", tc.index, tc.n, i, pt, want, s.Points[i].Y)
			}
		}
	}
	if s.Points[0].X != 1e3 {
		t.Error("dodged changed the series it was given")
	}
	if got := (Chart{Dodge: 2}).dodged(s, 0, 3); got.Points[0].X != 1e3 {
		t.Error("a linear X axis was dodged")
	}
}
