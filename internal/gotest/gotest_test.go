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
	return &Executor{Dir: t.TempDir(), Count: 1, Timeout: time.Minute, Log: log,
		Toolchains: map[string]*toolchain.Toolchain{"heap": hostToolchain(t)},
		Sets:       map[string]suite.Set{set.Name: set}}
}

func TestBuildWarnsAboutMissingBenchmarks(t *testing.T) {
	set := suite.Set{Name: "ctx", Pkg: "context", From: suite.Std, Bench: "^BenchmarkWithTimeout$",
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
	set := suite.Set{Name: "ctx", Pkg: "context", From: suite.Std, Bench: "^BenchmarkNone$", Expect: []string{"None"}}
	x := executor(t, set, new(strings.Builder))
	err := x.Execute(t.Context(), matrix.Cell{Kind: matrix.Build, Variant: "heap", Set: "ctx"}, filepath.Join(x.Dir, "ctx.test"))
	if err == nil || !strings.Contains(err.Error(), "none of the benchmarks") {
		t.Errorf("build of a set without benchmarks: %v", err)
	}
}

func TestRunWithoutResultsFails(t *testing.T) {
	// The pattern selects no benchmark, so the binary passes but prints no result.
	set := suite.Set{Name: "ctx", Pkg: "context", From: suite.Std, Bench: "^BenchmarkNone$", Expect: []string{"WithTimeout"}}
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
