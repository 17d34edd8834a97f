package stats

import (
	"fmt"
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

func TestTablesMarkSignificance(t *testing.T) {
	text := runs("heap", "Stop", 100, 101, 99, 100, 102, 98) + runs("wheel", "Stop", 50, 51, 49, 50, 52, 48) +
		runs("heap", "Reset", 60, 70, 65, 61, 69, 64) + runs("wheel", "Reset", 62, 68, 66, 60, 70, 63)
	tables := NewIndex(results(t, text)).Tables([]string{"heap", "wheel"})
	if len(tables) != 1 || tables[0].Unit != "sec/op" || len(tables[0].Rows) != 2 {
		t.Fatalf("tables %+v", tables)
	}
	stop, reset := tables[0].Rows[0], tables[0].Rows[1]
	if stop.Cells[0] != "100.00n ± 2%" || !strings.HasPrefix(stop.Cells[2], "-50.00% (p=0.002 n=6)") {
		t.Errorf("Stop row %q", stop.Cells)
	}
	if !strings.HasPrefix(reset.Cells[2], "~ (p=") {
		t.Errorf("Reset row %q, want no significant change", reset.Cells)
	}
	var b strings.Builder
	tables[0].WriteMarkdown(&b)
	if !strings.Contains(b.String(), "| sec/op | heap | wheel | wheel vs heap |\n| --- | --- | --- | --- |\n") {
		t.Errorf("markdown:\n%s", b.String())
	}
}

func TestMissingVariantIsDash(t *testing.T) {
	ix := NewIndex(results(t, runs("heap", "Stop", 1, 2, 3)))
	row := ix.Tables([]string{"heap", "wheel"})[0].Rows[0]
	if row.Cells[1] != "—" || row.Cells[2] != "—" {
		t.Errorf("row %q, want dashes for wheel", row.Cells)
	}
}
