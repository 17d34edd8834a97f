// Package gotest executes matrix cells with go test: it builds one test binary per variant and
// set, runs its benchmarks round after round, and profiles it once. The binaries can also be run
// without their toolchains, on a machine other than the one that built them (Executor.Toolchains).
package gotest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"timerlab/internal/atomicfile"
	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/suite"
	"timerlab/internal/toolchain"
)

// Executor runs cells of a matrix whose results directory is Dir, one at a time.
type Executor struct {
	Dir      string                 // the results directory
	RepoRoot string                 // holds bench/
	Variants map[string]lab.Variant // by name
	// Toolchains holds each variant's toolchain, by variant name. Without them (nil) the executor
	// runs binaries built elsewhere, which must be in place already: build cells fail, and the
	// binaries run with toolchain.RunEnv in a directory that stands in for their package's (see
	// findPkgDir).
	Toolchains map[string]*toolchain.Toolchain
	Sets       map[string]suite.Set // by set name
	Count      int                  // -test.count of a run cell
	Timeout    time.Duration        // limit for one cell
	Log        io.Writer            // warnings

	pkgDirs map[string]string // "variant/set" -> package source directory, filled on first use
}

var _ matrix.Executor = (*Executor)(nil)

// Execute implements matrix.Executor.
func (x *Executor) Execute(ctx context.Context, c matrix.Cell, out string) error {
	if _, ok := x.Variants[c.Variant]; !ok {
		return fmt.Errorf("no variant %s", c.Variant)
	}
	set, ok := x.Sets[c.Set]
	if !ok {
		return fmt.Errorf("no benchmark set %s", c.Set)
	}
	ctx, cancel := context.WithTimeout(ctx, x.Timeout)
	defer cancel()
	switch c.Kind {
	case matrix.Build:
		tc, ok := x.Toolchains[c.Variant]
		if !ok {
			return fmt.Errorf("%s is not built, and there is no toolchain here to build it with: "+
				"build it where the toolchains are (timerlab bench --build-only)", c.Path())
		}
		return x.build(ctx, tc, set, out)
	case matrix.Run:
		return x.run(ctx, set, c, out)
	default:
		return x.profile(ctx, set, c, out)
	}
}

// build compiles the set's test binary to out and warns about expected benchmarks it lacks.
func (x *Executor) build(ctx context.Context, tc *toolchain.Toolchain, set suite.Set, out string) error {
	dir := set.ModuleDir(tc.GOROOT, x.RepoRoot, x.Dir)
	if _, err := tc.Output(ctx, dir, "test", "-c", "-o", out, set.Pkg); err != nil {
		return err
	}
	listed, err := runBinary(tc.Command(ctx, dir, out, "-test.list", set.ListPattern()))
	if err != nil {
		return err
	}
	missing := set.Missing(string(listed))
	if len(missing) == len(set.Expect) {
		return fmt.Errorf("%s with %s has none of the benchmarks %s", set.Pkg, tc.Variant.Name, strings.Join(set.Expect, ", "))
	}
	if len(missing) > 0 {
		fmt.Fprintf(x.Log, "timerlab: warning: %s with %s lacks Benchmark%s; skipped\n",
			set.Pkg, tc.Variant.Name, strings.Join(missing, ", Benchmark"))
	}
	return nil
}

// run runs one round of the set's benchmarks, keeping their output in out, and checks that the
// output holds benchmark results.
func (x *Executor) run(ctx context.Context, set suite.Set, c matrix.Cell, out string) error {
	args := x.benchArgs(set, x.Count)
	output, err := x.runSet(ctx, set, c, args)
	if err != nil {
		return err
	}
	if countResults(output) == 0 {
		return fmt.Errorf("no benchmark results in output:\n%s", tail(output))
	}
	return os.WriteFile(out, output, 0o644)
}

// profile runs the set matrix.ProfileCount times with the CPU profiler writing to out.
func (x *Executor) profile(ctx context.Context, set suite.Set, c matrix.Cell, out string) error {
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	args := append(x.benchArgs(set, matrix.ProfileCount), "-test.cpuprofile="+abs)
	_, err = x.runSet(ctx, set, c, args)
	return err
}

