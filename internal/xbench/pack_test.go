package xbench

import (
	"cmp"
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
	if name == "benchmark" { // etcd's load tool: it prints the requests it was asked for
		for _, a := range args {
			if total, ok := strings.CutPrefix(a, "--total="); ok {
				time.Sleep(15 * watchPeriod) // long enough for the watch to see it
				fmt.Println(total)
				return 0
			}
		}
		return fail("no --total in %q", args)
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
	if name == "etcd-bench" {
		// The driver runs its load tool with sweet's load; the tool must be asked for
		// $FAKE_ETCD_TOTAL requests (sweet's 100,000 when unset).
		out, err := exec.Command(flags["-benchmark-bin"], "--precise", "--conns=100", "--clients=1000", flags["-bench"],
			"--total=100000").Output()
		if want := cmp.Or(os.Getenv("FAKE_ETCD_TOTAL"), "100000"); err != nil || strings.TrimSpace(string(out)) != want {
			return fail("the load tool was asked for %q requests (%v), want %s", strings.TrimSpace(string(out)), err, want)
		}
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
// process ran with is checked. A bent pack's binaries, staged by hand, run the same way. A pack
// whose etcd load is set (EtcdRequests) gives etcd's load tool that many requests, which the fake
// driver checks, and the tool is still watched. A cell of a matrix built without staging fails in
// one line.
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

	// A pack whose etcd load is set (--etcd-requests): the load tool gets that many requests, and
	// no other argument changes.
	t.Setenv("FAKE_ETCD_TOTAL", "2000")
	etcd := matrix.Cell{Kind: matrix.Run, Variant: "slack", Set: "sweet-etcd", Round: 2}
	err := there.Execute(t.Context(), etcd, cellOut(etcd))
	if err == nil || !strings.Contains(err.Error(), `asked for "100000" requests`) || !strings.Contains(err.Error(), "want 2000") {
		t.Errorf("a pack of sweet's load run where 2000 requests were set: %v, want the fake driver's complaint", err)
	}
	there.EtcdRequests = 2000
	if err := there.Execute(t.Context(), etcd, cellOut(etcd)); err != nil {
		t.Fatalf("%s with 2000 requests: %v", etcd, err)
	}
	// The watch sees the load tool behind the script, with the variant's GODEBUG.
	tool := filepath.Join(results, "bin", "slack", "sweet-etcd.d", "etcd", "benchmark")
	if got := string(mustRead(t, cellOut(etcd))); !strings.Contains(got, tool+` ran with GODEBUG "asyncpreemptoff=0"`) {
		t.Errorf("%s with 2000 requests: no record of the load tool's GODEBUG:\n%s", etcd, got)
	}
	there.EtcdRequests = 0
	t.Setenv("FAKE_ETCD_TOTAL", "")

	t.Setenv("FAKE_CHILD_GODEBUG", "timerslack=1")
	run := matrix.Cell{Kind: matrix.Run, Variant: "slack", Set: "sweet-controls", Round: 2}
	err = there.Execute(t.Context(), run, cellOut(run))
	oneLine(t, "a driver that runs a binary with another GODEBUG", err, `ran with GODEBUG "timerslack=1", not slack's "asyncpreemptoff=0"`)
	t.Setenv("FAKE_CHILD_GODEBUG", "")
	os.RemoveAll(filepath.Join(results, "bin", "slack", "sweet-controls.d"))
	err = there.Execute(t.Context(), run, cellOut(run))
	oneLine(t, "a matrix built without staging", err, "no binaries staged for slack sweet-controls", "--build-only")
	b := matrix.Cell{Kind: matrix.Build, Variant: "slack", Set: "bent"}
	oneLine(t, "a build cell without tools", there.Execute(t.Context(), b, filepath.Join(dir, "b")), "is not built", "--build-only")
}

// TestEtcdLoad runs the script that sets a pack's etcd load in front of a tool that prints its
// arguments: --total's value is replaced, every other argument (one with a space, an empty one, a
// glob, a backslash, one like --total but not it) reaches the tool as it was, the tool's exit
// status comes back, a run with no --total fails, saying so, and a path with a quote works.
func TestEtcdLoad(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the script needs /bin/sh")
	}
	dir := t.TempDir()
	tool := filepath.Join(dir, "tool dir", "benchmark")
	os.MkdirAll(filepath.Dir(tool), 0o755)
	if err := os.WriteFile(tool, []byte("#!/bin/sh\nprintf '[%s]\\n' \"$@\"\nexit 7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	load, err := etcdLoad(filepath.Join(dir, "load"), tool, 20000)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(load, "--endpoints", "a b", "", "*", `a\nb`, "--total-x=1", "put", "--total=100000", "--val-size=8").Output()
	want := "[--endpoints]\n[a b]\n[]\n[*]\n[a\\nb]\n[--total-x=1]\n[put]\n[--total=20000]\n[--val-size=8]\n"
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 7 || string(out) != want {
		t.Errorf("the tool got\n%s(%v), want\n%s(exit status 7)", out, err, want)
	}
	out, err = exec.Command(load, "put").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "no --total") {
		t.Errorf("a run with no --total: %v, %q; want a failure saying so", err, out)
	}
	quoted := filepath.Join(dir, "it's", "benchmark")
	os.MkdirAll(filepath.Dir(quoted), 0o755)
	os.Link(tool, quoted)
	if load, err = etcdLoad(filepath.Join(dir, "load2"), quoted, 1000); err != nil {
		t.Fatal(err)
	}
	if out, _ := exec.Command(load, "--total=5").Output(); string(out) != "[--total=1000]\n" {
		t.Errorf("a tool whose path has a quote got %q, want [--total=1000]", out)
	}
}
