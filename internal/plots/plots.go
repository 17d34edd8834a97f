// Package plots draws the report's line charts as SVG with gonum.org/v1/plot.
package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one line of a chart: one variant's points, and optionally an interval about each.
type Series struct {
	Name   string
	Points plotter.XYs
	// Intervals is nil, or holds one Interval per point, in the order of Points: each drawn as a
	// vertical bar in the series' colour. The zero Interval draws no bar.
	Intervals []Interval
}

// Interval is the range a point's value lies in, drawn as a vertical bar from Lo to Hi; a point's
// Y lies within it. The zero Interval is no interval: no bar is drawn.
type Interval struct {
	Lo, Hi float64
}

// none reports whether i is the zero Interval, which draws no bar.
func (i Interval) none() bool {
	return i == Interval{}
}

// Chart describes one chart.
type Chart struct {
	Title, X, Y  string
	LogX, LogY   bool
	LegendLeft   bool // legend in a left corner, where the lines leave room
	LegendBottom bool // legend in a bottom corner
	Series       []Series
	// Refs are the Y values of dashed horizontal reference lines across the chart (a ratio's 1);
	// the Y axis reaches them.
	Refs []float64
	// Dodge, above 1 on a log X axis, draws the series apart: the i-th of n series at X times
	// Dodge^(i-(n-1)/2). So bars at the same X do not overlap. The points stay where they are in
	// Series; only the drawing moves them.
	Dodge float64
	// SpanY has a linear Y axis span the points, bars and Refs only. Without it the axis starts
	// at zero. A ratio about 1 needs SpanY to be read.
	SpanY bool
}

// Empty reports whether the chart has no point to draw.
func (c Chart) Empty() bool {
	for _, s := range c.Series {
		if len(s.Points) > 0 {
			return false
		}
	}
	return true
}

// SaveSVG draws the chart into file, an .svg path (or any extension gonum/plot knows). On log axes,
// points, intervals and references that are not positive cannot be drawn and are an error; so are
// a series whose Intervals are not one per point and an interval that does not hold its point.
func (c Chart) SaveSVG(file string) error {
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.X
	p.Y.Label.Text = c.Y
	if c.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if c.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	p.Add(plotter.NewGrid())
	for _, y := range c.Refs {
		if (c.LogY && !(y > 0)) || math.IsInf(y, 0) || math.IsNaN(y) {
			return fmt.Errorf("chart %q: reference line at %g cannot be drawn", c.Title, y)
		}
		ref := plotter.NewFunction(func(float64) float64 { return y })
		ref.Color = color.Gray{Y: 0x80}
		ref.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(ref)
	}
	var lines []any
	var bars []plot.Plotter
	drawn := 0
	for _, s := range c.Series {
		if len(s.Points) > 0 {
			drawn++
		}
	}
	for _, s := range c.Series {
		if len(s.Points) == 0 {
			continue
		}
		if err := c.checkLog(s); err != nil {
			return err
		}
		s = c.dodged(s, len(lines)/2, drawn)
		b, err := c.errorBars(s, len(lines)/2)
		if err != nil {
			return err
		}
		if b != nil {
			bars = append(bars, b)
		}
		lines = append(lines, s.Name, s.Points)
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	p.Add(bars...)
	if !c.LogY && !c.SpanY {
		p.Y.Min = math.Min(p.Y.Min, 0) // a linear axis starts at zero, not to magnify differences
	}
	for _, y := range c.Refs {
		p.Y.Min, p.Y.Max = math.Min(p.Y.Min, y), math.Max(p.Y.Max, y)
	}
	p.Legend.Top = !c.LegendBottom
	p.Legend.Left = c.LegendLeft
	return p.Save(7*vg.Inch, 4.5*vg.Inch, file)
}

func (c Chart) checkLog(s Series) error {
	for _, pt := range s.Points {
		if (c.LogX && !(pt.X > 0)) || (c.LogY && !(pt.Y > 0)) || math.IsInf(pt.X, 0) || math.IsInf(pt.Y, 0) {
			return fmt.Errorf("chart %q: series %s: point (%g, %g) cannot be drawn", c.Title, s.Name, pt.X, pt.Y)
		}
	}
	return nil
}

// dodged returns s drawn as the index-th of n series: its X moved by Dodge (see Chart.Dodge).
func (c Chart) dodged(s Series, index, n int) Series {
	if !c.LogX || c.Dodge <= 1 || n < 2 {
		return s
	}
	f := math.Pow(c.Dodge, float64(index)-float64(n-1)/2)
	pts := make(plotter.XYs, len(s.Points))
	for i, pt := range s.Points {
		pts[i] = plotter.XY{X: pt.X * f, Y: pt.Y}
	}
	s.Points = pts
	return s
}

// errorBars returns the vertical bars of the intervals of s, the series drawn index-th (whose
// colour plotutil.AddLinePoints picks by that index), or nil when s has none to draw.
func (c Chart) errorBars(s Series, index int) (*plotter.YErrorBars, error) {
	if s.Intervals == nil {
		return nil, nil
	}
	if len(s.Intervals) != len(s.Points) {
		return nil, fmt.Errorf("chart %q: series %s: %d intervals for %d points", c.Title, s.Name,
			len(s.Intervals), len(s.Points))
	}
	var bars struct {
		plotter.XYs
		plotter.YErrors
	}
	for i, iv := range s.Intervals {
		if iv.none() {
			continue
		}
		pt := s.Points[i]
		if !(iv.Lo <= pt.Y && pt.Y <= iv.Hi) || math.IsInf(iv.Lo, 0) || math.IsInf(iv.Hi, 0) || (c.LogY && !(iv.Lo > 0)) {
			return nil, fmt.Errorf("chart %q: series %s: interval [%g, %g] of point (%g, %g) cannot be drawn",
				c.Title, s.Name, iv.Lo, iv.Hi, pt.X, pt.Y)
		}
		bars.XYs = append(bars.XYs, pt)
		bars.YErrors = append(bars.YErrors, struct{ Low, High float64 }{pt.Y - iv.Lo, iv.Hi - pt.Y})
	}
	if len(bars.XYs) == 0 {
		return nil, nil
	}
	b, err := plotter.NewYErrorBars(bars)
	if err != nil {
		return nil, err
	}
	b.Color = plotutil.Color(index)
	return b, nil
}

// logTicks labels the powers of ten on a log axis or, when the axis holds fewer than two of them,
// the ticks of a linear axis, which a log scale places correctly too.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(min, max)
	labelled := 0
	for _, t := range ticks {
		if t.Label != "" && t.Value >= min && t.Value <= max {
			labelled++
		}
	}
	if labelled >= 2 {
		return ticks
	}
	return plot.DefaultTicks{}.Ticks(min, max)
}
