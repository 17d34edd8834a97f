// Package plots draws the report's line charts as SVG with gonum.org/v1/plot.
package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one line of a chart: one variant's points.
type Series struct {
	Name   string
	Points plotter.XYs
}

// Chart describes one chart.
type Chart struct {
	Title, X, Y  string
	LogX, LogY   bool
	LegendLeft   bool // legend in a left corner, where the lines leave room
	LegendBottom bool // legend in a bottom corner
	Series       []Series
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

// SaveSVG draws the chart into file, an .svg path (or any extension gonum/plot knows). On log axes, points that are not positive
// cannot be drawn and are an error.
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
	var lines []any
	for _, s := range c.Series {
		if len(s.Points) == 0 {
			continue
		}
		if err := c.checkLog(s); err != nil {
			return err
		}
		lines = append(lines, s.Name, s.Points)
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	if !c.LogY {
		p.Y.Min = math.Min(p.Y.Min, 0) // a linear axis starts at zero, not to magnify differences
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
