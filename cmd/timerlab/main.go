// Command timerlab runs the timer-variant experiment: it benchmarks every variant's toolchain
// side by side, renders the report, writes bent and sweet configurations, and verifies results.
// It parses flags and hands them to the packages under internal/ (docs/pipeline.md has the map).
//
// Usage:
//
//	timerlab bench [--quick] [--variants heap,upstream] [--sets a,b] [--sweep-sets a|all] [--out DIR]
//	timerlab report [--results DIR] [--docs DIR]
//	timerlab configs [--variants ...] [--out DIR]
//	timerlab xbench
//	timerlab verify [--docs DIR] RESULTS_DIR
//	timerlab instr [--variants heap,upstream] [--pkg time] [--bench a,b] [--rounds 6] [--n N] [--out DIR]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"timerlab/internal/configs"
	"timerlab/internal/experiment"
	"timerlab/internal/instr"
	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/report"
	"timerlab/internal/toolchain"
	"timerlab/internal/verify"
	"timerlab/internal/xbench"
)

const usage = `usage: timerlab <command> [flags]

commands:
  bench    run the matrix of variants × benchmark sets × rounds (resumable)
  report   render docs/results.md and docs/results/*.svg from a results directory
  configs  write bent and sweet configuration files for the toolchains
  xbench   install sweet and bent (golang.org/x/benchmarks) and etcd's source at xbench.conf's pin
  verify   check a results directory (and a rendered report) parse
  instr    compare instructions per op of a std package's benchmarks under cachegrind
Run timerlab <command> -h for its flags.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	commands := map[string]func(context.Context, []string) error{
		"bench": benchCmd, "report": reportCmd, "configs": configsCmd, "verify": verifyCmd,
		"instr": instrCmd, "xbench": xbenchCmd,
	}
	cmd, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "timerlab: unknown command %q\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err := cmd(ctx, os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "timerlab %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// checkout returns the layout of the timerlab checkout holding the working directory.
func checkout() (lab.Layout, error) {
	root, err := lab.FindRoot(".")
	if err != nil {
		return lab.Layout{}, err
	}
	return lab.NewLayout(root), nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func benchCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	quick := fs.Bool("quick", false, "the small CI matrix (short runs, small N, no net or third-party sets)")
	variantList := fs.String("variants", "", "comma-separated variants (default: all of variants.conf)")
	setList := fs.String("sets", "", "comma-separated benchmark sets (default: all of the mode but those of "+
		"golang.org/x/benchmarks, which run only when named: sweet-etcd, sweet-controls, bent)")
	sweepList := fs.String("sweep-sets", "", "comma-separated sets the alias variants (series @TARGET) run on, "+
		"or all (default: the sets marked as sensitive to timer slack: wakeups)")
	out := fs.String("out", "", "results directory (default: $TIMERLAB_BUILD/results, or results-quick; "+
		"results-xbench for the sets of golang.org/x/benchmarks alone)")
	rounds := fs.Int("rounds", 0, "rounds per cell (default: 6, quick 3)")
	count := fs.Int("count", 1, "-test.count of each round")
	timeout := fs.Duration("timeout", 15*time.Minute, "limit for one cell")
	buildOnly := fs.Bool("build-only", false, "build the test binaries and stop, to run them elsewhere with --prebuilt")
	prebuilt := fs.Bool("prebuilt", false, "run the matrix that --build-only built in --out, "+
		"on a machine without the toolchains")
	fs.Parse(args)
	l, err := checkout()
	if err != nil {
		return err
	}
	if *out == "" {
		*out = experiment.DefaultOut(l, *quick, splitList(*setList))
	}
	if *prebuilt {
		if shaping := matrixFlags(fs); len(shaping) > 0 {
			return fmt.Errorf("--prebuilt runs the matrix recorded in %s: drop %s", *out, strings.Join(shaping, ", "))
		}
		return experiment.Prebuilt(ctx, l, *out, *timeout, os.Stderr)
	}
	return experiment.Bench(ctx, l, experiment.Options{Quick: *quick, Variants: splitList(*variantList),
		Sets: splitList(*setList), SweepSets: splitList(*sweepList), Rounds: *rounds, Count: *count,
		Timeout: *timeout, BuildOnly: *buildOnly, Log: os.Stderr}, *out)
}

// matrixFlags returns the flags set on fs that shape a matrix or build one (all but --out,
// --timeout and --prebuilt), as -name.
func matrixFlags(fs *flag.FlagSet) []string {
	var names []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "out" && f.Name != "timeout" && f.Name != "prebuilt" {
			names = append(names, "--"+f.Name)
		}
	})
	return names
}

func reportCmd(_ context.Context, args []string) error {
	fs := flag.NewFlagSet("report", flag.ExitOnError)
	dir := fs.String("results", "", "results directory (default: $TIMERLAB_BUILD/results)")
	docs := fs.String("docs", "", "where results.md and results/*.svg go (default: <repo>/docs)")
	xbenchDir := fs.String("xbench", "", "results directory of a matrix of the sets of golang.org/x/benchmarks alone, "+
		"rendered as their section (default, with the default --results: $TIMERLAB_BUILD/results-xbench if it holds a "+
		"matrix; none: no such section)")
	fs.Parse(args)
	l, err := checkout()
	if err != nil {
		return err
	}
	if *xbenchDir == "" && *dir == "" { // the main matrix, with that of golang.org/x/benchmarks if there is one
		if _, err := matrix.ReadSpec(l.XBenchResults()); err == nil {
			*xbenchDir = l.XBenchResults()
		}
	}
	if *dir == "" {
		*dir = l.Results(false)
	}
	if *docs == "" {
		*docs = l.Docs()
	}
	r, err := report.Load(*dir)
	if err != nil {
		return err
	}
	if *xbenchDir != "" && *xbenchDir != "none" {
		if err := r.LoadXBench(*xbenchDir); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "timerlab: the golang.org/x/benchmarks section from %s\n", *xbenchDir)
	}
	err = r.Write(*docs)
	for _, w := range r.Warnings { // Write adds those about the profiles
		fmt.Fprintln(os.Stderr, "timerlab: warning:", w)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "timerlab: wrote %s\n", filepath.Join(*docs, lab.ReportFile))
	return nil
}

func configsCmd(_ context.Context, args []string) error {
	fs := flag.NewFlagSet("configs", flag.ExitOnError)
	variantList := fs.String("variants", "", "comma-separated variants (default: all of variants.conf)")
	out := fs.String("out", "", "directory for the files (default: $TIMERLAB_BUILD/results)")
	profile := fs.Bool("cpuprofile", true, "ask bent and sweet for CPU profiles")
	fs.Parse(args)
	l, err := checkout()
	if err != nil {
		return err
	}
	all, err := l.ReadVariants()
	if err != nil {
		return err
	}
	vs, err := lab.Select(all, splitList(*variantList))
	if err != nil {
		return err
	}
	if *out == "" {
		*out = l.Results(false)
	}
	var infos []toolchain.Info
	for _, v := range vs {
		infos = append(infos, toolchain.Planned(l, v))
	}
	paths, err := configs.Write(*out, infos, *profile)
	for _, p := range paths {
		fmt.Println(p)
	}
	return err
}

func xbenchCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("xbench", flag.ExitOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: timerlab xbench\n\n"+
			"Installs sweet and bent at the version xbench.conf pins into $TIMERLAB_BUILD/xbench (go install), with\n"+
			"etcd's source at its pinned tag (git clone). Where the module proxy refuses golang.org/x/benchmarks or\n"+
			"github.com cannot be reached, %s and %s name git checkouts at the pinned commits.\n",
			xbench.SrcEnv, xbench.EtcdSrcEnv)
	}
	fs.Parse(args)
	if fs.NArg() != 0 {
		fs.Usage()
		return fmt.Errorf("no arguments wanted, got %q", fs.Args())
	}
	l, err := checkout()
	if err != nil {
		return err
	}
	_, err = xbench.Install(ctx, l, os.Stderr)
	return err
}

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

func instrCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("instr", flag.ExitOnError)
	variantList := fs.String("variants", "heap,upstream", "comma-separated variants, the first the baseline")
	pkg := fs.String("pkg", "time", "the std package whose benchmarks run")
	benchList := fs.String("bench", strings.Join(defaultInstrBench, ","), "comma-separated benchmark names "+
		"(BenchmarkX or BenchmarkX/sub); a benchmark with sub-benchmarks is measured per sub-benchmark")
	rounds := fs.Int("rounds", 6, "measurements per benchmark and variant, interleaved round-robin")
	n := fs.Int("n", 0, fmt.Sprintf("iterations of the shorter run, the longer one runs 2N (default: per benchmark, "+
		"what takes about %v natively)", instr.Target))
	out := fs.String("out", "", "results directory (default: $TIMERLAB_BUILD/results-instr)")
	valgrind := fs.String("valgrind", "valgrind", "the valgrind command")
	fs.Parse(args)
	if fs.NArg() != 0 || *rounds < 1 || (*n != 0 && *n < instr.MinN) {
		return fmt.Errorf("want flags only, --rounds >= 1 and --n >= %d (or 0), got %q", instr.MinN, args)
	}
	l, err := checkout()
	if err != nil {
		return err
	}
	if *out == "" {
		*out = l.InstrResults()
	}
	return experiment.Instr(ctx, l, experiment.InstrOptions{Variants: splitList(*variantList), Pkg: *pkg,
		Bench: splitList(*benchList), Rounds: *rounds, N: *n, Valgrind: *valgrind, Log: os.Stderr, Report: os.Stdout}, *out)
}

func verifyCmd(_ context.Context, args []string) error {
	fs := flag.NewFlagSet("verify", flag.ExitOnError)
	docs := fs.String("docs", "", "also check the report rendered into this directory")
	fs.Parse(args)
	dir := fs.Arg(0)
	fs.Parse(fs.Args()[min(1, fs.NArg()):]) // flags may also follow the directory
	if dir == "" || fs.NArg() != 0 {
		return fmt.Errorf("want one results directory, got %q", args)
	}
	if err := verify.Results(dir); err != nil {
		return err
	}
	if *docs != "" {
		if err := verify.Report(*docs); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "timerlab: %s verified\n", dir)
	return nil
}
