package instr

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"timerlab/internal/toolchain"
)

// Binary is a package's test binary built by one variant's toolchain, with ballastFile added. It
// runs in the package's source directory, as go test runs it, in the toolchain's environment
// made deterministic by CountingEnv.
type Binary struct {
	Variant string
	Pkg     string
	Path    string
	Dir     string   // the package's source directory
	Env     []string // CountingEnv of the toolchain's environment
}

// countingGodebug are the GODEBUG settings CountingEnv adds: no memory profiling, whose sampling
// is random, and no asynchronous preemption, whose signals come at wall-clock intervals.
const countingGodebug = "asyncpreemptoff=1,memprofilerate=0"

// CountingEnv returns env set up to count instructions that do not depend on timing or chance:
// GOMAXPROCS=1 (with -test.cpu=1: one P runs the benchmark, and its name has no -GOMAXPROCS
// suffix); GOGC=off, because the garbage collector's pacing follows the wall clock, which under
// valgrind varies the count by tens of millions of instructions a run; and countingGodebug after
// env's own GODEBUG, whose settings are kept.
func CountingEnv(env []string) []string {
	godebug := countingGodebug
	var out []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "GODEBUG" && v != "":
			godebug = v + "," + countingGodebug
		case k != "GODEBUG" && k != "GOGC" && k != "GOMAXPROCS":
			out = append(out, kv)
		}
	}
	return append(out, "GOMAXPROCS=1", "GOGC=off", "GODEBUG="+godebug)
}

// Build compiles pkg's test binary with tc to path, with go run in the module directory src (the
// toolchain's GOROOT/src for a std package), and with the ballast file added by an overlay
// written into work.
func Build(ctx context.Context, tc *toolchain.Toolchain, src, pkg, path, work string) (*Binary, error) {
	list, err := tc.Output(ctx, src, "list", "-f", "{{.Name}} {{.Dir}}", pkg)
	if err != nil {
		return nil, err
	}
	name, dir, _ := strings.Cut(list, " ")
	overlay, err := writeBallast(work, tc.Variant.Name, name, dir)
	if err != nil {
		return nil, err
	}
	if _, err := tc.Output(ctx, src, "test", "-c", "-overlay="+overlay, "-o", path, pkg); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("variant %s: go test -c %s wrote no test binary: %v", tc.Variant.Name, pkg, err)
	}
	return &Binary{Variant: tc.Variant.Name, Pkg: pkg, Path: path, Dir: dir, Env: CountingEnv(tc.Env())}, nil
}

// Open returns pkg's test binary at path, which Build made with tc in the module directory src.
func Open(ctx context.Context, tc *toolchain.Toolchain, src, pkg, path string) (*Binary, error) {
	dir, err := tc.Output(ctx, src, "list", "-f", "{{.Dir}}", pkg)
	if err != nil {
		return nil, err
	}
	return &Binary{Variant: tc.Variant.Name, Pkg: pkg, Path: path, Dir: dir, Env: CountingEnv(tc.Env())}, nil
}

// ballastFile is the test file Build adds to package pkgName: a 256 MiB slice that stays live
// and untouched (fresh memory is known to be zero), so the heap in use is large. The runtime's
// background scavenger returns free memory only beyond an eighth of the heap in use, so it never
// has work, and never sleeps on a timer: that sleep is timed by the wall clock, and whether the
// scavenger's timer is still pending when a benchmark stops its set-up timers decides whether
// they leave the heap one by one or in one pass, a difference of tens of millions of
// instructions (package time's benchmarks stop 32768 of them).
const ballastFile = `package %s

// timerlabInstrBallast is added by timerlab instr (internal/instr.Build); see ballastFile there.
var timerlabInstrBallast = make([]byte, 256<<20)
`

// writeBallast writes the ballast file for package pkgName in dir, and the overlay that adds it
// there, into work; it returns the overlay's path.
func writeBallast(work, variant, pkgName, dir string) (string, error) {
	ballast := filepath.Join(work, variant+"-ballast_test.go")
	if err := os.WriteFile(ballast, fmt.Appendf(nil, ballastFile, pkgName), 0o644); err != nil {
		return "", err
	}
	overlay := filepath.Join(work, variant+"-overlay.json")
	data, err := json.Marshal(map[string]map[string]string{
		"Replace": {filepath.Join(dir, "zz_timerlab_instr_ballast_test.go"): ballast}})
	if err != nil {
		return "", err
	}
	return overlay, os.WriteFile(overlay, data, 0o644)
}

