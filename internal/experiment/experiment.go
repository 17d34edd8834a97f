// Package experiment runs a matrix of variants × benchmark sets × rounds into a results directory,
// as timerlab bench asks: it takes the variants and sets that internal/selection chooses, opens the
// toolchains (and sweet and bent where a set
// needs them), checks that a directory being resumed was started with the same binaries on the
// same machine, records the build and the environment, runs the cells not done yet with the
// executor of each set's tool, and assembles each variant's raw file. Two modes split a matrix
// across machines: BuildOnly builds the test binaries (and has sweet and bent build theirs, which
// it stages beside them) and stops; Prebuilt runs those binaries where there are no toolchains,
// and no sweet or bent.
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
	"strings"
	"time"

	"timerlab/internal/configs"
	"timerlab/internal/gotest"
	"timerlab/internal/instr"
	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/results"
	"timerlab/internal/selection"
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
	BuildOnly bool // build the test binaries and stop
	// Packages are the packages whose benchmarks make sets of their own (resolvePackages says
	// how each is named), after those Sets names; with no Sets, the matrix runs them alone.
	Packages []string
	Bench    string // the -test.bench pattern of Packages' sets
	// EtcdRequests, with BuildOnly, is the requests of each of sweet-etcd's benchmarks in the
	// pack's runs (matrix.Spec.EtcdRequests); 0: sweet's load.
	EtcdRequests int
	Log          io.Writer // progress and warnings
}

