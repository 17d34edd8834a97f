package experiment

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"

	"timerlab/internal/instr"
	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/selection"
	"timerlab/internal/suite"
	"timerlab/internal/toolchain"
)

// InstrOptions are what timerlab instr's flags select: the instructions per op of some benchmarks
// of a package, counted under cachegrind.
type InstrOptions struct {
	Variants []string // the first is the baseline, whose calibration gives each benchmark its N
	Pkg      string   // as timerlab bench --pkg takes one (resolvePackage)
	Bench    string   // the -test.bench pattern; a benchmark with sub-benchmarks stands for each of them
	Rounds   int
	N        int    // iterations of the shorter run; 0: calibrated per benchmark (instr.Target)
	Valgrind string // the valgrind command
	Log      io.Writer
	Report   io.Writer // where instr.md is printed too
}

// CountSet is the name of the set that counts the instructions of the package whose bench --pkg
// set is called pkgSet (suite.PackageSetName).
func CountSet(pkgSet string) string {
	return "instr-" + strings.TrimPrefix(pkgSet, suite.PackagePrefix)
}

// DefaultInstrBench selects the time package's timer benchmarks whose instructions per op are
// stable from run to run. Left out: AdjustTimers10000, whose ops reset one of 10000 timers to
// fire in 1ns and then sleep 1µs, so how often the idle P wakes and adjusts the heap follows the
// wall clock (its count varies by 5% under cachegrind); and the latency benchmarks, which
// measure wall-clock delays (docs/metrics.md).
const DefaultInstrBench = "^Benchmark(AfterFunc1000|After|Stop|SimultaneousAfterFunc1000|StartStop1000|Reset|" +
	"Sleep1000|Ticker|TickerReset|TickerResetNaive)$"

// Instr runs the matrix of instruction counts o selects in out: the variants × one count set ×
// rounds, rotated and resumable as any matrix, its environment recorded in env.json and build.json.
// Before the first cell, each benchmark's N is fixed (instr.MakePlan, with test binaries built in a
// temporary directory) and recorded, so that a resumed run counts as the first did; a benchmark
// name that matches nothing, or variants that disagree on what the names select, leave out as it
// was. After the last cell it writes the comparison with the first variant to out/instr.md and to
// o.Report.
func Instr(ctx context.Context, l lab.Layout, o InstrOptions, out string) error {
	all, err := l.ReadVariants()
	if err != nil {
		return err
	}
	vs, err := selection.TimerVariants(all, o.Variants)
	if err != nil {
		return err
	}
	vg, err := instr.FindValgrind(ctx, o.Valgrind)
	if err != nil {
		return err
	}
	e := &experiment{layout: l, variants: vs, valgrind: vg, gomaxprocs: 1, log: orDiscard(o.Log)}
	if e.toolchains, err = toolchain.OpenAll(l, vs); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "timerlab-instr-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	ps, err := resolvePackage(ctx, e.toolchains, o.Pkg, o.Bench, work)
	if err != nil {
		return err
	}
	if ps.goMod != nil {
		// The ballast (instr.Build) is a test file added by an overlay, which go refuses
		// beneath the module cache: count a copy of the module.
		if err := copyModule(ctx, e.toolchains[0], &ps); err != nil {
			return err
		}
	}
	set := CountSet(ps.name)
	ps.name = set // its module, if any, goes under the count set's name
	e.pkgs = []pkgSet{ps}
	count := matrix.Count{Pkg: ps.pkg.Path, Version: ps.pkg.Version, Dir: ps.pkg.Dir, Bench: []string{o.Bench}, N: o.N}
	spec := matrix.Spec{Variants: lab.Names(vs), Sets: []string{set}, Rounds: o.Rounds, Count: 1,
		Counts: map[string]matrix.Count{set: count}}
	p, err := e.check(ctx, out, spec)
	if err != nil {
		return err
	}
	if _, err := instr.ReadPlan(p.out, set); errors.Is(err, fs.ErrNotExist) {
		if err := e.plan(ctx, set, count, ps.dir); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if err := e.execute(ctx, p, spec, 0); err != nil {
		return err
	}
	return instr.WriteReport(p.out, spec, set, vg, orDiscard(o.Report))
}

// plan fixes what the count set measures, with go run in the module directory src, for execute
// to record.
func (e *experiment) plan(ctx context.Context, set string, count matrix.Count, src string) error {
	work, err := os.MkdirTemp("", "timerlab-instr-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	plan, err := instr.MakePlan(ctx, e.toolchains, count, src, work, e.log)
	if err != nil {
		return err
	}
	e.plans = map[string]instr.Plan{set: plan}
	return nil
}