// Leaf is a benchmark that reports a result of its own (one without sub-benchmarks), with the
// time per op it took when run natively, and the iterations it is counted at (MakePlan).
type Leaf struct {
	Name     string  `json:"name"` // full name, Benchmark prefix included
	SecPerOp float64 `json:"sec_per_op"`
	N        int     `json:"n,omitempty"`
}

// Calibrate runs the benchmarks that the -test.bench pattern selects natively for benchtime (a
// -test.benchtime value) and returns what reported a result: each benchmark, or each of its
// sub-benchmarks. A pattern that selects nothing is an error.
func (b *Binary) Calibrate(ctx context.Context, pattern, benchtime string) ([]Leaf, error) {
	rs, err := b.run(ctx, b.Path, "-test.run=^$", "-test.bench="+pattern, "-test.benchtime="+benchtime,
		"-test.cpu=1", "-test.count=1", "-test.timeout=30m")
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("variant %s: --bench %s matches no benchmark of %s (list them: go test -list . %s)", b.Variant, pattern, b.Pkg, b.Pkg)
	}
	var leaves []Leaf
	for _, r := range rs {
		sec, _ := r.Value("sec/op")
		leaves = append(leaves, Leaf{Name: fullName(r), SecPerOp: sec})
	}
	return leaves, nil
}

// Count runs the benchmark called name for n iterations under cachegrind and returns the
// instructions the whole process executed. The run must report exactly one result, of name: a
// total cannot be split between benchmarks.
func (b *Binary) Count(ctx context.Context, vg *Valgrind, name string, n int) (uint64, error) {
	tmp, err := os.MkdirTemp("", "timerlab-cachegrind-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	outFile := filepath.Join(tmp, "cachegrind.out")
	args := vg.Args(outFile, append([]string{b.Path}, benchArgs(name, strconv.Itoa(n)+"x")...)...)
	rs, err := b.run(ctx, vg.Path, args...)
	if err != nil {
		return 0, err
	}
	if len(rs) != 1 || fullName(rs[0]) != name {
		var names []string
		for _, r := range rs {
			names = append(names, fullName(r))
		}
		return 0, fmt.Errorf("variant %s: -test.bench=%s ran %d benchmarks %q, want exactly %s", b.Variant, Pattern(name), len(rs), names, name)
	}
	f, err := os.Open(outFile)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return ParseSummary(f)
}

// Measure returns the instructions per op of the benchmark called name from runs at n and 2n
// iterations.
func (b *Binary) Measure(ctx context.Context, vg *Valgrind, name string, n int) (float64, error) {
	irN, err := b.Count(ctx, vg, name, n)
	if err != nil {
		return 0, err
	}
	ir2N, err := b.Count(ctx, vg, name, 2*n)
	if err != nil {
		return 0, err
	}
	perOp, err := Derive(irN, ir2N, n)
	if err != nil {
		return 0, fmt.Errorf("variant %s: %s: %v", b.Variant, name, err)
	}
	return perOp, nil
}

// benchArgs are the test binary's flags that run only the benchmark called name, for benchtime.
func benchArgs(name, benchtime string) []string {
	return []string{"-test.run=^$", "-test.bench=" + Pattern(name), "-test.benchtime=" + benchtime,
		"-test.cpu=1", "-test.count=1", "-test.timeout=30m"}
}

// run runs the command name with args in b's directory and environment, and returns the
// benchmark results its output reports. A failure's error holds the output's tail.
func (b *Binary) run(ctx context.Context, name string, args ...string) ([]*benchfmt.Result, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = b.Dir, b.Env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("variant %s: %s %s: %v\n%s", b.Variant, filepath.Base(name), strings.Join(args, " "), err, tail(out.Bytes()))
	}
	var rs []*benchfmt.Result
	r := benchfmt.NewReader(&out, b.Path)
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			rs = append(rs, res.Clone())
		}
	}
	return rs, nil
}

// fullName is r's name as the test binary printed it, Benchmark prefix included.
func fullName(r *benchfmt.Result) string {
	return "Benchmark" + string(r.Name.Full())
}

// tail returns the last lines of output, enough to show why a command failed.
func tail(output []byte) string {
	lines := strings.Split(strings.TrimRight(string(output), "\n"), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}
