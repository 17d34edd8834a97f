// Package experiment runs a matrix of variants × benchmark sets × rounds into a results directory,
// as timerlab bench asks: it selects the variants and sets, restricts the aliases to their sweep
// sets and the null floor to the floor sets, opens the toolchains (and sweet and bent where a set
// needs them), checks that a directory being resumed was started with the same binaries on the
// same machine, records the build and the environment, runs the cells not done yet with the
// executor of each set's tool, and assembles each variant's raw file. Two modes split a matrix across machines: BuildOnly builds the test binaries
// and stops; Prebuilt runs those binaries where there are no toolchains.
//
// Nothing here writes to a results directory before every check that can refuse it has passed.
package experiment

import (
	"context"
	"errors"
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
	"timerlab/internal/instr"
	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/results"
	"timerlab/internal/suite"
	"timerlab/internal/toolchain"
	"timerlab/internal/xbench"
)

// Options are what timerlab bench's flags select.
type Options struct {
	Quick     bool
	Variants  []string // none: every variant of variants.conf
	Sets      []string // none: the mode's sets but those that run only when named
	SweepSets []string // the sets aliases run on; none: the sets marked Sweep; "all": every set
	Rounds    int      // 0: 6, or 3 for Quick
	Count     int      // -test.count of a run cell
	Timeout   time.Duration
	BuildOnly bool      // build the test binaries and stop
	Log       io.Writer // progress and warnings
}

// DefaultOut is where the matrix of sets goes unless the command names a directory: the layout's
// results directory of the mode, or, for sets of golang.org/x/benchmarks alone, their own.
func DefaultOut(l lab.Layout, quick bool, sets []string) string {
	if s, err := selectSets(suite.Sets(quick), sets); err == nil && len(s) == len(xbenchSets(s)) {
		return l.XBenchResults()
	}
	return l.Results(quick)
}

// experiment is one matrix to run: its variants, their toolchains and its sets.
type experiment struct {
	layout     lab.Layout
	quick      bool
	variants   []lab.Variant
	toolchains []*toolchain.Toolchain // nil when prebuilt is set
	// prebuilt is the build that BuildOnly recorded, when its binaries run here without their
	// toolchains (Prebuilt).
	prebuilt  *results.Build
	buildOnly bool
	sets      []suite.Set
	only      map[string][]string // restricted variant (planRestricted) -> the sets it runs (matrix.Spec.Only)
	// tools are sweet and bent, when a set of golang.org/x/benchmarks is selected; nil otherwise.
	tools *xbench.Tools
	// valgrind counts the instructions of a matrix of count sets (Instr); nil for one of timings.
	valgrind *instr.Valgrind
	// plans are the plans of count sets that execute records before the first cell.
	plans map[string]instr.Plan
	// gomaxprocs is the GOMAXPROCS the binaries set themselves (1 for counts); 0: the machine's.
	gomaxprocs int
	log        io.Writer
}

// mode is what env.json and the raw files record of the matrix: full, quick, or instr.
func (e *experiment) mode() string {
	switch {
	case e.valgrind != nil:
		return "instr"
	case e.quick:
		return "quick"
	}
	return "full"
}

// Bench runs the cells of the matrix o selects that are not done yet in out, and assembles each
// variant's raw file; with o.BuildOnly, the build cells alone.
func Bench(ctx context.Context, l lab.Layout, o Options, out string) error {
	e, err := plan(ctx, l, o)
	if err != nil {
		return err
	}
	rounds := o.Rounds
	if rounds == 0 {
		rounds = map[bool]int{false: 6, true: 3}[o.Quick]
	}
	return e.run(ctx, out, e.spec(rounds, o.Count), o.Timeout)
}

// Prebuilt runs the matrix that BuildOnly recorded in out, with the binaries there and without
// their toolchains. The variants must still carry the GODEBUG their toolchains were described with.
func Prebuilt(ctx context.Context, l lab.Layout, out string, timeout time.Duration, log io.Writer) error {
	spec, err := matrix.ReadSpec(out)
	if err != nil {
		return fmt.Errorf("--prebuilt: %v (timerlab bench --build-only makes it where the toolchains are)", err)
	}
	build, err := results.ReadBuild(out)
	if err != nil {
		return fmt.Errorf("--prebuilt: %v (timerlab bench --build-only records it where the toolchains are)", err)
	}
	e := &experiment{layout: l, quick: spec.Quick, prebuilt: &build, only: spec.Only, log: orDiscard(log)}
	if e.variants, err = readVariants(l, spec.Variants); err != nil {
		return err
	}
	for _, v := range e.variants {
		info, ok := build.Toolchain(v.Name)
		if !ok || info.GODEBUG != v.Godebug {
			return fmt.Errorf("--prebuilt: variant %s runs with GODEBUG %q here, but %s/build.json records %q: "+
				"run from a checkout of the commit that built it", v.Name, v.Godebug, out, info.GODEBUG)
		}
	}
	if e.sets, err = selectSets(suite.Sets(spec.Quick), spec.Sets); err != nil {
		return err
	}
	if xb := xbenchSets(e.sets); len(xb) > 0 {
		return fmt.Errorf("--prebuilt: %s: sweet and bent build and run in one step, where the toolchains are",
			strings.Join(xb, ", "))
	}
	return e.run(ctx, out, spec, timeout)
}

