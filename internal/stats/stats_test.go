package stats

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

func results(t *testing.T, text string) []*benchfmt.Result {
	r := benchfmt.NewReader(strings.NewReader(text), "test")
	var res []*benchfmt.Result
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			res = append(res, rec.Clone())
		case *benchfmt.SyntaxError:
			t.Fatal(rec)
		}
	}
	return res
}

func runs(variant, name string, nsPerOp ...int) string {
	s := "variant: " + variant + "\npkg: time\n"
	for _, v := range nsPerOp {
		s += fmt.Sprintf("Benchmark%s-2 1000 %d ns/op\n", name, v)
	}
	return s
}

// TestTableMarksSignificance checks a table's rows: each variant's median ± interval, the change
// from the baseline where the U-test finds it significant, "~" where not, and the geomean of a
// unit's rows (heap: √(100 × 64.5) = 80.31, wheel: √(50 × 64.5) = 56.79).
func TestTableMarksSignificance(t *testing.T) {
	text := runs("heap", "Stop", 100, 101, 99, 100, 102, 98) + runs("wheel", "Stop", 50, 51, 49, 50, 52, 48) +
		runs("heap", "Reset", 60, 70, 65, 61, 69, 64) + runs("wheel", "Reset", 62, 68, 66, 60, 70, 63)
	ix := NewIndex(results(t, text))
	var b strings.Builder
	Table{Keys: ix.Keys(), Variants: []string{"heap", "wheel"}}.Write(&b, ix)
	for _, want := range []string{
		"| benchmark | unit | heap | wheel |\n| --- | --- | --- | --- |\n",
		"| Stop-2 | sec/op | 100.00n ± 2% | 50.00n ± 4% -50% (p=0.002) |\n",
		"| Reset-2 | sec/op | 64.50n ± 9% | 64.50n ± 9% ~ |\n",
		"| geomean | sec/op | 80.31n | 56.79n -29% |\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// TestTableOrdersUnits checks that the standard units come first and that Qualify names the
// package, and a variant without a value shows a dash.
func TestTableOrdersUnits(t *testing.T) {
	text := "variant: heap\npkg: time\nBenchmarkStop-2 1000 5 custom/op 100 ns/op 8 B/op\n"
	ix := NewIndex(results(t, text))
	var b strings.Builder
	Table{Keys: ix.Keys(), Variants: []string{"heap", "wheel"}, Qualify: true}.Write(&b, ix)
	want := "| `time` Stop-2 | sec/op | 100.0n ± ∞ | — |\n| `time` Stop-2 | B/op | 8.000 ± ∞ | — |\n" +
		"| `time` Stop-2 | custom/op | 5.000 ± ∞ | — |\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant the rows\n%s", b.String(), want)
	}
}

// TestDeltaText checks the digits of a change in percent.
func TestDeltaText(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{DeltaText(100, 77.4), "-23%"},
		{DeltaText(100, 103.24), "+3.2%"},
		{DeltaText(99.75, 99.46), "-0.29%"},
		{DeltaText(5, 5), "0%"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestPerOp checks a rate per op: each run's figure per second times its time per op, paired by
// run (here the second run of wheel lacks the rate, and its time per op is left out), for each
// variant; a figure that is no rate has none.
func TestPerOp(t *testing.T) {
	text := "variant: heap\npkg: p\n" +
		"BenchmarkSleep-2 10 1000000 ns/op 300 wakeups/s\n" + // 0.3 wakeups a sleep
		"BenchmarkSleep-2 10 2000000 ns/op 200 wakeups/s\n" + // 0.4
		"variant: wheel\npkg: p\n" +
		"BenchmarkSleep-2 10 500000 ns/op 1000 wakeups/s\n" + // 0.5
		"BenchmarkSleep-2 10 700000 ns/op\n" +
		"BenchmarkSleep-2 10 400000 ns/op 2500 wakeups/s\n" // 1.0
	ix := NewIndex(results(t, text))
	k := Key{Unit: "wakeups/s", Pkg: "p", Name: "Sleep-2"}
	perOp, ok := ix.PerOp(k)
	if !ok || perOp.Unit != "wakeups/op" {
		t.Fatalf("PerOp = %+v, %v", perOp, ok)
	}
	for variant, want := range map[string][]float64{"heap": {0.3, 0.4}, "wheel": {0.5, 1.0}} {
		s, _ := ix.Sample(perOp, variant)
		if s == nil || len(s.Values) != len(want) {
			t.Fatalf("%s: %v, want %v", variant, s, want)
		}
		for i := range want {
			if math.Abs(s.Values[i]-want[i]) > 1e-12 {
				t.Errorf("%s: %v, want %v", variant, s.Values, want)
			}
		}
	}
	if slices.Contains(ix.Keys(), perOp) {
		t.Error("the key per op is among Keys")
	}
	if _, ok := ix.PerOp(Key{Unit: "sec/op", Pkg: "p", Name: "Sleep-2"}); ok {
		t.Error("a key per op of sec/op")
	}
}
