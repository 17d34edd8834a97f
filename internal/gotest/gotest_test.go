package gotest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/suite"
	"timerlab/internal/toolchain"
)

// hostToolchain is the go command on PATH standing in for variant heap's toolchain.
func hostToolchain(t *testing.T) *toolchain.Toolchain {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	return &toolchain.Toolchain{Variant: lab.Variant{Name: "heap"}, GOROOT: strings.TrimSpace(string(out))}
}

func executor(t *testing.T, set suite.Set, log *strings.Builder) *Executor {
	tc := hostToolchain(t)
	return &Executor{Dir: t.TempDir(), Count: 1, Timeout: time.Minute, Log: log,
		Variants:   map[string]lab.Variant{"heap": tc.Variant},
		Toolchains: map[string]*toolchain.Toolchain{"heap": tc},
		Sets:       map[string]suite.Set{set.Name: set}}
}

func TestBuildWarnsAboutMissingBenchmarks(t *testing.T) {
	set := suite.Set{Name: "ctx", Pkg: "context", From: suite.Std,
		Expect: []string{"WithTimeout", "NoSuchBenchmark"}}
	var log strings.Builder
	x := executor(t, set, &log)
	out := filepath.Join(x.Dir, "ctx.test")
	if err := x.Execute(t.Context(), matrix.Cell{Kind: matrix.Build, Variant: "heap", Set: "ctx"}, out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "context with heap lacks BenchmarkNoSuchBenchmark") {
		t.Errorf("log %q does not warn about BenchmarkNoSuchBenchmark", log.String())
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}

func TestBuildFailsWithoutAnyBenchmark(t *testing.T) {
	set := suite.Set{Name: "ctx", Pkg: "context", From: suite.Std, Expect: []string{"None"}}
	x := executor(t, set, new(strings.Builder))
	err := x.Execute(t.Context(), matrix.Cell{Kind: matrix.Build, Variant: "heap", Set: "ctx"}, filepath.Join(x.Dir, "ctx.test"))
	if err == nil || !strings.Contains(err.Error(), "none of the benchmarks") {
		t.Errorf("build of a set without benchmarks: %v", err)
	}
}

func TestRunWithoutResultsFails(t *testing.T) {
	// The pattern selects no sub-benchmark, so the binary passes but prints no result.
	set := suite.Set{Name: "ctx", Pkg: "context", From: suite.Std, Expect: []string{"WithTimeout"}, Sub: "^concurrency=0$"}
	x := executor(t, set, new(strings.Builder))
	build := matrix.Cell{Kind: matrix.Build, Variant: "heap", Set: "ctx"}
	if err := x.Execute(t.Context(), build, filepath.Join(x.Dir, build.Path())); err != nil {
		t.Fatal(err)
	}
	run := matrix.Cell{Kind: matrix.Run, Variant: "heap", Set: "ctx", Round: 1}
	err := x.Execute(t.Context(), run, filepath.Join(x.Dir, "out.txt"))
	if err == nil || !strings.Contains(err.Error(), "no benchmark results") {
		t.Errorf("run without results: %v", err)
	}
}

// TestRunAtTheSetsCPU checks that a set's CPU reaches the binary as -test.cpu: the testing
// package then names each result with that GOMAXPROCS.
func TestRunAtTheSetsCPU(t *testing.T) {
	set := suite.Set{Name: "ctx", Pkg: "context", From: suite.Std, Sub: "^concurrency=40$",
		Expect: []string{"WithTimeout"}, Benchtime: "1x", CPU: "3"}
	x := executor(t, set, new(strings.Builder))
	build := matrix.Cell{Kind: matrix.Build, Variant: "heap", Set: "ctx"}
	if err := x.Execute(t.Context(), build, filepath.Join(x.Dir, build.Path())); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(x.Dir, "out.txt")
	if err := x.Execute(t.Context(), matrix.Cell{Kind: matrix.Run, Variant: "heap", Set: "ctx", Round: 1}, out); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	if !strings.Contains(string(got), "BenchmarkWithTimeout/concurrency=40-3 ") {
		t.Errorf("output does not name the result at GOMAXPROCS 3:\n%s", got)
	}
}

// TestPrebuiltRuns runs binaries without their toolchain, as bench --prebuilt does: a package of
// bench/ runs in its own directory with the variant's GODEBUG and not the caller's, and package
// time's binary runs once StageGOROOT has given it the zoneinfo.zip its tests load.
func TestPrebuiltRuns(t *testing.T) {
	repo := t.TempDir()
	echo := filepath.Join(repo, "bench", "echo")
	os.MkdirAll(echo, 0o755)
	os.WriteFile(filepath.Join(repo, "bench", "go.mod"), []byte("module timerlab/bench\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(echo, "echo_test.go"), []byte(`package echo

import (
	"fmt"
	"os"
	"testing"
)

func BenchmarkEcho(b *testing.B) {
	wd, _ := os.Getwd()
	fmt.Printf("echo-cwd: %s\necho-godebug: %s\n", wd, os.Getenv("GODEBUG"))
	for range b.N {
	}
}
`), 0o644)
	sets := map[string]suite.Set{
		"echo": {Name: "echo", Pkg: "timerlab/bench/echo", From: suite.Bench,
			Expect: []string{"Echo"}, Benchtime: "1x"},
		"time": {Name: "time", Pkg: "time", From: suite.Std, Expect: []string{"Format"},
			Benchtime: "1x"}, // formats in Local, which time's tests load from ../../lib/time/zoneinfo.zip
	}
	host := hostToolchain(t)
	// Build through a link to the host's GOROOT, removed before the runs, as a toolchain is absent
	// where prebuilt binaries run: the time package's tests would load zoneinfo.zip from there.
	link := filepath.Join(t.TempDir(), "goroot")
	if err := os.Symlink(host.GOROOT, link); err != nil {
		t.Fatal(err)
	}
	tc := &toolchain.Toolchain{Variant: lab.Variant{Name: "heap", Godebug: "timerlabecho=1"}, GOROOT: link}
	built := &Executor{Dir: t.TempDir(), RepoRoot: repo, Count: 1, Timeout: time.Minute, Log: new(strings.Builder),
		Variants: map[string]lab.Variant{"heap": tc.Variant}, Toolchains: map[string]*toolchain.Toolchain{"heap": tc},
		Sets: sets}
	for name := range sets {
		c := matrix.Cell{Kind: matrix.Build, Variant: "heap", Set: name}
		if err := built.Execute(t.Context(), c, filepath.Join(built.Dir, c.Path())); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(link)
	t.Setenv("GODEBUG", "callers=1")
	x := &Executor{Dir: built.Dir, RepoRoot: repo, Count: 1, Timeout: time.Minute, Log: new(strings.Builder),
		Variants: built.Variants, Sets: sets}
	run := func(set string) ([]byte, error) {
		out := filepath.Join(t.TempDir(), "out.txt")
		err := x.Execute(t.Context(), matrix.Cell{Kind: matrix.Run, Variant: "heap", Set: set, Round: 1}, out)
		data, _ := os.ReadFile(out)
		return data, err
	}
	got, err := run("echo")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"echo-cwd: " + echo + "\n", "echo-godebug: timerlabecho=1\n"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("bench/echo's output lacks %q:\n%s", want, got)
		}
	}
	if _, err := run("time"); err == nil || !strings.Contains(err.Error(), "cannot load America/Los_Angeles") {
		t.Errorf("time's binary before StageGOROOT: %v, want its failure to load zoneinfo.zip", err)
	}
	if err := StageGOROOT(x.Dir, host.GOROOT); err != nil {
		t.Fatal(err)
	}
	if got, err := run("time"); err != nil || !strings.Contains(string(got), "BenchmarkFormat") {
		t.Errorf("time's binary after StageGOROOT: %v\n%s", err, got)
	}
}

// TestBuildNeedsToolchain checks that an executor without toolchains refuses to build.
func TestBuildNeedsToolchain(t *testing.T) {
	x := &Executor{Dir: t.TempDir(), Timeout: time.Minute, Variants: map[string]lab.Variant{"heap": {Name: "heap"}},
		Sets: map[string]suite.Set{"ctx": {Name: "ctx", Pkg: "context"}}}
	c := matrix.Cell{Kind: matrix.Build, Variant: "heap", Set: "ctx"}
	if err := x.Execute(t.Context(), c, filepath.Join(x.Dir, c.Path())); err == nil || !strings.Contains(err.Error(), "--build-only") {
		t.Errorf("build without a toolchain: %v, want an error pointing to --build-only", err)
	}
}

// TestProfileRunsLonger checks that a profile cell runs the set's benchmarks matrix.ProfileCount times
// with the profiler on, for the samples one round is short of: the "test binary" here is a script
// that records its arguments.
func TestProfileRunsLonger(t *testing.T) {
	set := suite.Set{Name: "ctx", Pkg: "context", From: suite.Std, Expect: []string{"WithTimeout"}, Benchtime: "1x"}
	x := executor(t, set, new(strings.Builder))
	bin := filepath.Join(x.Dir, matrix.Cell{Kind: matrix.Build, Variant: "heap", Set: "ctx"}.Path())
	args := filepath.Join(x.Dir, "args")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"$@\" >"+args+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(x.Dir, "profile.pb.gz")
	if err := x.Execute(t.Context(), matrix.Cell{Kind: matrix.Profile, Variant: "heap", Set: "ctx"}, out); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(args)
	for _, want := range []string{"-test.count=2 ", "-test.cpuprofile=" + out, "-test.benchtime=1x"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the profile cell ran %q, want %q in it", got, want)
		}
	}
}
