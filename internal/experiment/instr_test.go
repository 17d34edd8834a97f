package experiment

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"timerlab/internal/labtest"
	"timerlab/internal/results"
	"timerlab/internal/suite"
	"timerlab/internal/verify"
)

// fakeValgrind is a stand-in for valgrind: it runs the test binary it is given natively and
// writes a cachegrind out file counting 5000000 + PEROP * N instructions for -test.benchtime=Nx,
// PEROP 1000 with the heap toolchain and 1010 with any other; it fails unless it was asked for
// cachegrind without cache simulation and runs in the counting environment.
const fakeValgrind = `#!/bin/sh
[ "$1" = --version ] && { echo valgrind-fake; exit 0; }
[ "$1 $2" = "--tool=cachegrind --cache-sim=no" ] || { echo "fake valgrind: bad options $*" >&2; exit 2; }
[ "$GOGC $GOMAXPROCS" = "off 1" ] || { echo "fake valgrind: GOGC=$GOGC GOMAXPROCS=$GOMAXPROCS" >&2; exit 2; }
out=${3#--cachegrind-out-file=}
shift 3
for a; do case $a in -test.benchtime=*x) n=${a#-test.benchtime=}; n=${n%x} ;; esac; done
"$@" || exit
case $GOROOT in */heap) per=1000 ;; *) per=1010 ;; esac
printf 'events: Ir\nsummary: %d\n' $((5000000 + per * n)) >"$out"
`

