package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/results"
	"timerlab/internal/suite"
	"timerlab/internal/toolchain"
)

// fakeBuild returns a build directory whose toolchains for variants are symlinks to the GOROOT
// of the go command on PATH: real toolchains, so the benchmarks really run. The variant list is
// a fixed heap and upstream, whatever the checkout's variants.conf holds.
func fakeBuild(t *testing.T, variants ...string) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	build := t.TempDir()
	conf := filepath.Join(build, "variants.conf")
	os.WriteFile(conf, []byte("upstream none - - pristine\nheap all - - baseline\n"), 0o644)
	t.Setenv("TIMERLAB_VARIANTS", conf)
	for _, v := range variants {
		link := filepath.Join(build, "toolchains", v)
		os.MkdirAll(filepath.Dir(link), 0o755)
		if err := os.Symlink(strings.TrimSpace(string(out)), link); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TIMERLAB_BUILD", build)
	return build
}

// TestEndToEnd runs a one-set quick matrix with two fake toolchains, renders the report and
// verifies both; a second bench run must find every cell done.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	build := fakeBuild(t, "heap", "upstream")
	out, docs := filepath.Join(build, "results"), filepath.Join(build, "docs")
	bench := []string{"--quick", "--variants", "heap,upstream", "--sets", "std-context", "--rounds", "1", "--out", out}
	if err := benchCmd(t.Context(), bench); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"raw/heap.txt", "raw/upstream.txt", "profiles/upstream/std-context.pb.gz",
		"env.json", "bent-configs.toml", "sweet-config.toml"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if err := reportCmd(t.Context(), []string{"--results", out, "--docs", docs}); err != nil {
		t.Fatal(err)
	}
	if err := verifyCmd(t.Context(), []string{out, "--docs", docs}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(docs, "results", "cost-vs-n.svg"), []byte("<svg>"), 0o644)
	if err := verifyCmd(t.Context(), []string{"--docs", docs, out}); err == nil {
		t.Error("verify passed a truncated chart")
	}
	md, _ := os.ReadFile(filepath.Join(docs, "results.md"))
	if !strings.Contains(string(md), "`context` WithTimeout/concurrency=40") {
		t.Errorf("report lacks the WithTimeout row:\n%s", md)
	}

	// Resume: nothing left to do, so no cell's file changes.
	raw := filepath.Join(out, "runs", "heap", "std-context", "round-01.txt")
	before, _ := os.Stat(raw)
	if err := benchCmd(t.Context(), bench); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(raw); !after.ModTime().Equal(before.ModTime()) {
		t.Error("finished cell was run again")
	}
}

// TestBuildHereRunElsewhere builds a matrix's test binaries with --build-only, then runs them with
// --prebuilt after the toolchains are gone, as on a machine that has none: the runs record this
// machine and the build the first step described, and a missing binary, a missing build, matrix
// flags and a GODEBUG that differs from the build's are clear errors that leave nothing behind.
func TestBuildHereRunElsewhere(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	build := fakeBuild(t, "heap", "upstream")
	out := filepath.Join(build, "results")
	prebuilt := []string{"--prebuilt", "--out", out}
	if err := benchCmd(t.Context(), prebuilt); err == nil || !strings.Contains(err.Error(), "--build-only") {
		t.Errorf("--prebuilt with nothing built: %v, want an error pointing to --build-only", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("--prebuilt with nothing built created %s", out)
	}
	buildOnly := []string{"--build-only", "--quick", "--variants", "heap,upstream", "--sets", "std-context",
		"--rounds", "1", "--out", out}
	if err := benchCmd(t.Context(), buildOnly); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]bool{"bin/heap/std-context.test": true, "bin/upstream/std-context.test": true,
		"build.json": true, "goroot/lib/time/zoneinfo.zip": true, "env.json": false, "runs": false} {
		if _, err := os.Stat(filepath.Join(out, f)); (err == nil) != want {
			t.Errorf("after --build-only, %s exists: %v, want %v", f, err == nil, want)
		}
	}
	if err := os.RemoveAll(filepath.Join(build, "toolchains")); err != nil {
		t.Fatal(err)
	}
	if err := benchCmd(t.Context(), append(prebuilt, "--rounds", "2")); err == nil || !strings.Contains(err.Error(), "drop --rounds") {
		t.Errorf("--prebuilt --rounds 2: %v, want it refused", err)
	}
	conf := filepath.Join(build, "variants.conf")
	os.WriteFile(conf, []byte("upstream none - timerslack=1ms pristine\nheap all - - baseline\n"), 0o644)
	if err := benchCmd(t.Context(), prebuilt); err == nil || !strings.Contains(err.Error(), "GODEBUG") {
		t.Errorf("--prebuilt with another GODEBUG for upstream: %v, want it refused", err)
	}
	os.WriteFile(conf, []byte("upstream none - - pristine\nheap all - - baseline\n"), 0o644)
	bin := filepath.Join(out, "bin", "upstream", "std-context.test")
	os.Rename(bin, bin+".away")
	if err := benchCmd(t.Context(), prebuilt); err == nil || !strings.Contains(err.Error(), "is not built") {
		t.Errorf("--prebuilt with a binary missing: %v, want an error saying it is not built", err)
	}
	os.Rename(bin+".away", bin)
	if err := benchCmd(t.Context(), prebuilt); err != nil {
		t.Fatal(err)
	}
	env, err := results.ReadEnv(out)
	if err != nil {
		t.Fatal(err)
	}
	built, _ := results.ReadBuild(out)
	if !reflect.DeepEqual(env.Build, built) || len(built.Toolchains) != 2 || env.Cores == 0 {
		t.Errorf("env.json records %+v, want this machine and the build of build.json, %+v", env, built)
	}
	raw, _ := os.ReadFile(filepath.Join(out, "raw", "heap.txt"))
	if !strings.Contains(string(raw), "BenchmarkWithTimeout/concurrency=40") {
		t.Errorf("raw/heap.txt holds no WithTimeout result:\n%s", raw)
	}
}

