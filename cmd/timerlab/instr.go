package main

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"timerlab/internal/atomicfile"
	"timerlab/internal/experiment"
	"timerlab/internal/instr"
	"timerlab/internal/lab"
	"timerlab/internal/results"
	"timerlab/internal/stats"
	"timerlab/internal/toolchain"
)

// defaultInstrBench are the time package's timer benchmarks whose instructions per op are stable
// from run to run. Left out: AdjustTimers10000, whose ops reset one of 10000 timers to fire in
// 1ns and then sleep 1µs, so how often the idle P wakes and adjusts the heap follows the wall
// clock (its count varies by 5% under cachegrind); and the latency benchmarks, which measure
// wall-clock delays (docs/metrics.md).
var defaultInstrBench = []string{
	"BenchmarkAfterFunc1000", "BenchmarkAfter", "BenchmarkStop", "BenchmarkSimultaneousAfterFunc1000",
	"BenchmarkStartStop1000", "BenchmarkReset", "BenchmarkSleep1000", "BenchmarkTicker",
	"BenchmarkTickerReset", "BenchmarkTickerResetNaive",
}

// calibration is how long each benchmark runs natively to measure its time per op, and
// instrTarget how long N of its iterations should take natively: about 100M instructions, which
// cachegrind runs in a third of a second, on top of the second and a half that start-up and
// set-up take; large enough that the count's run-to-run noise (a few hundred thousand
// instructions) is a few tenths of a percent of N iterations.
const (
	calibration = 50 * time.Millisecond
	instrTarget = 25 * time.Millisecond
)

func instrCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("instr", flag.ExitOnError)
	variantList := fs.String("variants", "heap,upstream", "comma-separated variants, the first the baseline")
	pkg := fs.String("pkg", "time", "the std package whose benchmarks run")
	benchList := fs.String("bench", strings.Join(defaultInstrBench, ","), "comma-separated benchmark names "+
		"(BenchmarkX or BenchmarkX/sub); a benchmark with sub-benchmarks is measured per sub-benchmark")
	rounds := fs.Int("rounds", 6, "measurements per benchmark and variant, interleaved round-robin")
	n := fs.Int("n", 0, fmt.Sprintf("iterations of the shorter run, the longer one runs 2N (default: per benchmark, "+
		"what takes about %v natively)", instrTarget))
	out := fs.String("out", "", "results directory (default: $TIMERLAB_BUILD/results-instr)")
	valgrind := fs.String("valgrind", "valgrind", "the valgrind command")
	fs.Parse(args)
	if fs.NArg() != 0 || *rounds < 1 || (*n != 0 && *n < instr.MinN) {
		return fmt.Errorf("want flags only, --rounds >= 1 and --n >= %d (or 0), got %q", instr.MinN, args)
	}
	vg, err := instr.FindValgrind(ctx, *valgrind)
	if err != nil {
		return err
	}
	l, err := checkout()
	if err != nil {
		return err
	}
	tcs, err := openToolchains(l, *variantList)
	if err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(l.Build, "results-instr")
	}
	r := &instrRun{vg: vg, pkg: *pkg, rounds: *rounds}
	return r.run(ctx, l, tcs, splitList(*benchList), *n, *out)
}

// openToolchains opens the toolchain of every variant list names, in its order; a missing one is
// an error naming it.
func openToolchains(l lab.Layout, list string) ([]*toolchain.Toolchain, error) {
	all, err := lab.ReadVariants(l.Variants)
	if err != nil {
		return nil, err
	}
	vs, err := lab.Select(all, splitList(list))
	if err != nil {
		return nil, err
	}
	return experiment.OpenToolchains(l, vs)
}

// instrRun is one invocation of timerlab instr. Invariant: every variant measures the same
// benchmarks with the same N, so its results compare one to one with the baseline's (bins[0]).
type instrRun struct {
	vg     *instr.Valgrind
	pkg    string
	rounds int
	env    results.Env     // recorded at the top of every variant's file
	bins   []*instr.Binary // one per variant, in --variants order
	leaves []string        // the benchmarks measured, each reporting one result
	n      map[string]int  // the N of each leaf
}

func (r *instrRun) run(ctx context.Context, l lab.Layout, tcs []*toolchain.Toolchain, bench []string, n int, out string) error {
	work, err := os.MkdirTemp("", "timerlab-instr-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := r.build(ctx, l, tcs, work); err != nil {
		return err
	}
	if err := r.plan(ctx, bench, n); err != nil {
		return err
	}
	if err := r.measure(ctx, out); err != nil {
		return err
	}
	return r.report(out)
}