// DefaultOut is where the matrix of sets goes unless the command names a directory: the layout's
// results directory of the mode, or, for sets of golang.org/x/benchmarks alone or of packages
// alone (with packages, timerlab bench --pkg), their own.
func DefaultOut(l lab.Layout, quick bool, sets []string, packages bool) string {
	if packages && len(sets) == 0 {
		return filepath.Join(l.Build, "results-pkg")
	}
	if s, err := selection.Sets(quick, sets); err == nil && len(s) == len(selection.XBench(s)) {
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
	only      map[string][]string // restricted variant -> the sets it runs (selection.Matrix.Only)
	// tools are sweet and bent, when a set of golang.org/x/benchmarks is selected; nil otherwise.
	tools *xbench.Tools
	// valgrind counts the instructions of a matrix of count sets (Instr); nil for one of timings.
	valgrind *instr.Valgrind
	// plans are the plans of count sets that execute records before the first cell.
	plans map[string]instr.Plan
	// gomaxprocs is the GOMAXPROCS the binaries set themselves (1 for counts); 0: the machine's.
	gomaxprocs int
	// pkgs are the sets of timerlab bench --pkg, whose packages the spec records.
	pkgs []pkgSet
	log  io.Writer
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
	if o.EtcdRequests != 0 {
		if !o.BuildOnly {
			return selection.Errorf("--etcd-requests sets the load of a pack's etcd runs: give --build-only too " +
				"(sweet's harness runs its own load)")
		}
		if err := matrix.CheckEtcdRequests(o.EtcdRequests, o.Sets); err != nil {
			return selection.Errorf("--etcd-requests %v", err)
		}
	}
	e, err := plan(ctx, l, o)
	if err != nil {
		return err
	}
	return e.run(ctx, out, e.benchSpec(o), o.Timeout)
}

// benchSpec is the matrix o asks of e's variants and sets: its rounds (6 by default, 3 quick),
// count and etcd load (checked by Bench).
func (e *experiment) benchSpec(o Options) matrix.Spec {
	rounds := o.Rounds
	if rounds == 0 {
		rounds = map[bool]int{false: 6, true: 3}[o.Quick]
	}
	spec := e.spec(rounds, o.Count)
	spec.EtcdRequests = o.EtcdRequests
	return spec
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
	all, err := l.ReadVariants()
	if err != nil {
		return err
	}
	if e.variants, err = selection.Variants(all, spec.Variants); err != nil {
		return fmt.Errorf("--prebuilt: %s/matrix.json: %v", out, err)
	}
	for _, v := range e.variants {
		info, ok := build.Toolchain(v.Name)
		if !ok || info.GODEBUG != v.Godebug {
			return fmt.Errorf("--prebuilt: variant %s runs with GODEBUG %q here, but %s/build.json records %q: "+
				"run from a checkout of the commit that built it", v.Name, v.Godebug, out, info.GODEBUG)
		}
	}
	for _, name := range spec.Sets {
		s, ok := spec.Set(name)
		if !ok {
			return fmt.Errorf("--prebuilt: %s/matrix.json: benchmark set %q unknown to this timerlab", out, name)
		}
		e.sets = append(e.sets, s)
	}
	if err := xbench.CheckStaged(out, spec.Variants, e.sets); err != nil {
		return fmt.Errorf("--prebuilt: %v", err)
	}
	return e.run(ctx, out, spec, timeout)
}

// plan chooses the matrix's variants and sets (selection.Choose), and opens the variants'
// toolchains, and sweet and bent if a set needs them.
func plan(ctx context.Context, l lab.Layout, o Options) (*experiment, error) {
	all, err := l.ReadVariants()
	if err != nil {
		return nil, err
	}
	var pkgs []pkgSet
	var extra []suite.Set
	if len(o.Packages) > 0 {
		if pkgs, err = planPackages(ctx, l, all, o); err != nil {
			return nil, err
		}
		for _, ps := range pkgs {
			extra = append(extra, ps.pkg.Set(ps.name))
		}
	}
	m, err := selection.Choose(all, selection.Request{Quick: o.Quick, Variants: o.Variants, Sets: o.Sets,
		SweepSets: o.SweepSets, Extra: extra}, orDiscard(o.Log))
	if err != nil {
		return nil, err
	}
	e := &experiment{layout: l, quick: o.Quick, buildOnly: o.BuildOnly, log: orDiscard(o.Log),
		variants: m.Variants, sets: m.Sets, only: m.Only, pkgs: pkgs}
	if xb := selection.XBench(e.sets); len(xb) > 0 && o.BuildOnly {
		if _, err := xbench.Strip(); err != nil {
			return nil, selection.Errorf("--build-only: %s: %v", strings.Join(xb, ", "), err)
		}
	}
	if e.toolchains, err = toolchain.OpenAll(l, e.variants); err != nil {
		return nil, err
	}
	if len(selection.XBench(e.sets)) > 0 {
		if e.tools, err = xbench.Open(ctx, l); err != nil {
			return nil, err
		}
		if err := e.tools.NeedEtcd(e.sets); err != nil {
			return nil, selection.Errorf("%v", err)
		}
	}
	return e, nil
}

// planPackages resolves o.Packages (resolvePackages) with the toolchains of the variants o names
// (every one of variants.conf by default) but the null floor, each toolchain once, in a temporary
// directory that it removes.
func planPackages(ctx context.Context, l lab.Layout, all []lab.Variant, o Options) ([]pkgSet, error) {
	vs, err := selection.Variants(all, o.Variants)
	if err != nil {
		return nil, err
	}
	var builders []lab.Variant
	seen := map[string]bool{}
	for _, v := range vs {
		if !v.Null() && !seen[v.Toolchain] {
			seen[v.Toolchain] = true
			builders = append(builders, v)
		}
	}
	tcs, err := toolchain.OpenAll(l, builders)
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "timerlab-pkg-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	fmt.Fprintf(orDiscard(o.Log), "timerlab: building %s with %d toolchains\n", strings.Join(o.Packages, ", "), len(tcs))
	return resolvePackages(ctx, tcs, o.Packages, o.Bench, work)
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

func (e *experiment) spec(rounds, count int) matrix.Spec {
	s := matrix.Spec{Quick: e.quick, Rounds: rounds, Count: count, ProfileCount: matrix.ProfileCount, Only: e.only}
	s.Variants = lab.Names(e.variants)
	s.Sets = selection.Names(e.sets)
	for _, ps := range e.pkgs {
		if s.Packages == nil {
			s.Packages = map[string]suite.Package{}
		}
		s.Packages[ps.name] = ps.pkg
	}
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
	if err := writeModules(out, e.pkgs); err != nil {
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
	if err := xbench.CheckStaged(out, spec.Variants, e.sets); err != nil {
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
	if len(selection.XBench(e.sets)) == 0 {
		return x
	}
	// Without the toolchains (prebuilt) there are no tools either: the cells run the binaries
	// that the build-only run staged (xbench.Executor.Stage).
	xb := &xbench.Executor{Dir: out, Tools: e.tools, Toolchains: tcs, Stage: e.buildOnly,
		Infos: map[string]toolchain.Info{}, Sets: x.Sets, Count: spec.Count, EtcdRequests: spec.EtcdRequests,
		Timeout: timeout, Log: e.log}
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