// plan selects the matrix's variants and sets, restricts the aliases to their sweep sets and the
// null floor to the floor sets (planRestricted), and opens the variants' toolchains, and sweet and
// bent if a set needs them.
func plan(ctx context.Context, l lab.Layout, o Options) (*experiment, error) {
	vs, err := readVariants(l, o.Variants)
	if err != nil {
		return nil, err
	}
	e := &experiment{layout: l, quick: o.Quick, buildOnly: o.BuildOnly, log: orDiscard(o.Log)}
	all := suite.Sets(o.Quick)
	if e.sets, err = selectSets(all, o.Sets); err != nil {
		return nil, err
	}
	if xb := xbenchSets(e.sets); o.BuildOnly && len(xb) > 0 {
		return nil, fmt.Errorf("--build-only: %s: sweet and bent build and run in one step, where the toolchains are",
			strings.Join(xb, ", "))
	}
	sweep, err := sweepSets(all, o.SweepSets)
	if err != nil {
		return nil, err
	}
	if e.variants, e.only = planRestricted(vs, e.sets, sweep, suite.FloorSets(all), e.log); len(e.variants) == 0 {
		return nil, errors.New("no variant left to run")
	}
	if e.toolchains, err = OpenToolchains(l, e.variants); err != nil {
		return nil, err
	}
	if len(xbenchSets(e.sets)) > 0 {
		if e.tools, err = xbench.Open(ctx, l); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// readVariants returns the variants of the checkout's variants.conf that names selects, in its
// order (none: all of them).
func readVariants(l lab.Layout, names []string) ([]lab.Variant, error) {
	all, err := l.ReadVariants()
	if err != nil {
		return nil, err
	}
	return lab.Select(all, names)
}

// OpenToolchains opens the toolchain of every variant of vs, in its order; the error names every
// missing one.
func OpenToolchains(l lab.Layout, vs []lab.Variant) ([]*toolchain.Toolchain, error) {
	var tcs []*toolchain.Toolchain
	var errs []error
	for _, v := range vs {
		tc, err := toolchain.Open(l, v)
		tcs, errs = append(tcs, tc), append(errs, err)
	}
	return tcs, errors.Join(errs...)
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

// sweepSets returns the sets alias variants run on, from --sweep-sets: the sets marked Sweep when
// list is empty, every set of the mode for "all", else the sets list names.
func sweepSets(all []suite.Set, list []string) ([]string, error) {
	switch {
	case len(list) == 0:
		return suite.SweepSets(all), nil
	case len(list) == 1 && list[0] == "all":
		return setNames(all), nil
	}
	for _, n := range list {
		if _, ok := suite.Find(all, n); !ok {
			return nil, fmt.Errorf("--sweep-sets: unknown benchmark set %q (known: %s)", n, strings.Join(setNames(all), " "))
		}
	}
	return list, nil
}

// planRestricted restricts the variants that run only some sets: every alias among vs to the
// selected sets that sweep names, and the null floor (lab.Variant.Null), whose AfterFunc timers
// never fire, to the selected sets that floor names. It returns the variants that have a set left
// to run, and the restriction of each restricted one as matrix.Spec.Only wants it (nil when vs
// has none); a variant left with no set is dropped, with a line on log.
func planRestricted(vs []lab.Variant, sets []suite.Set, sweep, floor []string, log io.Writer) ([]lab.Variant, map[string][]string) {
	var kept []lab.Variant
	only := map[string][]string{}
	for _, v := range vs {
		var allowed []string
		var left string
		switch {
		case v.Null():
			allowed = floor
			left = fmt.Sprintf("%s (the null floor: its AfterFunc timers never fire)", v.Name)
		case v.IsAlias():
			allowed = sweep
			left = fmt.Sprintf("%s (an alias of %s)", v.Name, v.Toolchain)
		default:
			kept = append(kept, v)
			continue
		}
		var runs []string // the selected sets v runs
		for _, s := range sets {
			if slices.Contains(allowed, s.Name) {
				runs = append(runs, s.Name)
			}
		}
		if len(runs) == 0 {
			fmt.Fprintf(log, "timerlab: %s runs only on the sets %s, none of them selected: left out", left,
				strings.Join(allowed, ","))
			if v.IsAlias() {
				fmt.Fprint(log, " (--sweep-sets all runs it on every set)")
			}
			fmt.Fprintln(log)
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

// selectSets returns the sets named (for none, all but those that run only when named; for
// "headline", suite.HeadlineSets of the mode), checked to be runnable and to share no benchmark.
func selectSets(all []suite.Set, names []string) ([]suite.Set, error) {
	if len(names) == 0 {
		names = setNames(suite.Default(all))
	}
	var expanded []string
	for _, n := range names {
		if n != suite.HeadlineGroup {
			expanded = append(expanded, n)
			continue
		}
		for _, h := range suite.HeadlineSets {
			if _, ok := suite.Find(all, h); ok {
				expanded = append(expanded, h)
			}
		}
	}
	var out []suite.Set
	for _, n := range expanded {
		s, ok := suite.Find(all, n)
		if !ok {
			return nil, fmt.Errorf("unknown benchmark set %q (known: %s, and %s for %s)", n,
				strings.Join(setNames(all), " "), suite.HeadlineGroup, strings.Join(suite.HeadlineSets, ","))
		}
		if err := s.Validate(); err != nil {
			return nil, err
		}
		if _, dup := suite.Find(out, n); dup {
			return nil, fmt.Errorf("benchmark set %q named twice: its samples would count twice", n)
		}
		for _, o := range out {
			if e, ok := suite.Overlap(o, s); ok {
				return nil, fmt.Errorf("benchmark sets %s and %s both run Benchmark%s of %s: name one of them",
					o.Name, n, e.Bench, e.Pkg)
			}
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

func (e *experiment) spec(rounds, count int) matrix.Spec {
	s := matrix.Spec{Quick: e.quick, Rounds: rounds, Count: count, Only: e.only}
	s.Variants = lab.Names(e.variants)
	s.Sets = setNames(e.sets)
	return s
}

// prepared is a results directory checked for a matrix: what its binaries are built from, and the
// environment its runs record (fresh: none is recorded yet).
type prepared struct {
	out   string
	build results.Build
	env   results.Env
	fresh bool
}

// check runs every check that can refuse out for spec, before anything is written there: another
// matrix, binaries built otherwise, another machine, sweet and bent of another pin.
func (e *experiment) check(ctx context.Context, out string, spec matrix.Spec) (*prepared, error) {
	out, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	if _, err := matrix.CheckClaim(out, spec); err != nil {
		return nil, err
	}
	p := &prepared{out: out}
	if p.build, err = e.binaries(ctx, out); err != nil {
		return nil, err
	}
	if !e.buildOnly {
		if p.env, p.fresh, err = planEnv(out, e.mode(), e.gomaxprocs, p.build); err != nil {
			return nil, err
		}
	}
	if e.tools != nil {
		if err := xbench.Record(out, e.tools, false); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// run checks out and runs the cells of spec not done yet there (the build cells alone with
// buildOnly), then assembles each variant's raw file.
func (e *experiment) run(ctx context.Context, out string, spec matrix.Spec, timeout time.Duration) error {
	p, err := e.check(ctx, out, spec)
	if err != nil {
		return err
	}
	if err := e.execute(ctx, p, spec, timeout); err != nil {
		return err
	}
	if !e.buildOnly {
		fmt.Fprintf(e.log, "timerlab: results in %s (raw/VARIANT.txt, profiles/); next: timerlab report --results %s\n",
			p.out, p.out)
	}
	return nil
}

// execute claims the checked directory for spec, records the build and the environment, runs the
// cells not done yet (the build cells alone with buildOnly) and assembles each variant's raw file.
func (e *experiment) execute(ctx context.Context, p *prepared, spec matrix.Spec, timeout time.Duration) error {
	out := p.out
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := matrix.Claim(out, spec); err != nil {
		return err
	}
	if e.prebuilt == nil {
		if err := e.recordBuild(out, p.build); err != nil {
			return err
		}
	}
	if e.tools != nil {
		if err := xbench.Record(out, e.tools, true); err != nil {
			return err
		}
	}
	for set, plan := range e.plans {
		if err := instr.WritePlan(out, set, plan); err != nil {
			return err
		}
	}
	runner := &matrix.Runner{Dir: out, Exec: e.executor(out, spec, timeout, p.build), Progress: e.log}
	if e.buildOnly {
		return e.runBuilds(ctx, runner, spec, out)
	}
	if p.fresh {
		if err := results.WriteEnv(out, p.env); err != nil {
			return err
		}
	}
	if err := runner.Run(ctx, spec.Cells()); err != nil {
		return err
	}
	for _, v := range spec.Variants {
		if _, err := results.Assemble(out, spec, p.env, v); err != nil {
			return err
		}
	}
	return nil
}

// runBuilds runs the build cells of spec alone, and stages what the standard library's binaries
// read when they run without their toolchain.
func (e *experiment) runBuilds(ctx context.Context, runner *matrix.Runner, spec matrix.Spec, out string) error {
	var builds []matrix.Cell
	for _, c := range spec.Cells() {
		if c.Kind == matrix.Build {
			builds = append(builds, c)
		}
	}
	if err := runner.Run(ctx, builds); err != nil {
		return err
	}
	if err := gotest.StageGOROOT(out, e.toolchains[0].GOROOT); err != nil {
		return err
	}
	fmt.Fprintf(e.log, "timerlab: test binaries in %s/bin; next, where they are to run, in a checkout of the same "+
		"commit with this directory copied over: timerlab bench --prebuilt --out DIR\n", out)
	return nil
}

// executor returns what runs the cells: go test's executor, and for the sets of golang.org/x/benchmarks
// sweet and bent's, for the count sets cachegrind's, each cell going to the executor of its set.
func (e *experiment) executor(out string, spec matrix.Spec, timeout time.Duration, build results.Build) matrix.Executor {
	var tcs map[string]*toolchain.Toolchain
	if e.toolchains != nil {
		tcs = map[string]*toolchain.Toolchain{}
		for _, tc := range e.toolchains {
			tcs[tc.Variant.Name] = tc
		}
	}
	if len(spec.Counts) > 0 {
		return &instr.Executor{Dir: out, Toolchains: tcs, Counts: spec.Counts, Valgrind: e.valgrind,
			Rounds: spec.Rounds, Log: e.log}
	}
	x := &gotest.Executor{Dir: out, RepoRoot: e.layout.Root, Count: spec.Count, Timeout: timeout, Log: e.log,
		Variants: map[string]lab.Variant{}, Toolchains: tcs, Sets: map[string]suite.Set{}}
	for _, v := range e.variants {
		x.Variants[v.Name] = v
	}
	for _, s := range e.sets {
		x.Sets[s.Name] = s
	}
	if e.tools == nil {
		return x
	}
	xb := &xbench.Executor{Dir: out, Tools: e.tools, Toolchains: tcs,
		Infos: map[string]toolchain.Info{}, Sets: x.Sets, Count: spec.Count, Timeout: timeout, Log: e.log}
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
// from before build.json, per env.json); without them, what BuildOnly recorded.
func (e *experiment) binaries(ctx context.Context, out string) (results.Build, error) {
	if e.prebuilt != nil {
		return *e.prebuilt, nil
	}
	build, err := results.DescribeBuild(ctx, e.layout, e.toolchains)
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
		err = results.BuildChanged(old, build)
	}
	if err != nil {
		return build, fmt.Errorf("%s: %v: use another --out or remove it", out, err)
	}
	return build, nil
}

// recordBuild records build in out/build.json unless it is there already, with the bent and
// sweet configurations for its toolchains beside it (not for instruction counts).
func (e *experiment) recordBuild(out string, build results.Build) error {
	if _, err := results.ReadBuild(out); errors.Is(err, fs.ErrNotExist) {
		if err := results.WriteBuild(out, build); err != nil {
			return err
		}
	}
	if e.valgrind != nil {
		return nil
	}
	_, err := configs.Write(out, build.Toolchains, true)
	return err
}

// planEnv describes this machine and build for out/env.json, in mode (full, quick or instr), with
// gomaxprocs the binaries' GOMAXPROCS when they set it themselves (0: the machine's). It returns
// the environment recorded there already, if any, and fresh false; a directory whose runs were
// started with other binaries or on another machine (or at another GOMAXPROCS) is refused: its
// cells would not be comparable.
func planEnv(out, mode string, gomaxprocs int, build results.Build) (env results.Env, fresh bool, err error) {
	env = results.Machine()
	env.Mode, env.Build = mode, build
	if gomaxprocs > 0 {
		env.GOMAXPROCS = gomaxprocs
	}
	old, err := results.ReadEnv(out)
	if errors.Is(err, fs.ErrNotExist) {
		return env, true, nil
	}
	if err == nil {
		err = results.Changed(old, env)
	}
	if err != nil {
		return env, false, fmt.Errorf("%s: %v: use another --out or remove it", out, err)
	}
	return old, false, nil
}
