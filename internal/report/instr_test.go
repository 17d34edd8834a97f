package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"timerlab/internal/matrix"
	"timerlab/internal/results"
	"timerlab/internal/verify"
)

// writeCounts writes into a new directory a matrix of instruction counts of time's
// Reset/impl=func and StartStop1000 by heap and upstream, 6 rounds, upstream's 1.04% above heap's
// on Reset, as timerlab instr writes one, of the patch series series, and returns the directory.
func writeCounts(t *testing.T, series string) string {
	t.Helper()
	dir := t.TempDir()
	env, err := results.ReadEnv("testdata/results")
	if err != nil {
		t.Fatal(err)
	}
	env.Mode, env.GOMAXPROCS, env.SeriesSHA256 = "instr", 1, series
	spec := matrix.Spec{Variants: []string{"heap", "upstream"}, Sets: []string{"instr-time"}, Rounds: 6, Count: 1,
		Counts: map[string]matrix.Count{"instr-time": {Pkg: "time", Bench: []string{"^Benchmark(Reset|StartStop1000)$"}}}}
	if err := matrix.Claim(dir, spec); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteEnv(dir, env); err != nil {
		t.Fatal(err)
	}
	for _, v := range spec.Variants {
		reset := map[string]float64{"heap": 289, "upstream": 292}[v]
		for round := 1; round <= spec.Rounds; round++ {
			run := filepath.Join(dir, matrix.Cell{Kind: matrix.Run, Variant: v, Set: "instr-time", Round: round}.Path())
			os.MkdirAll(filepath.Dir(run), 0o755)
			text := fmt.Sprintf("pkg: time\n\nBenchmarkReset/impl=func 500000 %.2f instr/op\n"+
				"BenchmarkStartStop1000 100 %.2f instr/op\n", reset+float64(round)/100, 1215181+float64(round))
			if err := os.WriteFile(run, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := results.Assemble(dir, spec, env, v); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestInstrBesideTimes checks that the verdict gives the instructions per op of a matrix of counts
// of the same series beside the times of the same benchmarks, that the report records the counts
// as a source verify accepts, and that counts of another series, or a matrix of times, are refused.
func TestInstrBesideTimes(t *testing.T) {
	r, err := Load("testdata/results")
	if err != nil {
		t.Fatal(err)
	}
	counts := writeCounts(t, r.Env.SeriesSHA256)
	if err := r.LoadInstr(counts); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	r.writeVerdict(&b)
	for _, want := range []string{
		"| benchmark | heap instr/op | upstream |",
		"| `time` Reset/impl=func | 289.0 | +1.04% (+1.03 to +1.05) · time ×",
		"| `time` StartStop1000 | 1215000 | +0.00% (-0.00 to +0.00) ~ · time ×0.80 (—) ~ |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("verdict lacks %q:\n%s", want, b.String())
		}
	}
	docs := t.TempDir()
	if err := r.Write(docs); err != nil {
		t.Fatal(err)
	}
	if err := verify.Source(docs, counts); err != nil {
		t.Errorf("the report's source lines: %v", err)
	}

	r, _ = Load("testdata/results")
	if err := r.LoadInstr(writeCounts(t, strings.Repeat("0", 64))); err == nil || !strings.Contains(err.Error(), "count the series timed") {
		t.Errorf("counts of another series: %v, want them refused", err)
	}
	if err := r.LoadInstr("testdata/results"); err == nil || !strings.Contains(err.Error(), "no matrix of instruction counts") {
		t.Errorf("a matrix of times as counts: %v, want it refused", err)
	}
	r, _ = LoadPartial("testdata/results")
	if err := r.LoadInstr(writeCounts(t, strings.Repeat("0", 64))); err != nil {
		t.Fatalf("counts of another series in a partial report: %v", err)
	}
	const want = ") ran patch series 00000000, the rest 483a63fb"
	if !slices.ContainsFunc(r.Partial, func(p string) bool {
		return strings.HasPrefix(p, "the instruction counts (") && strings.HasSuffix(p, want)
	}) {
		t.Errorf("partial report's list %q lacks %q", r.Partial, want)
	}
}

// TestCheckSeries checks that a report of results whose series is not the checkout's opens with a
// line naming both, and that one of the checkout's series says nothing of it.
func TestCheckSeries(t *testing.T) {
	r, err := Load("testdata/results")
	if err != nil {
		t.Fatal(err)
	}
	const want = "**Not the code's series.** These results ran with patch series `483a63fb`; the checkout that rendered them is at series `0badc0de`"
	for _, tc := range []struct {
		code string
		want bool
	}{{r.Env.SeriesSHA256, false}, {"0badc0de" + strings.Repeat("1", 56), true}} {
		r.CheckSeries(tc.code)
		var b bytes.Buffer
		r.writeMarkdown(&b, nil)
		md := b.String()
		if got := strings.Contains(md, want); got != tc.want {
			t.Errorf("code of series %.8s: the line %q in the report: %v, want %v", tc.code, want, got, tc.want)
		}
		if tc.want && strings.Index(md, want) > strings.Index(md, "A quick matrix of") {
			t.Errorf("the line comes after the report's opening:\n%.800s", md)
		}
	}
}
