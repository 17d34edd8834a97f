package xbench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"timerlab/internal/matrix"
	"timerlab/internal/suite"
	"timerlab/internal/toolchain"
)

// TestMain makes the test binary a fake benchmark driver when XBENCH_FAKE_DRIVER is set: fakeDriver.
func TestMain(m *testing.M) {
	if os.Getenv("XBENCH_FAKE_DRIVER") != "" {
		os.Exit(fakeDriver(filepath.Base(os.Args[0]), os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeDriver stands in for the binaries a pack runs, by name: sweet's drivers (etcd-bench,
// gopher-lua-bench, markdown-bench) and bent's test binaries (SUITE.test). It checks that each
// path it is given exists, as the real ones would read or write it, prints one result of the
// benchmark it was asked for, writes $FAKE_PROFILE where it is asked for a CPU profile, and
// lives long enough for an envWatch to see it.
func fakeDriver(name string, args []string) int {
	if os.Getenv("FAKE_CHILD") != "" { // a server the driver started, once its driver was seen
		time.Sleep(3 * watchSlowPeriod)
		return 0
	}
	if godebug := os.Getenv("FAKE_CHILD_GODEBUG"); godebug != "" {
		// A driver that starts its servers with a GODEBUG of its own.
		self, _ := os.Executable()
		child := exec.Command(self)
		child.Env = append(os.Environ(), "FAKE_CHILD=1")
		child.Env = append(slices.DeleteFunc(child.Env, func(kv string) bool { return strings.HasPrefix(kv, "GODEBUG=") }), "GODEBUG="+godebug)
		if err := child.Run(); err != nil {
			return 1
		}
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "fake %s: "+format+"\n", append([]any{name}, a...)...)
		return 1
	}
	flags := map[string]string{}
	var positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-cpuprofile":
			flags[a] = "yes"
		case strings.HasPrefix(a, "-test."):
			k, v, _ := strings.Cut(a, "=")
			flags[k] = v
		case strings.HasPrefix(a, "-") && i+1 < len(args):
			flags[a] = args[i+1]
			i++
		default:
			positional = append(positional, a)
		}
	}
	for _, k := range []string{"-etcd-bin", "-benchmark-bin", "-tmp", "-results-dir"} {
		if p, ok := flags[k]; ok {
			if _, err := os.Stat(p); err != nil {
				return fail("%s: %v", k, err)
			}
		}
	}
	for _, p := range positional {
		if _, err := os.Stat(p); err != nil {
			return fail("%v", err)
		}
	}
	profile := flags["-test.cpuprofile"]
	if flags["-cpuprofile"] != "" {
		profile = filepath.Join(flags["-results-dir"], fmt.Sprintf("%s-%s-%d-cpu.prof", name, flags["-bench"], os.Getpid()))
	}
	var result string
	switch {
	case name == "etcd-bench" && flags["-bench"] == "put":
		result = "BenchmarkEtcdPut 1 1000 ns/op 10 ops/s"
	case name == "etcd-bench" && flags["-bench"] == "stm":
		result = "BenchmarkEtcdSTM 1 1000 ns/op 10 ops/s"
	case name == "gopher-lua-bench" && len(positional) == 2:
		result = "BenchmarkGopherLuaKNucleotide 1 1000 ns/op"
	case name == "markdown-bench" && len(positional) == 1:
		result = "BenchmarkMarkdownRenderXHTML 1 1000 ns/op"
	case strings.HasSuffix(name, ".test") && flags["-test.run"] == "none":
		set, _ := suite.Find(suite.Sets(false), "bent")
		for _, x := range set.XBench {
			if x.Suite+".test" == name && x.Bench == flags["-test.bench"] {
				result = fmt.Sprintf("pkg: %s\nBenchmark%s-2 1 1000 ns/op", x.Pkg, x.Expect[0])
			}
		}
	}
	if result == "" {
		return fail("unexpected arguments %q", args)
	}
	if profile != "" {
		data, err := os.ReadFile(os.Getenv("FAKE_PROFILE"))
		if err == nil {
			err = os.WriteFile(profile, data, 0o644)
		}
		if err != nil {
			return fail("%v", err)
		}
	}
	time.Sleep(15 * watchPeriod)
	fmt.Println(result)
	return 0
}

// TestPack builds a pack of sweet-etcd and sweet-controls with a fake sweet (Stage), then runs
// its run and profile cells with no tools and no toolchains, as on a machine that has neither,
// from the binaries staged: each driver gets the arguments sweet's harness gives it (fakeDriver
// checks the paths), the results come out as sweet's do, the profiles merge, and the GODEBUG each
// process ran with is checked. A bent pack's binaries, staged by hand, run the same way. A cell
// of a matrix built without staging fails in one line.
func TestPack(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the fake tools are bash scripts, and the watch reads /proc")
	}
	dir, sweet, _, prof := setupFakeSweet(t)
	self, _ := os.Executable()
	info := fakeInfo("slack")
	sets := map[string]suite.Set{}
	for _, name := range []string{"sweet-etcd", "sweet-controls", "bent"} {
		sets[name], _ = suite.Find(suite.Sets(false), name)
	}
	results := filepath.Join(dir, "results")
	build := &Executor{Dir: results, Tools: &Tools{Sweet: sweet, Benchmarks: dir, Etcd: t.TempDir()}, Stage: true,
		Toolchains: map[string]*toolchain.Toolchain{"slack": {}}, Infos: map[string]toolchain.Info{"slack": info},
		Sets: sets, Count: 2, Timeout: time.Minute, Log: discard{}}
	cellOut := func(c matrix.Cell) string {
		out := filepath.Join(results, c.Path())
		os.MkdirAll(filepath.Dir(out), 0o755)
		return out
	}
	for _, set := range []string{"sweet-etcd", "sweet-controls"} {
		c := matrix.Cell{Kind: matrix.Build, Variant: "slack", Set: set}
		if err := build.Execute(t.Context(), c, cellOut(c)); err != nil {
			t.Fatal(err)
		}
	}
	for _, bin := range []string{"sweet-etcd.d/etcd/etcd", "sweet-etcd.d/etcd/benchmark", "sweet-etcd.d/etcd/etcd-bench",
		"sweet-controls.d/gopher-lua/gopher-lua-bench", "sweet-controls.d/markdown/markdown-bench"} {
		if fi, err := os.Stat(filepath.Join(results, "bin", "slack", bin)); err != nil || fi.Mode()&0o100 == 0 {
			t.Errorf("staged %s: %v", bin, err)
		}
	}
	var bentBins = map[string]string{}
	for _, x := range sets["bent"].XBench {
		bentBins[x.Suite+".test"] = self
	}
	if err := stage(results, matrix.Cell{Kind: matrix.Build, Variant: "slack", Set: "bent"}, bentBins); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(results, WorkDir, "sweet")); err != nil { // what sweet built is not in a pack
		t.Fatal(err)
	}

	t.Setenv("XBENCH_FAKE_DRIVER", "1")
	there := &Executor{Dir: results, Infos: map[string]toolchain.Info{"slack": info}, Sets: sets, Count: 2,
		Timeout: time.Minute, Log: discard{}}
	for _, set := range []string{"sweet-etcd", "sweet-controls", "bent"} {
		run := matrix.Cell{Kind: matrix.Run, Variant: "slack", Set: set, Round: 1}
		if err := there.Execute(t.Context(), run, cellOut(run)); err != nil {
			t.Fatalf("%s: %v", run, err)
		}
		got := string(mustRead(t, cellOut(run)))
		for _, e := range sets[set].Expected() {
			if n := strings.Count(got, "pkg: "+e.Pkg+"\n"); n == 0 {
				t.Errorf("%s: no results of %s:\n%s", run, e.Pkg, got)
			}
			if n := strings.Count(got, "Benchmark"+e.Bench); n != 2 {
				t.Errorf("%s: %d results of %s, want 2 (-count):\n%s", run, n, e.Bench, got)
			}
		}
		if !strings.Contains(got, `ran with GODEBUG "asyncpreemptoff=0"`) {
			t.Errorf("%s: no record of the GODEBUG its processes ran with:\n%s", run, got)
		}
		profile := matrix.Cell{Kind: matrix.Profile, Variant: "slack", Set: set}
		if err := there.Execute(t.Context(), profile, cellOut(profile)); err != nil {
			t.Fatalf("%s: %v", profile, err)
		}
		invocations := len(sets[set].XBench)
		if set == "sweet-etcd" {
			invocations = 2 // put and stm
		}
		if n, want := cpuNanos(t, mustRead(t, cellOut(profile))), int64(invocations)*cpuNanos(t, mustRead(t, prof)); n != want {
			t.Errorf("%s: %d ns of CPU, want %d: every run's profile", profile, n, want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(results, WorkDir, "prebuilt", ".cell-*")); len(left) > 0 {
		t.Errorf("cells left %v", left)
	}

	t.Setenv("FAKE_CHILD_GODEBUG", "timerslack=1")
	run := matrix.Cell{Kind: matrix.Run, Variant: "slack", Set: "sweet-controls", Round: 2}
	err := there.Execute(t.Context(), run, cellOut(run))
	oneLine(t, "a driver that runs a binary with another GODEBUG", err, `ran with GODEBUG "timerslack=1", not slack's "asyncpreemptoff=0"`)
	t.Setenv("FAKE_CHILD_GODEBUG", "")
	os.RemoveAll(filepath.Join(results, "bin", "slack", "sweet-controls.d"))
	err = there.Execute(t.Context(), run, cellOut(run))
	oneLine(t, "a matrix built without staging", err, "no binaries staged for slack sweet-controls", "--build-only")
	b := matrix.Cell{Kind: matrix.Build, Variant: "slack", Set: "bent"}
	oneLine(t, "a build cell without tools", there.Execute(t.Context(), b, filepath.Join(dir, "b")), "is not built", "--build-only")
}