// TestRefusedResumeWritesNothing checks that a results directory refused for another machine
// keeps its files as they were, a build.json too if it had none (as before build.json existed).
func TestRefusedResumeWritesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	build := fakeBuild(t, "heap", "upstream")
	out := filepath.Join(build, "results")
	bench := []string{"--quick", "--variants", "heap", "--sets", "std-context", "--rounds", "1", "--out", out}
	if err := benchCmd(t.Context(), bench); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(out, "build.json"))
	configs := filepath.Join(out, "bent-configs.toml")
	before, _ := os.Stat(configs)
	t.Setenv("GOMAXPROCS", "7")
	if err := benchCmd(t.Context(), bench); err == nil || !strings.Contains(err.Error(), "machine changed") {
		t.Fatalf("resume at another GOMAXPROCS: %v, want it refused", err)
	}
	if _, err := os.Stat(filepath.Join(out, "build.json")); err == nil {
		t.Error("the refused resume wrote build.json")
	}
	if after, _ := os.Stat(configs); !after.ModTime().Equal(before.ModTime()) {
		t.Error("the refused resume rewrote bent-configs.toml")
	}
}

func TestBenchMissingToolchain(t *testing.T) {
	build := fakeBuild(t, "upstream")
	err := benchCmd(t.Context(), []string{"--quick", "--variants", "heap,upstream", "--out", filepath.Join(build, "r")})
	want := filepath.Join(build, "toolchains", "heap")
	if err == nil || !strings.Contains(err.Error(), "variant heap") || !strings.Contains(err.Error(), want) {
		t.Errorf("bench with a missing toolchain: %v, want an error naming variant heap and %s", err, want)
	}
}

func TestBenchUnknownSet(t *testing.T) {
	build := fakeBuild(t, "heap", "upstream")
	err := benchCmd(t.Context(), []string{"--quick", "--sets", "nosuch", "--out", filepath.Join(build, "r")})
	if err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown set: %v", err)
	}
}

// TestAliasesRunOnSweepSetsOnly checks the rule that keeps the slack sweep cheap: alias variants
// run on the sets marked Sweep (wakeups) unless --sweep-sets says otherwise, and an alias with no
// such set selected is left out; variants with a toolchain of their own run every set.
func TestAliasesRunOnSweepSetsOnly(t *testing.T) {
	vs := []lab.Variant{{Name: "heap", Toolchain: "heap"}, {Name: "slack", Toolchain: "slack"},
		{Name: "slack-1ms", Toolchain: "slack"}}
	full := suite.Sets(false)
	spec := func(sets []suite.Set, sweepList string) (matrix.Spec, string) {
		t.Helper()
		sweep, err := sweepSets(full, sweepList)
		if err != nil {
			t.Fatal(err)
		}
		var log strings.Builder
		kept, only := planAliases(vs, sets, sweep, &log)
		b := &bench{sets: sets, only: only, variants: kept}
		return b.spec(6, 1), log.String()
	}
	s, _ := spec(full, "")
	if !reflect.DeepEqual(s.Only, map[string][]string{"slack-1ms": {"wakeups"}}) {
		t.Errorf("default Only = %v, want slack-1ms on wakeups alone", s.Only)
	}
	perSet := map[string]int{}
	for _, c := range s.Cells() {
		if c.Kind == matrix.Run && c.Variant == "slack-1ms" {
			perSet[c.Set]++
		}
	}
	if !reflect.DeepEqual(perSet, map[string]int{"wakeups": 6}) {
		t.Errorf("slack-1ms run cells per set %v, want 6 rounds of wakeups", perSet)
	}
	timers, _ := suite.Find(full, "timers")
	s, log := spec([]suite.Set{timers}, "")
	if !slices.Equal(s.Variants, []string{"heap", "slack"}) || s.Only != nil ||
		!strings.Contains(log, "slack-1ms (an alias of slack) runs only on the sets wakeups, none of them selected") {
		t.Errorf("timers alone: variants %v, Only %v, log %q; want slack-1ms left out, said so", s.Variants, s.Only, log)
	}
	if s, _ := spec(full, "all"); !slices.Equal(s.Only["slack-1ms"], s.Sets) || len(s.Variants) != 3 {
		t.Errorf("--sweep-sets all: variants %v, Only %v; want every variant on every set", s.Variants, s.Only)
	}
	if s, _ := spec(full, "timers,wakeups"); !reflect.DeepEqual(s.Only["slack-1ms"], []string{"timers", "wakeups"}) {
		t.Errorf("--sweep-sets timers,wakeups: Only %v", s.Only)
	}
	if _, err := sweepSets(full, "nosuch"); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("--sweep-sets nosuch: %v", err)
	}
}

