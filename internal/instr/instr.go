// Package instr measures the CPU cost of go test benchmarks as instructions per op, counted by
// valgrind's cachegrind. An instruction count does not depend on the machine's load, so it
// resolves differences far below what wall-clock timing on a shared machine can.
//
// One measurement of a benchmark is two runs of its test binary, each a process of its own under
// cachegrind, at N and at 2N iterations: instr/op = (Ir(2N) - Ir(N)) / N. With -test.benchtime=Nx
// and N >= 2 the testing package calls the benchmark function twice in both runs, once with
// b.N = 1 and once with b.N = N (or 2N), so process start-up and the benchmark's set-up are the
// same in both runs and the difference holds the N extra iterations alone.
package instr

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Unit is the unit of every result.
const Unit = "instr/op"

// MinN is the smallest N: with -test.benchtime=1x the testing package calls the benchmark
// function once, not twice, so the set-up of the run at N would not cancel that of the run at 2N.
const MinN = 2

// Valgrind runs commands under cachegrind, counting instructions only (--cache-sim=no).
type Valgrind struct {
	Path    string // the valgrind executable
	Version string // what `valgrind --version` prints, e.g. valgrind-3.19.0
}

// FindValgrind resolves name (a command on PATH or a path) and asks it its version.
func FindValgrind(ctx context.Context, name string) (*Valgrind, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("no valgrind: %v: install it with scripts/install-deps.sh", err)
	}
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("%s --version: %v", path, err)
	}
	return &Valgrind{Path: path, Version: strings.TrimSpace(string(out))}, nil
}

// Args returns the arguments that run cmd under cachegrind, its counts written to outFile.
func (v *Valgrind) Args(outFile string, cmd ...string) []string {
	return append([]string{"--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=" + outFile}, cmd...)
}

// ParseSummary returns the instructions executed (Ir) that a cachegrind out file records: the
// column of the "events:" line named Ir, in the "summary:" line.
func ParseSummary(r io.Reader) (uint64, error) {
	var events, summary []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "events:"); ok {
			events = strings.Fields(rest)
		} else if rest, ok := strings.CutPrefix(sc.Text(), "summary:"); ok {
			summary = strings.Fields(rest)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	for i, e := range events {
		if e == "Ir" && i < len(summary) {
			return strconv.ParseUint(summary[i], 10, 64)
		}
	}
	return 0, fmt.Errorf("cachegrind out file has no Ir summary (events %q, summary %q)", events, summary)
}

// Derive returns the instructions per op of a benchmark that executed irN instructions in all at
// n iterations and ir2N at 2n. A total that does not grow with the iterations is an error: the
// benchmark's work is not in its loop, or noise swamps it.
func Derive(irN, ir2N uint64, n int) (float64, error) {
	if n < MinN {
		return 0, fmt.Errorf("N = %d, want at least %d", n, MinN)
	}
	if ir2N <= irN {
		return 0, fmt.Errorf("Ir(2N) = %d is not above Ir(N) = %d at N = %d: the count does not grow with the iterations", ir2N, irN, n)
	}
	return float64(ir2N-irN) / float64(n), nil
}

// Pattern returns the -test.bench pattern that selects the benchmark named name (e.g.
// BenchmarkStop/impl=func) and nothing else: each slash-separated part quoted and anchored.
func Pattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// ChooseN returns an iteration count whose iterations take about target at secPerOp each:
// target/secPerOp rounded up to 1, 2 or 5 times a power of ten, so that small changes in the
// calibration give the same N, and at least MinN (also for a secPerOp that is not positive).
func ChooseN(secPerOp float64, target time.Duration) int {
	want := target.Seconds() / secPerOp
	if !(secPerOp > 0) || want <= MinN {
		return MinN
	}
	pow := math.Pow(10, math.Floor(math.Log10(want)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*pow >= want {
			return int(m * pow)
		}
	}
	panic("unreachable: want <= 10*pow")
}

// Result is one measurement: instructions per op of the benchmark Name over N iterations.
type Result struct {
	Name  string // full name, Benchmark prefix and sub-benchmarks included
	N     int
	PerOp float64
}

// WriteResults writes rs in Go benchmark format, one line "NAME N VALUE instr/op" each.
func WriteResults(w io.Writer, rs []Result) error {
	var b bytes.Buffer
	for _, r := range rs {
		if !strings.HasPrefix(r.Name, "Benchmark") || strings.ContainsAny(r.Name, " \t\n") {
			return fmt.Errorf("result name %q: want Benchmark... without blanks", r.Name)
		}
		fmt.Fprintf(&b, "%s %d %.2f %s\n", r.Name, r.N, r.PerOp, Unit)
	}
	_, err := w.Write(b.Bytes())
	return err
}
