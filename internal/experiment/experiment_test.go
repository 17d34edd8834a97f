package experiment

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"timerlab/internal/lab"
	"timerlab/internal/labtest"
	"timerlab/internal/matrix"
	"timerlab/internal/results"
	"timerlab/internal/suite"
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
	want := filepath.Join(build, "toolchains", "heap")
	if err == nil || !strings.Contains(err.Error(), "variant heap") || !strings.Contains(err.Error(), want) {
		t.Errorf("bench with a missing toolchain: %v, want an error naming variant heap and %s", err, want)
	}
}

func TestBenchUnknownSet(t *testing.T) {
	build := labtest.FakeBuild(t, "heap", "upstream")
	err := Bench(t.Context(), checkout(t), Options{Quick: true, Sets: []string{"nosuch"}}, filepath.Join(build, "r"))
	if err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown set: %v", err)
	}
}

// TestRestrictedVariants checks the rules that keep the slack sweep cheap and the null floor
// runnable: alias variants run on the sets marked Sweep (wakeups) unless --sweep-sets says
// otherwise, the null floor on the sets marked Floor (floor) whatever --sweep-sets says, and a
// restricted variant with no such set selected is left out; variants with a toolchain of their own
// run every set.
func TestRestrictedVariants(t *testing.T) {
	vs := []lab.Variant{{Name: "heap", Toolchain: "heap"}, {Name: "slack", Toolchain: "slack"},
		{Name: "slack-1ms", Toolchain: "slack"}, {Name: "null", Toolchain: "null", Goexp: lab.NullExperiment}}
	full := suite.Sets(false)
	spec := func(sets []suite.Set, sweepList ...string) (matrix.Spec, string) {
		t.Helper()
		sweep, err := sweepSets(full, sweepList)
		if err != nil {
			t.Fatal(err)
		}
		var log strings.Builder
		kept, only := planRestricted(vs, sets, sweep, suite.FloorSets(full), &log)
		e := &experiment{sets: sets, only: only, variants: kept}
		return e.spec(6, 1), log.String()
	}
	s, _ := spec(full)
	if !reflect.DeepEqual(s.Only, map[string][]string{"slack-1ms": {"wakeups"}, "null": {"floor"}}) {
		t.Errorf("default Only = %v, want slack-1ms on wakeups alone, null on floor alone", s.Only)
	}
	perSet := map[string]map[string]int{"slack-1ms": {}, "null": {}, "heap": {}}
	for _, c := range s.Cells() {
		if c.Kind == matrix.Run && perSet[c.Variant] != nil {
			perSet[c.Variant][c.Set]++
		}
	}
	if !reflect.DeepEqual(perSet["slack-1ms"], map[string]int{"wakeups": 6}) ||
		!reflect.DeepEqual(perSet["null"], map[string]int{"floor": 6}) || perSet["heap"]["floor"] != 6 ||
		len(perSet["heap"]) != len(full) {
		t.Errorf("run cells per variant and set %v, want 6 rounds of wakeups for slack-1ms, of floor for null, "+
			"of every set for heap", perSet)
	}
	timers, _ := suite.Find(full, "timers")
	s, log := spec([]suite.Set{timers})
	if !slices.Equal(s.Variants, []string{"heap", "slack"}) || s.Only != nil ||
		!strings.Contains(log, "slack-1ms (an alias of slack) runs only on the sets wakeups, none of them selected") ||
		!strings.Contains(log, "null (the null floor: its AfterFunc timers never fire) runs only on the sets floor, none") {
		t.Errorf("timers alone: variants %v, Only %v, log %q; want slack-1ms and null left out, said so", s.Variants, s.Only, log)
	}
	if s, _ := spec(full, "all"); !slices.Equal(s.Only["slack-1ms"], s.Sets) || !slices.Equal(s.Only["null"], []string{"floor"}) ||
		len(s.Variants) != 4 {
		t.Errorf("--sweep-sets all: variants %v, Only %v; want every variant on every set, but null on floor", s.Variants, s.Only)
	}
	if s, _ := spec(full, "timers", "wakeups"); !reflect.DeepEqual(s.Only["slack-1ms"], []string{"timers", "wakeups"}) {
		t.Errorf("--sweep-sets timers,wakeups: Only %v", s.Only)
	}
	if _, err := sweepSets(full, []string{"nosuch"}); err == nil || !strings.Contains(err.Error(), "nosuch") {
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

// TestHeadlineSets checks the group "headline": the sets of the first answer, std-time's operations
// where the full matrix's std-time would be, and in the quick matrix, which has no such set, the
// others; and that a set sharing benchmarks with another is refused beside it.
func TestHeadlineSets(t *testing.T) {
	sets, err := selectSets(suite.Sets(false), []string{"headline"})
	if err != nil {
		t.Fatal(err)
	}
	if got := setNames(sets); !slices.Equal(got, []string{"std-time-ops", "timers", "deadline", "wakeups"}) {
		t.Errorf("headline sets %v", got)
	}
	if sets, err := selectSets(suite.Sets(true), []string{"headline"}); err != nil ||
		!slices.Equal(setNames(sets), []string{"timers", "deadline", "wakeups"}) {
		t.Errorf("quick headline sets %v, %v", setNames(sets), err)
	}
	for _, def := range suite.Default(suite.Sets(false)) {
		if def.Name == "std-time-ops" || def.Name == "std-time-latency" {
			t.Errorf("%s runs by default beside std-time", def.Name)
		}
	}
	_, err = selectSets(suite.Sets(false), []string{"std-time-latency", "std-time"})
	if err == nil || !strings.Contains(err.Error(), "both run BenchmarkParallelTimerLatency of time") {
		t.Errorf("std-time with std-time-latency: %v", err)
	}
	if sets, err := selectSets(suite.Sets(false), []string{"std-time-ops", "std-time-latency"}); err != nil ||
		!slices.Equal(sets[1].Expect, []string{"ParallelTimerLatency", "StaggeredTickerLatency"}) {
		t.Errorf("std-time-ops with std-time-latency: %v", err)
	}
	_, err = selectSets(suite.Sets(false), []string{"std-time", "std-time-ops"})
	if err == nil || !strings.Contains(err.Error(), "std-time and std-time-ops both run BenchmarkStop of time") {
		t.Errorf("std-time with std-time-ops: %v", err)
	}
}

// TestDefaultOut checks where a matrix goes unless told: the results of its mode, or results-xbench
// for the sets of golang.org/x/benchmarks alone.
func TestDefaultOut(t *testing.T) {
	l := lab.Layout{Build: "/b"}
	for _, tc := range []struct {
		quick bool
		sets  []string
		want  string
	}{
		{false, nil, "/b/results"},
		{true, nil, "/b/results-quick"},
		{false, []string{"sweet-etcd", "bent"}, "/b/results-xbench"},
		{false, []string{"sweet-etcd", "timers"}, "/b/results"},
	} {
		if got := DefaultOut(l, tc.quick, tc.sets); got != tc.want {
			t.Errorf("DefaultOut(quick %v, %v) = %s, want %s", tc.quick, tc.sets, got, tc.want)
		}
	}
}

// TestXBenchSetsNeedTools checks that the sets of golang.org/x/benchmarks run only when named, and
// that naming one without sweet and bent installed gets one line saying how to install them,
// before anything is written; BuildOnly and Prebuilt refuse them (sweet and bent build and run in
// one step).
func TestXBenchSetsNeedTools(t *testing.T) {
	sets, err := selectSets(suite.Sets(false), nil)
	if err != nil {
		t.Fatal(err)
	}
	if xb := xbenchSets(sets); len(xb) > 0 {
		t.Errorf("the default sets hold %v", xb)
	}
	build := labtest.FakeBuild(t, "heap", "upstream")
	l, out := checkout(t), filepath.Join(build, "results")
	err = Bench(t.Context(), l, Options{Variants: []string{"heap", "upstream"}, Sets: []string{"std-context", "sweet-etcd"}}, out)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "timerlab xbench") {
		t.Errorf("sweet-etcd without sweet: %v, want one line pointing to timerlab xbench", err)
	}
	err = Bench(t.Context(), l, Options{BuildOnly: true, Sets: []string{"bent"}}, out)
	if err == nil || !strings.Contains(err.Error(), "--build-only: bent") {
		t.Errorf("BuildOnly of bent: %v, want it refused", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("refused runs created %s", out)
	}
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "matrix.json"), []byte(`{"variants": ["heap"], "sets": ["sweet-etcd"], "rounds": 1, "count": 1}`), 0o644)
	os.WriteFile(filepath.Join(out, "build.json"), []byte(`{"toolchains": [{"Variant": "heap"}]}`), 0o644)
	err = Prebuilt(t.Context(), l, out, time.Minute, nil)
	if err == nil || !strings.Contains(err.Error(), "--prebuilt: sweet-etcd") {
		t.Errorf("Prebuilt of a matrix with sweet-etcd: %v, want it refused", err)
	}
}