func writeFakeValgrind(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "valgrind")
	if err := os.WriteFile(path, []byte(fakeValgrind), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// instrOptions are the options of a test's instr run, with the fake valgrind.
func instrOptions(t *testing.T, variants ...string) InstrOptions {
	return InstrOptions{Variants: variants, Pkg: "time", Bench: "^BenchmarkReset$",
		Rounds: 6, N: 50, Valgrind: writeFakeValgrind(t)}
}

// TestInstr runs timerlab instr's matrix on two fake toolchains with a fake valgrind: the real time
// test binaries are built and run, a benchmark with sub-benchmarks is measured per sub-benchmark,
// in rounds that start each at the next variant; the
// 1% difference the fake counts is reported as significant, and the results directory records the
// environment and resumes as any matrix.
func TestInstr(t *testing.T) {
	build := labtest.FakeBuild(t, "heap", "upstream")
	out := filepath.Join(build, "results-instr")
	var log, report strings.Builder
	o := instrOptions(t, "heap", "upstream")
	o.Log, o.Report = &log, &report
	if err := Instr(t.Context(), checkout(t), o, out); err != nil {
		t.Fatal(err)
	}
	heap, err := os.ReadFile(filepath.Join(out, "raw", "heap.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"variant: heap\n", "mode: instr\n", "pkg: time\n", "gomaxprocs: 1\n",
		"counting-env: GOMAXPROCS=1 GOGC=off", "BenchmarkReset/impl=chan 50 1000.00 instr/op\n",
		"BenchmarkReset/impl=func 50 1000.00 instr/op\n"} {
		if !strings.Contains(string(heap), want) {
			t.Errorf("raw/heap.txt lacks %q:\n%s", want, heap)
		}
	}
	if n := strings.Count(string(heap), "BenchmarkReset/impl=func 50 "); n != 6 {
		t.Errorf("raw/heap.txt has %d results of Reset/impl=func, want one per round (6)", n)
	}
	md, err := os.ReadFile(filepath.Join(out, "instr.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "| Reset/impl=func | instr/op | 1.000k ± 0% | 1.010k ± 0% +1.0% (p=0.002) |"
	if !strings.Contains(string(md), want) || !strings.Contains(string(md), "| benchmark | unit | heap | upstream |") {
		t.Errorf("instr.md lacks %q:\n%s", want, md)
	}
	if report.String() != string(md) {
		t.Errorf("printed %q, want instr.md", report.String())
	}
	if err := verify.Results(out); err != nil {
		t.Errorf("verify: %v", err)
	}
	if env, err := results.ReadEnv(out); err != nil || env.Mode != "instr" || env.GOMAXPROCS != 1 || len(env.Toolchains) != 2 {
		t.Errorf("env.json: %+v, %v; want mode instr at GOMAXPROCS 1 with two toolchains", env, err)
	}
	for _, f := range []string{"bent-configs.toml", "profiles"} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("a matrix of counts has %s", f)
		}
	}
	// Round 2 starts with upstream: each round starts one variant further on.
	var order []string
	for _, line := range strings.Split(log.String(), "\n") {
		if strings.HasPrefix(line, "timerlab instr: round 2/6 ") {
			order = append(order, strings.Fields(line)[4])
		}
	}
	if !slices.Equal(order, []string{"upstream", "upstream", "heap", "heap"}) {
		t.Errorf("round 2 measured %v, want upstream's two benchmarks first", order)
	}

	// Resume: every cell is done, nothing is measured again and instr.md is the same.
	round := filepath.Join(out, "runs", "heap", CountSet("pkg-time"), "round-01.txt")
	before, _ := os.Stat(round)
	o.Log, o.Report = nil, nil
	if err := Instr(t.Context(), checkout(t), o, out); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(round); !after.ModTime().Equal(before.ModTime()) {
		t.Error("a finished round was counted again")
	}
	if again, _ := os.ReadFile(filepath.Join(out, "instr.md")); string(again) != string(md) {
		t.Errorf("instr.md after the resume:\n%s\nwant:\n%s", again, md)
	}
	o.N = 100
	if err := Instr(t.Context(), checkout(t), o, out); err == nil || !strings.Contains(err.Error(), "holds another matrix") {
		t.Errorf("resume with another --n: %v, want it refused", err)
	}
}

// TestInstrErrors checks the errors that stop timerlab instr before it writes anything.
func TestInstrErrors(t *testing.T) {
	build := labtest.FakeBuild(t, "upstream")
	vg := writeFakeValgrind(t)
	out := filepath.Join(build, "r")
	for _, c := range []struct {
		change func(*InstrOptions)
		want   string
	}{
		{func(o *InstrOptions) { o.Valgrind = filepath.Join(build, "nosuch") }, "install it with scripts/install-deps.sh"},
		{func(o *InstrOptions) { o.Variants = []string{"heap", "upstream"} }, "no toolchain of heap in " + filepath.Join(build, "toolchains")},
		{func(o *InstrOptions) { o.Bench = "BenchmarkNoSuch" }, "no benchmark matches --bench BenchmarkNoSuch"},
		{func(o *InstrOptions) { o.Pkg = "no/such" }, "--pkg no/such: no such package in the standard library"},
	} {
		o := InstrOptions{Variants: []string{"upstream"}, Pkg: "time", Bench: "^BenchmarkReset$", Rounds: 1,
			N: 2, Valgrind: vg}
		c.change(&o)
		if err := Instr(t.Context(), checkout(t), o, out); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("instr %+v: %v, want an error containing %q", o, err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("instr %+v wrote %s", o, out)
		}
	}
}

// TestInstrPackages counts the benchmarks of a local module's package, as bench --pkg takes it,
// with the fake valgrind.
func TestInstrPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	build := labtest.FakeBuild(t, "heap", "upstream")
	local := t.TempDir()
	writeModule(t, local, "example.com/mine", "mine", false)
	out := filepath.Join(build, "results-instr-local")
	o := instrOptions(t, "heap", "upstream")
	o.Pkg, o.Bench, o.Rounds = local, "StopTimer", 1
	if err := Instr(t.Context(), checkout(t), o, out); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(out, "raw", "upstream.txt"))
	if !strings.Contains(string(raw), "BenchmarkStopTimer 50 1010.00 instr/op") || strings.Contains(string(raw), "Unselected") {
		t.Errorf("instr --pkg %s: raw/upstream.txt:\n%s", local, raw)
	}

	// A module's package at a version is counted from a copy of the module, recorded beside the
	// go.mod that requires it: go refuses the ballast's overlay beneath the module cache.
	fakeProxy(t)
	out = filepath.Join(build, "results-instr-dep")
	o.Pkg = "example.com/dep@v1.0.0"
	if err := Instr(t.Context(), checkout(t), o, out); err != nil {
		t.Fatal(err)
	}
	raw, _ = os.ReadFile(filepath.Join(out, "raw", "upstream.txt"))
	if !strings.Contains(string(raw), "BenchmarkStopTimer 50 1010.00 instr/op") {
		t.Errorf("instr --pkg %s: raw/upstream.txt:\n%s", o.Pkg, raw)
	}
	mod := filepath.Join(out, suite.ModuleDirOf(CountSet(suite.PackageSetName(o.Pkg))))
	if goMod, err := os.ReadFile(filepath.Join(mod, "go.mod")); err != nil ||
		!strings.Contains(string(goMod), "replace example.com/dep => ./mod") {
		t.Errorf("the count's go.mod: %v\n%s\nwant the module replaced by its copy", err, goMod)
	}
	if _, err := os.Stat(filepath.Join(mod, "mod", "dep_test.go")); err != nil {
		t.Errorf("the module's copy: %v", err)
	}
	if err := verify.Results(out); err != nil {
		t.Errorf("verify: %v", err)
	}
}
