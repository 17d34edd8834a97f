package wakeups

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"timerlab/bench/units"
)

// TestCPUPerOp runs BenchmarkSubMsSleep in a child process of this test binary and checks that it
// reports the CPU per op, and that the figure is about the CPU per second times the seconds per
// op: both divide the same CPU time, one by the run's ops and one by its wall time, which measure
// (around the usage readings) covers and the benchmark's timer (ns/op) does not. So cpu-ns/op is
// at least cpu-ns/s × ns/op, and more only by those readings' share of a short run: a few percent
// idle, up to 60% measured on a loaded machine. A figure divided by seconds rather than ops is off
// by four orders of magnitude.
func TestCPUPerOp(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a benchmark")
	}
	figures, line := benchFigures(t, "SubMsSleep", "2000x")
	perOp, ok := figures[units.CPUOp]
	if !ok || perOp <= 0 {
		t.Fatalf("%s is %v (reported: %v) in %q", units.CPUOp, perOp, ok, line)
	}
	perSec, nsPerOp := figures[units.CPU], figures["ns/op"]
	want := perSec * nsPerOp / 1e9
	if perOp < want*0.95 || perOp > want*3 {
		t.Errorf("%s = %.0f, want about %s × ns/op = %.0f (%q)", units.CPUOp, perOp, units.CPU, want, line)
	}
}

// benchFigures runs the benchmark Benchmark{name} for benchtime in a child process of this test
// binary and returns the figures of its (last) result line by unit, and the line.
func benchFigures(t *testing.T, name, benchtime string) (map[string]float64, string) {
	t.Helper()
	out, err := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^Benchmark"+name+"$",
		"-test.benchtime="+benchtime, "-test.count=1").CombinedOutput()
	if err != nil {
		t.Fatalf("the benchmark failed: %v\n%s", err, out)
	}
	var line string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "Benchmark"+name+"/") {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("no result of Benchmark%s in:\n%s", name, out)
	}
	// A result line is the name, the iterations, then value-unit pairs.
	f := strings.Fields(line)
	figures := map[string]float64{}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		figures[f[i+1]] = v
	}
	return figures, line
}