// benchArgs are the test binary's flags to run the set's benchmarks count times.
func (x *Executor) benchArgs(set suite.Set, count int) []string {
	args := []string{"-test.run=^$", "-test.bench=" + set.Pattern(), "-test.benchmem",
		"-test.count=" + strconv.Itoa(count), "-test.timeout=" + x.Timeout.String()}
	if set.Benchtime != "" {
		args = append(args, "-test.benchtime="+set.Benchtime)
	}
	if set.CPU != "" {
		args = append(args, "-test.cpu="+set.CPU)
	}
	return args
}

// runSet runs the set's built test binary in its package directory, as go test would.
func (x *Executor) runSet(ctx context.Context, set suite.Set, c matrix.Cell, args []string) ([]byte, error) {
	dir, err := x.pkgDir(ctx, c.Variant, set)
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(x.Dir, matrix.Cell{Kind: matrix.Build, Variant: c.Variant, Set: c.Set}.Path())
	if tc, ok := x.Toolchains[c.Variant]; ok {
		return runBinary(tc.Command(ctx, dir, bin, args...))
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, toolchain.RunEnv(x.Variants[c.Variant])
	return runBinary(cmd)
}

// pkgDir returns the source directory of the set's package for this variant's toolchain, or,
// without the toolchain, the directory Toolchains' comment names.
func (x *Executor) pkgDir(ctx context.Context, variant string, set suite.Set) (string, error) {
	key := variant + "/" + set.Name
	if dir, ok := x.pkgDirs[key]; ok {
		return dir, nil
	}
	dir, err := x.findPkgDir(ctx, variant, set)
	if err != nil {
		return "", err
	}
	if x.pkgDirs == nil {
		x.pkgDirs = map[string]string{}
	}
	x.pkgDirs[key] = dir
	return dir, nil
}

// findPkgDir returns the directory the set's binary runs in. With the toolchain that is the
// package's source directory, as for go test. Without it, a package of the repository's bench/
// runs in its directory there; a standard library package in its directory under the results
// directory's stand-in GOROOT (StageGOROOT), since package time's tests read
// ../../lib/time/zoneinfo.zip; any other package (a third-party module's) in an empty directory,
// as the benchmarks the sets select from those read no files.
func (x *Executor) findPkgDir(ctx context.Context, variant string, set suite.Set) (string, error) {
	if tc, ok := x.Toolchains[variant]; ok {
		return tc.Output(ctx, set.ModuleDir(tc.GOROOT, x.RepoRoot, x.Dir), "list", "-f", "{{.Dir}}", set.Pkg)
	}
	if dir, ok := set.RepoDir(x.RepoRoot); ok {
		return dir, nil
	}
	dir := filepath.Join(x.Dir, "cwd")
	if set.From == suite.Std {
		dir = filepath.Join(x.Dir, stdRoot, "src", filepath.FromSlash(set.Pkg))
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// stdRoot is the directory, under a results directory, of the stand-in GOROOT in which standard
// library test binaries run without their toolchain. It holds what their benchmarks read.
const stdRoot = "goroot"

// StageGOROOT copies into dir's stand-in GOROOT, from the toolchain at goroot, what the standard
// library's test binaries read when they run there.
func StageGOROOT(dir, goroot string) error {
	const zoneinfo = "lib/time/zoneinfo.zip"
	data, err := os.ReadFile(filepath.Join(goroot, zoneinfo))
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, stdRoot, filepath.FromSlash(zoneinfo)), data)
}

// runBinary runs cmd and returns its combined output; a failure's error holds its tail.
func runBinary(cmd *exec.Cmd) ([]byte, error) {
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = &buf
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %v\n%s", filepath.Base(cmd.Path), strings.Join(cmd.Args[1:], " "), err,
			tail(buf.Bytes()))
	}
	return buf.Bytes(), nil
}

// countResults returns how many benchmark results output holds.
func countResults(output []byte) int {
	r := benchfmt.NewReader(bytes.NewReader(output), "")
	n := 0
	for r.Scan() {
		if _, ok := r.Result().(*benchfmt.Result); ok {
			n++
		}
	}
	return n
}

// tail returns the last lines of output, enough to show why a command failed.
func tail(output []byte) string {
	lines := strings.Split(strings.TrimRight(string(output), "\n"), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}
