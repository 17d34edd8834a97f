package experiment

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"timerlab/internal/lab"
	"timerlab/internal/labtest"
	"timerlab/internal/results"
	"timerlab/internal/suite"
	"timerlab/internal/xbench"
)

// quick is the one-set quick matrix the tests run: context's WithTimeout, one round.
func quick(variants ...string) Options {
	return Options{Quick: true, Variants: variants, Sets: []string{"std-context"}, Rounds: 1, Count: 1,
		Timeout: 5 * time.Minute}
}

// checkout is the layout of this checkout, with the TIMERLAB_* settings labtest.FakeBuild made.
func checkout(t *testing.T) lab.Layout {
	t.Helper()
	root, err := lab.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	return lab.NewLayout(root)
}

// TestResume runs a one-set quick matrix with two fake toolchains; a second run of the same matrix
// must find every cell done and run none again.
func TestResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	build := labtest.FakeBuild(t, "heap", "upstream")
	out := filepath.Join(build, "results")
	if err := Bench(t.Context(), checkout(t), quick("heap", "upstream"), out); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"raw/heap.txt", "raw/upstream.txt", "profiles/upstream/std-context.pb.gz",
		"env.json", "build.json", "bent-configs.toml", "sweet-config.toml"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	raw := filepath.Join(out, "runs", "heap", "std-context", "round-01.txt")
	before, _ := os.Stat(raw)
	if err := Bench(t.Context(), checkout(t), quick("heap", "upstream"), out); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(raw); !after.ModTime().Equal(before.ModTime()) {
		t.Error("finished cell was run again")
	}
}

// TestBuildHereRunElsewhere builds a matrix's test binaries with BuildOnly, then runs them with
// Prebuilt after the toolchains are gone, as on a machine that has none: the runs record this
// machine and the build the first step described, and a missing binary, a missing build and a
// GODEBUG that differs from the build's are clear errors that leave nothing behind.
func TestBuildHereRunElsewhere(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	build := labtest.FakeBuild(t, "heap", "upstream")
	l, out := checkout(t), filepath.Join(build, "results")
	prebuilt := func() error { return Prebuilt(t.Context(), l, out, 5*time.Minute, nil) }
	if err := prebuilt(); err == nil || !strings.Contains(err.Error(), "--build-only") {
		t.Errorf("Prebuilt with nothing built: %v, want an error pointing to --build-only", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("Prebuilt with nothing built created %s", out)
	}
	o := quick("heap", "upstream")
	o.BuildOnly = true
	if err := Bench(t.Context(), l, o, out); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]bool{"bin/heap/std-context.test": true, "bin/upstream/std-context.test": true,
		"build.json": true, "goroot/lib/time/zoneinfo.zip": true, "env.json": false, "runs": false} {
		if _, err := os.Stat(filepath.Join(out, f)); (err == nil) != want {
			t.Errorf("after BuildOnly, %s exists: %v, want %v", f, err == nil, want)
		}
	}
	if err := os.RemoveAll(filepath.Join(build, "toolchains")); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(build, "variants.conf")
	os.WriteFile(conf, []byte("upstream none - timerslack=1ms pristine\nheap all - - baseline\n"), 0o644)
	if err := prebuilt(); err == nil || !strings.Contains(err.Error(), "GODEBUG") {
		t.Errorf("Prebuilt with another GODEBUG for upstream: %v, want it refused", err)
	}
	os.WriteFile(conf, []byte("upstream none - - pristine\nheap all - - baseline\n"), 0o644)
	bin := filepath.Join(out, "bin", "upstream", "std-context.test")
	os.Rename(bin, bin+".away")
	if err := prebuilt(); err == nil || !strings.Contains(err.Error(), "is not built") {
		t.Errorf("Prebuilt with a binary missing: %v, want an error saying it is not built", err)
	}
	os.Rename(bin+".away", bin)
	if err := prebuilt(); err != nil {
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
	build := labtest.FakeBuild(t, "heap", "upstream")
	out := filepath.Join(build, "results")
	if err := Bench(t.Context(), checkout(t), quick("heap"), out); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(out, "build.json"))
	configs := filepath.Join(out, "bent-configs.toml")
	before, _ := os.Stat(configs)
	t.Setenv("GOMAXPROCS", "7")
	if err := Bench(t.Context(), checkout(t), quick("heap"), out); err == nil || !strings.Contains(err.Error(), "machine changed") {
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
	build := labtest.FakeBuild(t, "upstream")
	err := Bench(t.Context(), checkout(t), Options{Quick: true, Variants: []string{"heap", "upstream"}}, filepath.Join(build, "r"))
	want := "no toolchain of heap in " + filepath.Join(build, "toolchains") + ": build it with `scripts/build-toolchain.sh heap`"
	if err == nil || err.Error() != want {
		t.Errorf("bench with a missing toolchain: %v, want %q", err, want)
	}
}

func TestBenchUnknownSet(t *testing.T) {
	build := labtest.FakeBuild(t, "heap", "upstream")
	err := Bench(t.Context(), checkout(t), Options{Quick: true, Sets: []string{"nosuch"}}, filepath.Join(build, "r"))
	if err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown set: %v", err)
	}
}