// TestSelectSetsRejectsDuplicates checks that a set named twice is refused: each of its rounds
// would be counted twice, narrowing the intervals and the p-values.
func TestSelectSetsRejectsDuplicates(t *testing.T) {
	all := suite.Sets(true)
	if _, err := selectSets(all, []string{"timers", "deadline"}); err != nil {
		t.Fatal(err)
	}
	if _, err := selectSets(all, []string{"timers", "deadline", "timers"}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("selectSets with timers twice: %v", err)
	}
}

// TestSameBuild checks what a resumed run must share with the run that started its directory: the
// machine (GOMAXPROCS included), the patch series and every toolchain.
func TestSameBuild(t *testing.T) {
	old := results.Env{CPUModel: "AMD EPYC", Kernel: "Linux 6.1", Cores: 2, GOMAXPROCS: 2, Build: results.Build{SeriesSHA256: "abc",
		Toolchains: []toolchain.Info{{Variant: "heap", Version: "go version go1.27.4-timerlab.heap linux/amd64"}}}}
	if err := sameBuild(old, old); err != nil {
		t.Errorf("the same build: %v", err)
	}
	for what, change := range map[string]func(*results.Env){
		"machine":    func(e *results.Env) { e.CPUModel = "Intel Xeon" },
		"GOMAXPROCS": func(e *results.Env) { e.GOMAXPROCS = 4 },
		"series":     func(e *results.Env) { e.SeriesSHA256 = "def" },
		"toolchain":  func(e *results.Env) { e.Toolchains = []toolchain.Info{{Variant: "heap", Version: "other"}} },
	} {
		cur := old
		change(&cur)
		if err := sameBuild(old, cur); err == nil || !strings.Contains(err.Error(), what) {
			t.Errorf("%s changed: %v, want an error naming it", what, err)
		}
	}
}

// TestXBenchSetsNeedTools checks that the sets of golang.org/x/benchmarks run only when named, and
// that naming one without sweet and bent installed gets one line saying how to install them,
// before anything is written; --build-only and --prebuilt refuse them (sweet and bent build and
// run in one step).
func TestXBenchSetsNeedTools(t *testing.T) {
	sets, err := selectSets(suite.Sets(false), nil)
	if err != nil {
		t.Fatal(err)
	}
	if xb := xbenchSets(sets); len(xb) > 0 {
		t.Errorf("the default sets hold %v", xb)
	}
	build := fakeBuild(t, "heap", "upstream")
	out := filepath.Join(build, "results")
	err = benchCmd(t.Context(), []string{"--variants", "heap,upstream", "--sets", "std-context,sweet-etcd", "--out", out})
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "timerlab xbench") {
		t.Errorf("sweet-etcd without sweet: %v, want one line pointing to timerlab xbench", err)
	}
	err = benchCmd(t.Context(), []string{"--build-only", "--sets", "bent", "--out", out})
	if err == nil || !strings.Contains(err.Error(), "--build-only: bent") {
		t.Errorf("--build-only --sets bent: %v, want it refused", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("refused runs created %s", out)
	}
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "matrix.json"), []byte(`{"variants": ["heap"], "sets": ["sweet-etcd"], "rounds": 1, "count": 1}`), 0o644)
	os.WriteFile(filepath.Join(out, "build.json"), []byte(`{"toolchains": [{"Variant": "heap"}]}`), 0o644)
	err = benchCmd(t.Context(), []string{"--prebuilt", "--out", out})
	if err == nil || !strings.Contains(err.Error(), "--prebuilt: sweet-etcd") {
		t.Errorf("--prebuilt of a matrix with sweet-etcd: %v, want it refused", err)
	}
}
