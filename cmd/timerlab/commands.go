package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"timerlab/internal/configs"
	"timerlab/internal/gotest"
	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/report"
	"timerlab/internal/results"
	"timerlab/internal/suite"
	"timerlab/internal/toolchain"
	"timerlab/internal/verify"
	"timerlab/internal/xbench"
)

// checkout returns the layout of the timerlab checkout holding the working directory.
func checkout() (lab.Layout, error) {
	root, err := lab.FindRoot(".")
	if err != nil {
		return lab.Layout{}, err
	}
	return lab.NewLayout(root), nil
}

// variantsFlag selects variants from variants.conf by a comma-separated list ("" for all).
func variantsFlag(l lab.Layout, list string) ([]lab.Variant, error) {
	all, err := lab.ReadVariants(l.Variants)
	if err != nil {
		return nil, err
	}
	return lab.Select(all, splitList(list))
}

// openVariants opens the toolchain of every variant of vs, in its order; the error names every
// missing one.
func openVariants(l lab.Layout, vs []lab.Variant) ([]*toolchain.Toolchain, error) {
	var tcs []*toolchain.Toolchain
	var errs []error
	for _, v := range vs {
		tc, err := toolchain.Open(l, v)
		tcs, errs = append(tcs, tc), append(errs, err)
	}
	return tcs, errors.Join(errs...)
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

// xbenchResults is where a matrix of the sets of golang.org/x/benchmarks alone goes by default, apart
// from the main matrix: its cells take minutes, its rounds are fewer.
func xbenchResults(l lab.Layout) string {
	return filepath.Join(l.Build, "results-xbench")
}

func defaultResults(l lab.Layout, quick bool) string {
	if quick {
		return filepath.Join(l.Build, "results-quick")
	}
	return filepath.Join(l.Build, "results")
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
		*out = defaultResults(l, *quick)
		if sets, err := selectSets(suite.Sets(*quick), splitList(*setList)); err == nil && len(sets) == len(xbenchSets(sets)) {
			*out = xbenchResults(l) // the sets of golang.org/x/benchmarks alone
		}
	}
	if *prebuilt {
		if shaping := matrixFlags(fs); len(shaping) > 0 {
			return fmt.Errorf("--prebuilt runs the matrix recorded in %s: drop %s", *out, strings.Join(shaping, ", "))
		}
		b, spec, err := prebuiltBench(l, *out)
		if err != nil {
			return err
		}
		return b.run(ctx, *out, spec, *timeout)
	}
	if *buildOnly {
		if sets, err := selectSets(suite.Sets(*quick), splitList(*setList)); err == nil && len(xbenchSets(sets)) > 0 {
			return fmt.Errorf("--build-only: %s: sweet and bent build and run in one step, where the toolchains are",
				strings.Join(xbenchSets(sets), ", "))
		}
	}
	b, err := newBench(ctx, l, *quick, *variantList, *setList, *sweepList)
	if err != nil {
		return err
	}
	b.buildOnly = *buildOnly
	if *rounds == 0 {
		*rounds = map[bool]int{false: 6, true: 3}[*quick]
	}
	return b.run(ctx, *out, b.spec(*rounds, *count), *timeout)
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

// bench is one invocation of timerlab bench.
type bench struct {
	layout     lab.Layout
	quick      bool
	variants   []lab.Variant
	toolchains []*toolchain.Toolchain // nil when prebuilt is set
	// prebuilt is the build that --build-only recorded, when its binaries run here without their
	// toolchains (--prebuilt).
	prebuilt  *results.Build
	buildOnly bool // run the build cells alone (--build-only)
	sets      []suite.Set
	only      map[string][]string // alias variant -> the sets it runs (matrix.Spec.Only)
	// tools are sweet and bent, when a set of golang.org/x/benchmarks is selected; nil otherwise.
	tools *xbench.Tools
}

// xbenchSets returns the names of the sets among sets that sweet or bent run.
func xbenchSets(sets []suite.Set) []string {
	var names []string
	for _, s := range sets {
		if s.Tool != suite.GoTest {
			names = append(names, s.Name)
		}
	}
	return names
}

// prebuiltBench returns the bench that runs the matrix --build-only recorded in out, and that
// matrix. The variants must still carry the GODEBUG their toolchains were described with.
func prebuiltBench(l lab.Layout, out string) (*bench, matrix.Spec, error) {
	spec, err := matrix.ReadSpec(out)
	if err != nil {
		return nil, spec, fmt.Errorf("--prebuilt: %v (timerlab bench --build-only makes it where the toolchains are)", err)
	}
	build, err := results.ReadBuild(out)
	if err != nil {
		return nil, spec, fmt.Errorf("--prebuilt: %v (timerlab bench --build-only records it where the toolchains are)", err)
	}
	b := &bench{layout: l, quick: spec.Quick, prebuilt: &build, only: spec.Only}
	if b.variants, err = variantsFlag(l, strings.Join(spec.Variants, ",")); err != nil {
		return nil, spec, err
	}
	for _, v := range b.variants {
		info, ok := build.Toolchain(v.Name)
		if !ok || info.GODEBUG != v.Godebug {
			return nil, spec, fmt.Errorf("--prebuilt: variant %s runs with GODEBUG %q here, but %s/build.json records %q: "+
				"run from a checkout of the commit that built it", v.Name, v.Godebug, out, info.GODEBUG)
		}
	}
	if b.sets, err = selectSets(suite.Sets(spec.Quick), spec.Sets); err != nil {
		return nil, spec, err
	}
	if xb := xbenchSets(b.sets); len(xb) > 0 {
		return nil, spec, fmt.Errorf("--prebuilt: %s: sweet and bent build and run in one step, where the toolchains are",
			strings.Join(xb, ", "))
	}
	return b, spec, nil
}

// newBench plans the matrix of variants and sets and opens the variants' toolchains, and sweet
// and bent if a set needs them.
func newBench(ctx context.Context, l lab.Layout, quick bool, variantList, setList, sweepList string) (*bench, error) {
	vs, err := variantsFlag(l, variantList)
	if err != nil {
		return nil, err
	}
	b := &bench{layout: l, quick: quick}
	if b.sets, err = selectSets(suite.Sets(quick), splitList(setList)); err != nil {
		return nil, err
	}
	sweep, err := sweepSets(suite.Sets(quick), sweepList)
	if err != nil {
		return nil, err
	}
	if b.variants, b.only = planAliases(vs, b.sets, sweep, os.Stderr); len(b.variants) == 0 {
		return nil, errors.New("no variant left to run")
	}
	if b.toolchains, err = openVariants(l, b.variants); err != nil {
		return nil, err
	}
	if len(xbenchSets(b.sets)) > 0 {
		if b.tools, err = xbench.Open(ctx, l); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// sweepSets returns the sets alias variants run on, from the --sweep-sets flag: the sets marked
// Sweep when list is empty, every set of the mode for "all", else the sets list names.
func sweepSets(all []suite.Set, list string) ([]string, error) {
	switch list {
	case "":
		return suite.SweepSets(all), nil
	case "all":
		return setNames(all), nil
	}
	names := splitList(list)
	for _, n := range names {
		if _, ok := suite.Find(all, n); !ok {
			return nil, fmt.Errorf("--sweep-sets: unknown benchmark set %q (known: %s)", n, strings.Join(setNames(all), " "))
		}
	}
	return names, nil
}

// planAliases restricts every alias among vs to the selected sets that sweep names. It returns the
// variants that have a set left to run, and the restriction of each alias as matrix.Spec.Only
// wants it (nil when vs has no alias); an alias left with no set is dropped, with a line on log.
func planAliases(vs []lab.Variant, sets []suite.Set, sweep []string, log io.Writer) ([]lab.Variant, map[string][]string) {
	var runs []string // the selected sets an alias runs
	for _, s := range sets {
		if slices.Contains(sweep, s.Name) {
			runs = append(runs, s.Name)
		}
	}
	var kept []lab.Variant
	only := map[string][]string{}
	for _, v := range vs {
		if !v.IsAlias() {
			kept = append(kept, v)
			continue
		}
		if len(runs) == 0 {
			fmt.Fprintf(log, "timerlab: %s (an alias of %s) runs only on the sets %s, none of them selected: left out "+
				"(--sweep-sets all runs it on every set)\n", v.Name, v.Toolchain, strings.Join(sweep, ","))
			continue
		}
		kept = append(kept, v)
		only[v.Name] = runs
	}
	if len(only) == 0 {
		return kept, nil
	}
	return kept, only
}

// selectSets returns the sets named (for none, all but those that run only when named), checked
// to be runnable.
func selectSets(all []suite.Set, names []string) ([]suite.Set, error) {
	if len(names) == 0 {
		names = setNames(suite.Default(all))
	}
	var out []suite.Set
	for _, n := range names {
		s, ok := suite.Find(all, n)
		if !ok {
			return nil, fmt.Errorf("unknown benchmark set %q (known: %s)", n, strings.Join(setNames(all), " "))
		}
		if err := s.Validate(); err != nil {
			return nil, err
		}
		if _, dup := suite.Find(out, n); dup {
			return nil, fmt.Errorf("benchmark set %q named twice: its samples would count twice", n)
		}
		out = append(out, s)
	}
	return out, nil
}

func setNames(sets []suite.Set) []string {
	var names []string
	for _, s := range sets {
		names = append(names, s.Name)
	}
	return names
}

func (b *bench) spec(rounds, count int) matrix.Spec {
	s := matrix.Spec{Quick: b.quick, Rounds: rounds, Count: count, Only: b.only}
	s.Variants = lab.Names(b.variants)
	for _, set := range b.sets {
		s.Sets = append(s.Sets, set.Name)
	}
	return s
}

// run runs the cells of spec not done yet in out (the build cells alone with --build-only), then
// assembles each variant's raw file. Every check that can refuse out runs before anything is
// written there.
func (b *bench) run(ctx context.Context, out string, spec matrix.Spec, timeout time.Duration) error {
	out, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	build, err := b.binaries(ctx, out)
	if err != nil {
		return err
	}
	var env results.Env
	var fresh bool
	if !b.buildOnly {
		if env, fresh, err = planEnv(out, b.quick, build); err != nil {
			return err
		}
	}
	if b.tools != nil {
		if err := xbench.Record(out, b.tools, false); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := matrix.Claim(out, spec); err != nil {
		return err
	}
	if b.prebuilt == nil {
		if err := recordBuild(out, build); err != nil {
			return err
		}
	}
	if b.tools != nil {
		if err := xbench.Record(out, b.tools, true); err != nil {
			return err
		}
	}
	runner := &matrix.Runner{Dir: out, Exec: b.executor(out, spec.Count, timeout, build), Progress: os.Stderr}
	if b.buildOnly {
		return b.runBuilds(ctx, runner, spec, out)
	}
	if fresh {
		if err := results.WriteEnv(out, env); err != nil {
			return err
		}
	}
	if err := runner.Run(ctx, spec.Cells()); err != nil {
		return err
	}
	for _, v := range spec.Variants {
		if _, err := results.Assemble(out, spec, env, v); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "timerlab: results in %s (raw/VARIANT.txt, profiles/); next: timerlab report --results %s\n", out, out)
	return nil
}

// runBuilds runs the build cells of spec alone, and stages what the standard library's binaries
// read when they run without their toolchain.
func (b *bench) runBuilds(ctx context.Context, runner *matrix.Runner, spec matrix.Spec, out string) error {
	var builds []matrix.Cell
	for _, c := range spec.Cells() {
		if c.Kind == matrix.Build {
			builds = append(builds, c)
		}
	}
	if err := runner.Run(ctx, builds); err != nil {
		return err
	}
	if err := gotest.StageGOROOT(out, b.toolchains[0].GOROOT); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "timerlab: test binaries in %s/bin; next, where they are to run, in a checkout of the same "+
		"commit with this directory copied over: timerlab bench --prebuilt --out DIR\n", out)
	return nil
}

// executor returns what runs the cells: go test's executor, and for the sets of golang.org/x/benchmarks
// sweet and bent's, each cell going to the executor of its set's tool.
func (b *bench) executor(out string, count int, timeout time.Duration, build results.Build) matrix.Executor {
	x := &gotest.Executor{Dir: out, RepoRoot: b.layout.Root, Count: count, Timeout: timeout, Log: os.Stderr,
		Variants: map[string]lab.Variant{}, Sets: map[string]suite.Set{}}
	for _, v := range b.variants {
		x.Variants[v.Name] = v
	}
	if b.toolchains != nil {
		x.Toolchains = map[string]*toolchain.Toolchain{}
		for _, tc := range b.toolchains {
			x.Toolchains[tc.Variant.Name] = tc
		}
	}
	for _, s := range b.sets {
		x.Sets[s.Name] = s
	}
	if b.tools == nil {
		return x
	}
	xb := &xbench.Executor{Dir: out, Tools: b.tools, Toolchains: x.Toolchains,
		Infos: map[string]toolchain.Info{}, Sets: x.Sets, Count: count, Timeout: timeout, Log: os.Stderr}
	for _, t := range build.Toolchains {
		xb.Infos[t.Variant] = t
	}
	return byTool{sets: x.Sets, goTest: x, xbench: xb}
}

// byTool sends each cell to the executor of its set's tool.
type byTool struct {
	sets           map[string]suite.Set
	goTest, xbench matrix.Executor
}

func (e byTool) Execute(ctx context.Context, c matrix.Cell, out string) error {
	if e.sets[c.Set].Tool == suite.GoTest {
		return e.goTest.Execute(ctx, c, out)
	}
	return e.xbench.Execute(ctx, c, out)
}

// binaries returns what out's test binaries are built from. With the toolchains that is their
// description, refused if out holds binaries built otherwise (per build.json or, in a directory
// from before build.json, per env.json); without them, what --build-only recorded.
func (b *bench) binaries(ctx context.Context, out string) (results.Build, error) {
	if b.prebuilt != nil {
		return *b.prebuilt, nil
	}
	build, err := describeBuild(ctx, b.layout, b.toolchains)
	if err != nil {
		return build, err
	}
	old, err := results.ReadBuild(out)
	if errors.Is(err, fs.ErrNotExist) {
		env, envErr := results.ReadEnv(out)
		if errors.Is(envErr, fs.ErrNotExist) {
			return build, nil
		}
		old, err = env.Build, envErr
	}
	if err == nil {
		err = sameBinaries(old, build)
	}
	if err != nil {
		return build, fmt.Errorf("%s: %v: use another --out or remove it", out, err)
	}
	return build, nil
}

// recordBuild records build in out/build.json unless it is there already, with the bent and
// sweet configurations for its toolchains beside it.
func recordBuild(out string, build results.Build) error {
	if _, err := results.ReadBuild(out); errors.Is(err, fs.ErrNotExist) {
		if err := results.WriteBuild(out, build); err != nil {
			return err
		}
	}
	_, err := configs.Write(out, build.Toolchains, true)
	return err
}

// describeBuild asks each toolchain for its version and experiments.
func describeBuild(ctx context.Context, l lab.Layout, tcs []*toolchain.Toolchain) (results.Build, error) {
	var b results.Build
	var err error
	if b.BaseVersion, err = l.BaseVersion(); err != nil {
		return b, err
	}
	if b.SeriesSHA256, err = l.SeriesHash(); err != nil {
		return b, err
	}
	for _, tc := range tcs {
		info, err := tc.Describe(ctx)
		if err != nil {
			return b, err
		}
		b.Toolchains = append(b.Toolchains, info)
	}
	return b, nil
}

// planEnv describes this machine and build for out/env.json. It returns the environment recorded
// there already, if any, and fresh false; a directory whose runs were started with other binaries
// or on another machine (or at another GOMAXPROCS) is refused: its cells would not be comparable.
func planEnv(out string, quick bool, build results.Build) (env results.Env, fresh bool, err error) {
	env = results.Machine()
	env.Mode = map[bool]string{false: "full", true: "quick"}[quick]
	env.Build = build
	old, err := results.ReadEnv(out)
	if errors.Is(err, fs.ErrNotExist) {
		return env, true, nil
	}
	if err == nil {
		err = sameBuild(old, env)
	}
	if err != nil {
		return env, false, fmt.Errorf("%s: %v: use another --out or remove it", out, err)
	}
	return old, false, nil
}

// sameBuild reports how cur differs from old in the machine or the binaries.
func sameBuild(old, cur results.Env) error {
	if m, n := old.MachineLine(), cur.MachineLine(); m != n {
		return fmt.Errorf("machine changed (%s, now %s)", m, n)
	}
	return sameBinaries(old.Build, cur.Build)
}

// sameBinaries reports how the build cur differs from old: the patch series or a toolchain.
func sameBinaries(old, cur results.Build) error {
	if old.SeriesSHA256 != cur.SeriesSHA256 {
		return fmt.Errorf("patch series changed (%s, now %s)", old.SeriesSHA256, cur.SeriesSHA256)
	}
	for i, t := range cur.Toolchains {
		if i >= len(old.Toolchains) || old.Toolchains[i] != t {
			return fmt.Errorf("toolchain of %s changed since the run started", t.Variant)
		}
	}
	return nil
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
		if _, err := matrix.ReadSpec(xbenchResults(l)); err == nil {
			*xbenchDir = xbenchResults(l)
		}
	}
	if *dir == "" {
		*dir = defaultResults(l, false)
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
	vs, err := variantsFlag(l, *variantList)
	if err != nil {
		return err
	}
	if *out == "" {
		*out = defaultResults(l, false)
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