// build compiles every variant's test binary into work and records the toolchains in r.env.
func (r *instrRun) build(ctx context.Context, l lab.Layout, tcs []*toolchain.Toolchain, work string) error {
	r.env = results.Machine()
	r.env.Mode, r.env.GOMAXPROCS = "instr", 1 // instr.CountingEnv
	var err error
	if r.env.Build, err = results.DescribeBuild(ctx, l, tcs); err != nil {
		return err
	}
	for i, tc := range tcs {
		fmt.Fprintf(os.Stderr, "timerlab instr: building %s's test binary with %s\n", r.pkg, r.env.Toolchains[i].Version)
		b, err := instr.Build(ctx, tc, r.pkg, work)
		if err != nil {
			return err
		}
		r.bins = append(r.bins, b)
	}
	return nil
}

// plan resolves the benchmark names into leaves with every variant, which must agree, and gives
// each leaf its N: n, or what the baseline's calibration says when n is 0 (with n set, one
// iteration suffices to list the leaves).
func (r *instrRun) plan(ctx context.Context, bench []string, n int) error {
	benchtime := calibration.String()
	if n != 0 {
		benchtime = "1x"
	}
	r.leaves, r.n = nil, map[string]int{}
	for i, b := range r.bins {
		var names []string
		for _, name := range bench {
			leaves, err := b.Calibrate(ctx, name, benchtime)
			if err != nil {
				return err
			}
			for _, leaf := range leaves {
				if slices.Contains(names, leaf.Name) {
					continue // named again by a wider pattern: its samples would count twice
				}
				names = append(names, leaf.Name)
				if i == 0 {
					r.n[leaf.Name] = cmp.Or(n, instr.ChooseN(leaf.SecPerOp, instrTarget))
				}
			}
		}
		if i == 0 {
			r.leaves = names
		} else if !slices.Equal(names, r.leaves) {
			return fmt.Errorf("variant %s has the benchmarks %q, baseline %s has %q", b.Variant, names, r.bins[0].Variant, r.leaves)
		}
	}
	for _, leaf := range r.leaves {
		fmt.Fprintf(os.Stderr, "timerlab instr: %s N=%d\n", leaf, r.n[leaf])
	}
	return nil
}

// measure runs every round, each variant in turn and every leaf within it, and rewrites each
// variant's file after every round: the files always hold every finished round.
func (r *instrRun) measure(ctx context.Context, out string) error {
	res := make([][]instr.Result, len(r.bins))
	for round := 1; round <= r.rounds; round++ {
		for i, b := range r.bins {
			for _, leaf := range r.leaves {
				start := time.Now()
				perOp, err := b.Measure(ctx, r.vg, leaf, r.n[leaf])
				if err != nil {
					return err
				}
				res[i] = append(res[i], instr.Result{Name: leaf, N: r.n[leaf], PerOp: perOp})
				fmt.Fprintf(os.Stderr, "timerlab instr: round %d/%d %s %s: %.2f %s (%.1fs)\n",
					round, r.rounds, b.Variant, leaf, perOp, instr.Unit, time.Since(start).Seconds())
			}
		}
		if err := r.write(out, res); err != nil {
			return err
		}
	}
	return nil
}

// write writes each variant's results to out/VARIANT.txt, after the configuration lines that
// say what ran: the environment, the package and the counting tool.
func (r *instrRun) write(out string, res [][]instr.Result) error {
	for i, b := range r.bins {
		var buf bytes.Buffer
		if err := r.env.Header(&buf, b.Variant); err != nil {
			return err
		}
		fmt.Fprintf(&buf, "pkg: %s\ncounter: %s --tool=cachegrind --cache-sim=no\ncounting-env: %s\n\n",
			r.pkg, r.vg.Version, strings.Join(instr.CountingEnv(nil), " "))
		if err := instr.WriteResults(&buf, res[i]); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(r.path(out, b.Variant), buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// path is the file of variant's results in out.
func (r *instrRun) path(out, variant string) string {
	return filepath.Join(out, variant+".txt")
}

// report reads the variants' files back, as benchstat would, and writes the comparison with the
// baseline to out/instr.md and stdout.
func (r *instrRun) report(out string) error {
	var files, variants []string
	for _, b := range r.bins {
		files, variants = append(files, r.path(out, b.Variant)), append(variants, b.Variant)
	}
	raw := strings.Join(variants, ".txt, ") + ".txt"
	res, warnings, err := results.Read(files...)
	if err != nil {
		return err
	}
	if len(warnings) > 0 {
		return fmt.Errorf("results do not parse back: %s", strings.Join(warnings, "; "))
	}
	var md bytes.Buffer
	fmt.Fprintf(&md, "# Instructions per op: `%s` benchmarks\n\n", r.pkg)
	fmt.Fprintf(&md, "`timerlab instr`: %s cachegrind, %d rounds, `%s`, instr/op = (Ir(2N) - Ir(N)) / N; "+
		"median ± 95%% CI, U-test against %s. Raw: %s.\n\n",
		r.vg.Version, r.rounds, strings.Join(instr.CountingEnv(nil), " "), variants[0], raw)
	for _, t := range stats.NewIndex(res).Tables(variants) {
		t.WriteMarkdown(&md)
	}
	fmt.Print(md.String())
	return atomicfile.WriteFile(filepath.Join(out, "instr.md"), md.Bytes())
}
