package instr

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"timerlab/internal/atomicfile"
	"timerlab/internal/matrix"
	"timerlab/internal/toolchain"
)

// Calibration is how long each benchmark runs natively to measure its time per op, and Target how
// long N of its iterations should take natively: about 100M instructions, which cachegrind runs in
// a third of a second, on top of the second and a half that start-up and set-up take; large enough
// that the count's run-to-run noise (a few hundred thousand instructions) is a few tenths of a
// percent of N iterations.
const (
	Calibration = 50 * time.Millisecond
	Target      = 25 * time.Millisecond
)

// A Plan is what the run cells of a count set measure, fixed before its first round so that every
// round and every variant measures the same benchmarks with the same N: the results of each
// variant compare one to one with the first's.
type Plan struct {
	Pkg    string `json:"pkg"`
	Leaves []Leaf `json:"leaves"` // Leaf.SecPerOp: the first variant's calibration, 0 with a fixed N
}

// PlanPath is the file of set's plan, relative to a results directory.
func PlanPath(set string) string {
	return filepath.Join("plans", set+".json")
}

// ReadPlan returns the plan of set recorded in dir.
func ReadPlan(dir, set string) (Plan, error) {
	var p Plan
	data, err := os.ReadFile(filepath.Join(dir, PlanPath(set)))
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("%s: %v", PlanPath(set), err)
	}
	return p, nil
}

// WritePlan records set's plan in dir.
func WritePlan(dir, set string, p Plan) error {
	return atomicfile.WriteJSON(filepath.Join(dir, PlanPath(set)), p)
}

// MakePlan builds c.Pkg's test binary with every toolchain of tcs into work, with go run in the
// module directory src, resolves each pattern of c.Bench into the benchmarks that report a result
// (a benchmark with sub-benchmarks into each of them, one selected twice once) with every variant,
// which must agree, and gives each its N: c.N, or what takes about Target natively with the first
// variant.
func MakePlan(ctx context.Context, tcs []*toolchain.Toolchain, c matrix.Count, src, work string, log io.Writer) (Plan, error) {
	benchtime := Calibration.String()
	if c.N != 0 {
		benchtime = "1x" // with N set, one iteration suffices to list the leaves
	}
	p := Plan{Pkg: c.Pkg}
	for i, tc := range tcs {
		info, err := tc.Describe(ctx)
		if err != nil {
			return p, err
		}
		fmt.Fprintf(log, "timerlab instr: building %s's test binary with %s\n", c.Pkg, info.Version)
		b, err := Build(ctx, tc, src, c.Pkg, filepath.Join(work, tc.Variant.Name+".test"), work)
		if err != nil {
			return p, err
		}
		var leaves []Leaf
		for _, name := range c.Bench {
			found, err := b.Calibrate(ctx, name, benchtime)
			if err != nil {
				return p, err
			}
			for _, leaf := range found {
				if !slices.ContainsFunc(leaves, func(l Leaf) bool { return l.Name == leaf.Name }) {
					leaves = append(leaves, leaf) // not again when a wider name selects it too
				}
			}
		}
		if i == 0 {
			p.Leaves = leaves
			continue
		}
		if have, want := leafNames(leaves), leafNames(p.Leaves); !slices.Equal(have, want) {
			return p, fmt.Errorf("variant %s has the benchmarks %q, baseline %s has %q", tc.Variant.Name, have,
				tcs[0].Variant.Name, want)
		}
	}
	for i, leaf := range p.Leaves {
		p.Leaves[i].N = cmp.Or(c.N, ChooseN(leaf.SecPerOp, Target))
		fmt.Fprintf(log, "timerlab instr: %s N=%d\n", leaf.Name, p.Leaves[i].N)
	}
	return p, nil
}

func leafNames(leaves []Leaf) []string {
	var names []string
	for _, l := range leaves {
		names = append(names, l.Name)
	}
	return names
}

// Executor runs the cells of a matrix's count sets (matrix.Spec.Counts), one at a time: a build
// cell builds the package's test binary with the variant's toolchain and the ballast (Build); a run
// cell measures, in the plan's order, every benchmark of the set's plan (recorded in Dir with
// WritePlan before the first cell) once, and writes the instructions per op in Go benchmark
// format, after configuration lines naming the package, the counter and its environment.
type Executor struct {
	Dir        string // the results directory
	Toolchains map[string]*toolchain.Toolchain
	Counts     map[string]matrix.Count
	Valgrind   *Valgrind
	Rounds     int       // of the matrix, for the progress lines
	Log        io.Writer // a line per measurement

	plans map[string]Plan // by set, read on first use
}

var _ matrix.Executor = (*Executor)(nil)

// Execute implements matrix.Executor.
func (x *Executor) Execute(ctx context.Context, c matrix.Cell, out string) error {
	count, ok := x.Counts[c.Set]
	tc := x.Toolchains[c.Variant]
	if !ok || tc == nil {
		return fmt.Errorf("no count set %s with variant %s", c.Set, c.Variant)
	}
	switch c.Kind {
	case matrix.Build:
		work, err := os.MkdirTemp("", "timerlab-instr-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(work)
		_, err = Build(ctx, tc, count.ModuleDir(tc.GOROOT, x.Dir, c.Set), count.Pkg, out, work)
		return err
	case matrix.Run:
		return x.run(ctx, tc, c, count, out)
	default:
		return fmt.Errorf("%s: a count set has no %s cells", c.Set, c.Kind)
	}
}

// run measures every benchmark of the set's plan once with the cell's variant.
func (x *Executor) run(ctx context.Context, tc *toolchain.Toolchain, c matrix.Cell, count matrix.Count, out string) error {
	plan, err := x.plan(c.Set)
	if err != nil {
		return err
	}
	bin := filepath.Join(x.Dir, matrix.Cell{Kind: matrix.Build, Variant: c.Variant, Set: c.Set}.Path())
	b, err := Open(ctx, tc, count.ModuleDir(tc.GOROOT, x.Dir, c.Set), count.Pkg, bin)
	if err != nil {
		return err
	}
	var res []Result
	for _, leaf := range plan.Leaves {
		start := time.Now()
		perOp, err := b.Measure(ctx, x.Valgrind, leaf.Name, leaf.N)
		if err != nil {
			return err
		}
		res = append(res, Result{Name: leaf.Name, N: leaf.N, PerOp: perOp})
		fmt.Fprintf(x.Log, "timerlab instr: round %d/%d %s %s: %.2f %s (%.1fs)\n",
			c.Round, x.Rounds, c.Variant, leaf.Name, perOp, Unit, time.Since(start).Seconds())
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "pkg: %s\n%s\n", count.Pkg, x.Valgrind.Config())
	if err := WriteResults(&buf, res); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// plan returns the plan of set recorded in the results directory.
func (x *Executor) plan(set string) (Plan, error) {
	if p, ok := x.plans[set]; ok {
		return p, nil
	}
	p, err := ReadPlan(x.Dir, set)
	if err != nil {
		return p, err
	}
	if x.plans == nil {
		x.plans = map[string]Plan{}
	}
	x.plans[set] = p
	return p, nil
}

// Config returns the configuration lines (Go benchmark format) that say how v counts: the tool and
// the environment the counted binaries run in.
func (v *Valgrind) Config() string {
	return fmt.Sprintf("counter: %s --tool=cachegrind --cache-sim=no\ncounting-env: %s\n", v.Version,
		strings.Join(CountingEnv(nil), " "))
}
