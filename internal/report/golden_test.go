package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"timerlab/internal/matrix"
	"timerlab/internal/plots"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the reports rendered now")

// TestGolden renders each recorded results directory of testdata and compares the whole report,
// and the data of every chart, with testdata/golden, as benchstat's tests do: a change of layout,
// order, figure or note shows as a diff. After a change meant to alter the report, rerun with
// -update and read the diff of testdata/golden before committing it.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name, dir, xbench string
		partial           bool // the fixture lacks what a matrix records: its profiles, some benchmarks
	}{
		{"results", "testdata/results", "", false},
		{"slack", "testdata/slack", "", true},
		{"floor", "testdata/floor", "", true},
		{"xbench", "testdata/xbench", "", false},
		{"wheel", "testdata/wheel", "", true},
		{"null", "testdata/null", "", true},
		{"results-with-xbench", "testdata/results", "testdata/xbench", true}, // two series
	} {
		t.Run(tc.name, func(t *testing.T) {
			load := Load
			if tc.partial {
				load = LoadPartial
			}
			r, err := load(tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			if tc.xbench != "" {
				if err := r.LoadXBench(tc.xbench); err != nil {
					t.Fatal(err)
				}
			}
			golden(t, tc.name+".md", rendered(t, r))
			golden(t, tc.name+".charts.txt", dumpCharts(r.charts()))
		})
	}
}

// dumpCharts writes what each chart shows, empty ones included: its file, title, axes, series and
// points (with their intervals, where a series has them), reference lines, and note.
func dumpCharts(charts []savedChart) []byte {
	var b bytes.Buffer
	for _, c := range charts {
		ch := c.Chart
		fmt.Fprintf(&b, "== %s\ntitle: %s\nx: %s (log %v)\ny: %s (log %v)\nlegend: left %v, bottom %v\n",
			c.File, ch.Title, ch.X, ch.LogX, ch.Y, ch.LogY, ch.LegendLeft, ch.LegendBottom)
		for _, s := range ch.Series {
			fmt.Fprintf(&b, "series %s:", s.Name)
			for i, p := range s.Points {
				fmt.Fprintf(&b, " (%.6g, %.6g", p.X, p.Y)
				switch {
				case s.Intervals == nil:
				case s.Intervals[i] == (plots.Interval{}):
					b.WriteString(" [no bar]")
				default:
					fmt.Fprintf(&b, " [%.6g, %.6g]", s.Intervals[i].Lo, s.Intervals[i].Hi)
				}
				b.WriteString(")")
			}
			b.WriteString("\n")
		}
		if len(ch.Refs) > 0 {
			fmt.Fprintf(&b, "refs: %v\n", ch.Refs)
		}
		fmt.Fprintf(&b, "note: %s\n\n", c.Note)
	}
	return b.Bytes()
}

// golden compares got with testdata/golden/name, or rewrites that file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run TestGolden -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the rendering now:\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff shows the first lines where want and got differ, with a few lines of context.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	for j := max(0, i-2); j < i; j++ {
		fmt.Fprintf(&b, "  %s\n", w[j])
	}
	for j := i; j < min(len(w), i+4); j++ {
		fmt.Fprintf(&b, "- %s\n", w[j])
	}
	for j := i; j < min(len(g), i+4); j++ {
		fmt.Fprintf(&b, "+ %s\n", g[j])
	}
	return fmt.Sprintf("at line %d:\n%s", i+1, b.String())
}

// TestSampleNotes checks the notes on what few samples allow, at each side of their bounds: below 4
// samples per variant no difference can reach p < 0.05, below 6 no 95% confidence interval of a
// median can be computed; in the go test sets' tables and in the section of golang.org/x/benchmarks.
func TestSampleNotes(t *testing.T) {
	const noP, noCI = "no difference can reach p < 0.05", "confidence interval of a median cannot be computed"
	for _, tc := range []struct {
		dir   string
		write func(*Report, *bytes.Buffer)
	}{
		{"testdata/results", (*Report).writeResults},
		{"testdata/xbench", (*Report).writeXBench},
	} {
		for _, n := range []int{2, 3, 4, 5, 6, 7} {
			r, err := Load(tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			r.Spec.Rounds, r.Spec.Count = n, 1
			var b bytes.Buffer
			tc.write(r, &b)
			if got := strings.Contains(b.String(), noP); got != (n < 4) {
				t.Errorf("%s, %d samples: says %q: %v, want %v", tc.dir, n, noP, got, n < 4)
			}
			if got := strings.Contains(b.String(), noCI); got != (n < 6) {
				t.Errorf("%s, %d samples: says %q: %v, want %v", tc.dir, n, noCI, got, n < 6)
			}
			if want := fmt.Sprintf("With %d samples per variant", n); n < 6 && !strings.Contains(b.String(), want) {
				t.Errorf("%s, %d samples: the note does not say %q", tc.dir, n, want)
			}
		}
	}
}

// TestProfileCount checks that the CPU profiles section gives the profile cells' -count where the
// matrix recorded it, and no count where it did not (the recorded fixtures, begun before it was).
func TestProfileCount(t *testing.T) {
	for _, tc := range []struct {
		count int
		want  string
	}{
		{0, "One extra run per variant and set"},
		{3, "One extra `-count=3` run per variant and set"},
	} {
		dir := copyDir(t, "testdata/results")
		spec, err := matrix.ReadSpec(dir)
		if err != nil {
			t.Fatal(err)
		}
		spec.ProfileCount = tc.count
		data, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "matrix.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if md := rendered(t, r); !strings.Contains(string(md), "## CPU profiles\n\n"+tc.want) {
			t.Errorf("profile count %d: the CPU profiles section does not open with %q", tc.count, tc.want)
		}
	}
}

// rendered writes r's results.md into a temporary directory and returns it.
func rendered(t *testing.T, r *Report) []byte {
	t.Helper()
	docs := t.TempDir()
	if err := r.Write(docs); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(docs, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	return md
}
