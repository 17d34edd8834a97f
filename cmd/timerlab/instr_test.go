package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"timerlab/internal/labtest"
)

// fakeValgrind is a stand-in for valgrind: it runs the test binary it is given natively and
// writes a cachegrind out file counting 5000000 + PEROP * N instructions for -test.benchtime=Nx,
// PEROP 1000 with the heap toolchain and 1010 with any other; it fails unless it was asked for
// cachegrind without cache simulation and runs in the counting environment.
const fakeValgrind = `#!/bin/sh
[ "$1" = --version ] && { echo valgrind-fake; exit 0; }
[ "$1 $2" = "--tool=cachegrind --cache-sim=no" ] || { echo "fake valgrind: bad options $*" >&2; exit 2; }
[ "$GOGC $GOMAXPROCS" = "off 1" ] || { echo "fake valgrind: GOGC=$GOGC GOMAXPROCS=$GOMAXPROCS" >&2; exit 2; }
out=${3#--cachegrind-out-file=}
shift 3
for a; do case $a in -test.benchtime=*x) n=${a#-test.benchtime=}; n=${n%x} ;; esac; done
"$@" || exit
case $GOROOT in */heap) per=1000 ;; *) per=1010 ;; esac
printf 'events: Ir\nsummary: %d\n' $((5000000 + per * n)) >"$out"
`

func writeFakeValgrind(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "valgrind")
	if err := os.WriteFile(path, []byte(fakeValgrind), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestInstrEndToEnd runs timerlab instr on two fake toolchains with a fake valgrind: the real
// time test binaries are built and run, a benchmark with sub-benchmarks is measured per
// sub-benchmark, once even where two --bench names select it, and the 1% difference the fake
// counts is reported as significant.
func TestInstrEndToEnd(t *testing.T) {
	build := labtest.FakeBuild(t, "heap", "upstream")
	out := filepath.Join(build, "results-instr")
	args := []string{"--valgrind", writeFakeValgrind(t), "--bench", "BenchmarkReset,BenchmarkReset/impl=func", "--n", "50", "--rounds", "6"}
	if err := instrCmd(t.Context(), args); err != nil {
		t.Fatal(err)
	}
	heap, err := os.ReadFile(filepath.Join(out, "heap.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"variant: heap\n", "pkg: time\n", "gomaxprocs: 1\n", "counting-env: GOMAXPROCS=1 GOGC=off",
		"BenchmarkReset/impl=chan 50 1000.00 instr/op\n", "BenchmarkReset/impl=func 50 1000.00 instr/op\n"} {
		if !strings.Contains(string(heap), want) {
			t.Errorf("heap.txt lacks %q:\n%s", want, heap)
		}
	}
	if n := strings.Count(string(heap), "BenchmarkReset/impl=func 50 "); n != 6 {
		t.Errorf("heap.txt has %d results of Reset/impl=func, want one per round (6)", n)
	}
	md, err := os.ReadFile(filepath.Join(out, "instr.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "| `time` Reset/impl=func | 1.000k ± 0% | 1.010k ± 0% | +1.00% (p=0.002 n=6) |"
	if !strings.Contains(string(md), want) || !strings.Contains(string(md), "| instr/op | heap | upstream | upstream vs heap |") {
		t.Errorf("instr.md lacks %q:\n%s", want, md)
	}
}

func TestInstrErrors(t *testing.T) {
	build := labtest.FakeBuild(t, "upstream")
	vg := writeFakeValgrind(t)
	out := filepath.Join(build, "r")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--valgrind", filepath.Join(build, "nosuch")}, "install it with scripts/install-deps.sh"},
		{[]string{"--valgrind", vg}, filepath.Join(build, "toolchains", "heap")},
		{[]string{"--valgrind", vg, "--variants", "upstream", "--bench", "BenchmarkNoSuch"}, "BenchmarkNoSuch matches no benchmark"},
		{[]string{"--valgrind", vg, "--n", "1"}, "--n >= 2"},
	} {
		if err := instrCmd(t.Context(), append(c.args, "--out", out)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("instr %q: %v, want an error containing %q", c.args, err, c.want)
		}
	}
}
