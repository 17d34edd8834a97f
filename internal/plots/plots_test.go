package plots

import (
	"encoding/xml"
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
	file := filepath.Join(t.TempDir(), "c.svg")
	if err := c.SaveSVG(file); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if err := xml.Unmarshal(data, new(struct{})); err != nil {
		t.Fatalf("not XML: %v", err)
	}
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
