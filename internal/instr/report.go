package instr

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"timerlab/internal/atomicfile"
	"timerlab/internal/matrix"
	"timerlab/internal/results"
	"timerlab/internal/stats"
)

// ReportFile is the comparison WriteReport writes into a results directory of counts.
const ReportFile = "instr.md"

// WriteReport reads back the raw files of the count set of the matrix spec in dir, as benchstat
// would, and writes the comparison of each variant with the first to dir/instr.md and to w, in the
// table the report shows (stats.Table): per benchmark, each variant's median ± 95% confidence
// interval, and its change from the first where the U-test finds it significant.
func WriteReport(dir string, spec matrix.Spec, set string, vg *Valgrind, w io.Writer) error {
	count, ok := spec.Counts[set]
	if !ok {
		return fmt.Errorf("%s: no count set %s", dir, set)
	}
	var files, raws []string
	for _, v := range spec.Variants {
		files = append(files, filepath.Join(dir, results.RawPath(v)))
		raws = append(raws, results.RawPath(v))
	}
	res, warnings, err := results.Read(files...)
	if err != nil {
		return err
	}
	if len(warnings) > 0 {
		return fmt.Errorf("results do not parse back: %s", strings.Join(warnings, "; "))
	}
	var md bytes.Buffer
	fmt.Fprintf(&md, "# Instructions per op: `%s` benchmarks\n\n", count.Pkg)
	fmt.Fprintf(&md, "`timerlab instr`: %s cachegrind, %d rounds, `%s`, instr/op = (Ir(2N) - Ir(N)) / N; "+
		"median ± 95%% CI, U-test against %s. Raw: %s.\n\n",
		vg.Version, spec.Rounds, strings.Join(CountingEnv(nil), " "), spec.Variants[0], strings.Join(raws, ", "))
	ix := stats.NewIndex(res)
	stats.Table{Keys: ix.Keys(), Variants: spec.Variants}.Write(&md, ix)
	if _, err := w.Write(md.Bytes()); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, ReportFile), md.Bytes())
}