// TestDefaultOut checks where a matrix goes unless told: the results of its mode, results-xbench
// for the sets of golang.org/x/benchmarks alone, results-pkg for packages' sets alone.
func TestDefaultOut(t *testing.T) {
	l := lab.Layout{Build: "/b"}
	for _, tc := range []struct {
		quick bool
		sets  []string
		pkgs  bool
		want  string
	}{
		{false, nil, false, "/b/results"},
		{true, nil, false, "/b/results-quick"},
		{false, []string{"sweet-etcd", "bent"}, false, "/b/results-xbench"},
		{false, []string{"sweet-etcd", "timers"}, false, "/b/results"},
		{false, nil, true, "/b/results-pkg"},
		{false, []string{"timers"}, true, "/b/results"},
	} {
		if got := DefaultOut(l, tc.quick, tc.sets, tc.pkgs); got != tc.want {
			t.Errorf("DefaultOut(quick %v, %v, packages %v) = %s, want %s", tc.quick, tc.sets, tc.pkgs, got, tc.want)
		}
	}
}

// TestXBenchSetsNeedTools checks that naming a set of golang.org/x/benchmarks without sweet and bent
// installed gets one line saying how to install them, before anything is written, BuildOnly
// too (the tools build its binaries); and that Prebuilt, which needs no tools, refuses a matrix
// whose binaries were not built there in one line that says how to build them.
func TestXBenchSetsNeedTools(t *testing.T) {
	build := labtest.FakeBuild(t, "heap", "upstream")
	l, out := checkout(t), filepath.Join(build, "results")
	err := Bench(t.Context(), l, Options{Variants: []string{"heap", "upstream"}, Sets: []string{"std-context", "sweet-etcd"}}, out)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "timerlab xbench") {
		t.Errorf("sweet-etcd without sweet: %v, want one line pointing to timerlab xbench", err)
	}
	err = Bench(t.Context(), l, Options{BuildOnly: true, Variants: []string{"heap"}, Sets: []string{"bent"}}, out)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "timerlab xbench") {
		t.Errorf("BuildOnly of bent without bent: %v, want one line pointing to timerlab xbench", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("refused runs created %s", out)
	}
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "matrix.json"), []byte(`{"quick": false, "variants": ["heap"], "sets": ["sweet-etcd"], "rounds": 1, "count": 1}`), 0o644)
	os.WriteFile(filepath.Join(out, "build.json"), []byte(`{"toolchains": [{"Variant": "heap"}]}`), 0o644)
	err = Prebuilt(t.Context(), l, out, time.Minute, nil)
	if _, statErr := os.Stat(filepath.Join(out, "env.json")); statErr == nil {
		t.Error("the refused prebuilt run wrote env.json")
	}
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "--prebuilt: no binaries staged for heap sweet-etcd") ||
		!strings.Contains(err.Error(), "--build-only") {
		t.Errorf("Prebuilt of a matrix with sweet-etcd not built: %v, want one line pointing to --build-only", err)
	}
}

// TestEtcdRequests follows a pack's etcd load from the options to the executor of its cells: Bench
// refuses it without BuildOnly, below a request per client or where no sweet-etcd runs, before
// anything is written; the matrix records it; the executor of sweet's cells gets it from the
// matrix, as a prebuilt run reads it there.
func TestEtcdRequests(t *testing.T) {
	build := labtest.FakeBuild(t, "heap")
	out := filepath.Join(build, "results")
	err := Bench(t.Context(), checkout(t), Options{Variants: []string{"heap"}, Sets: []string{"sweet-etcd"}, EtcdRequests: 5000}, out)
	if err == nil || !strings.Contains(err.Error(), "give --build-only too") {
		t.Errorf("an etcd load without BuildOnly: %v, want it refused", err)
	}
	for _, tc := range []struct {
		sets []string
		n    int
		want string
	}{
		{[]string{"timers"}, 5000, "--etcd-requests 5000: the matrix runs no sweet-etcd"},
		{[]string{"sweet-etcd"}, 999, "--etcd-requests 999: want 1000 or more"},
	} {
		err := Bench(t.Context(), checkout(t), Options{BuildOnly: true, Variants: []string{"heap"}, Sets: tc.sets, EtcdRequests: tc.n}, out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d etcd requests of %v: %v, want %q", tc.n, tc.sets, err, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the refused runs created %s", out)
	}
	etcd, _ := suite.Find(suite.Sets(false), "sweet-etcd")
	e := &experiment{variants: []lab.Variant{{Name: "heap"}}, sets: []suite.Set{etcd}}
	spec := e.benchSpec(Options{BuildOnly: true, Count: 1, EtcdRequests: 5000})
	if spec.EtcdRequests != 5000 || spec.Rounds != 6 {
		t.Errorf("the matrix of a pack with 5000 etcd requests: %+v", spec)
	}
	x, ok := e.executor(out, spec, time.Minute, results.Build{}).(byTool)
	if xb, _ := x.xbench.(*xbench.Executor); !ok || xb == nil || xb.EtcdRequests != 5000 {
		t.Errorf("the executor of sweet's cells: %#v, want one with 5000 etcd requests", x.xbench)
	}
}
