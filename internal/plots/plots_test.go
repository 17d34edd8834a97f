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
