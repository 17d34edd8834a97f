package instr

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"
)

// cachegrindOut is the head and tail of a real cachegrind out file (valgrind 3.19,
// --cache-sim=no), the per-function lines shortened.
const cachegrindOut = `desc: I1 cache:         32768 B, 64 B, 8-way associative
desc: D1 cache:         32768 B, 64 B, 8-way associative
desc: LL cache:         33554432 B, 64 B, 16-way associative
cmd: /tmp/x/time-upstream.test -test.run=XXX -test.bench=^BenchmarkStop$ -test.benchtime=20000x -test.cpu=1
events: Ir
fl=/go/src/runtime/time.go
fn=runtime.(*timers).siftDown
474 12
summary: 650351060
`

func TestParseSummary(t *testing.T) {
	ir, err := ParseSummary(strings.NewReader(cachegrindOut))
	if err != nil || ir != 650351060 {
		t.Errorf("ParseSummary = %d, %v; want 650351060", ir, err)
	}
	// With cache simulation on, Ir is one column of several.
	multi := "events: Ir I1mr ILmr\nsummary: 123 4 5\n"
	if ir, err := ParseSummary(strings.NewReader(multi)); err != nil || ir != 123 {
		t.Errorf("ParseSummary(several events) = %d, %v; want 123", ir, err)
	}
	for _, bad := range []string{"", "events: Ir\n", "summary: 12\n", "events: Dr\nsummary: 12\n", "events: Ir\nsummary: x\n"} {
		if ir, err := ParseSummary(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseSummary(%q) = %d, want an error", bad, ir)
		}
	}
}

func TestDerive(t *testing.T) {
	if got, err := Derive(1_000_000, 1_250_000, 1000); err != nil || got != 250 {
		t.Errorf("Derive = %v, %v; want 250", got, err)
	}
	for _, c := range []struct {
		irN, ir2N uint64
		n         int
	}{{1000, 1000, 10}, {2000, 1000, 10}, {1000, 2000, 1}, {1000, 2000, 0}} {
		if got, err := Derive(c.irN, c.ir2N, c.n); err == nil {
			t.Errorf("Derive(%d, %d, %d) = %v, want an error", c.irN, c.ir2N, c.n, got)
		}
	}
}

func TestPatternSelectsExactlyTheName(t *testing.T) {
	p := Pattern("BenchmarkStop/impl=func")
	if p != "^BenchmarkStop$/^impl=func$" {
		t.Errorf("Pattern = %q", p)
	}
	// A part with metacharacters matches itself literally; a longer name does not match.
	parts := strings.Split(Pattern("BenchmarkX/n=1.5(a)"), "/")
	if !regexp.MustCompile(parts[1]).MatchString("n=1.5(a)") || regexp.MustCompile(parts[1]).MatchString("n=1x5(a)") ||
		regexp.MustCompile(parts[0]).MatchString("BenchmarkXY") {
		t.Errorf("Pattern parts %q", parts)
	}
}

func TestChooseN(t *testing.T) {
	for _, c := range []struct {
		secPerOp float64
		target   time.Duration
		want     int
	}{
		{1e-6, 10 * time.Millisecond, 10000},
		{1e-6, 25 * time.Millisecond, 50000},
		{1.2e-6, 25 * time.Millisecond, 50000},
		{3e-3, 25 * time.Millisecond, 10},
		{1e-3, 2 * time.Millisecond, 2},
		{1, 25 * time.Millisecond, MinN},
		{0, 25 * time.Millisecond, MinN},
	} {
		if got := ChooseN(c.secPerOp, c.target); got != c.want {
			t.Errorf("ChooseN(%g, %v) = %d, want %d", c.secPerOp, c.target, got, c.want)
		}
	}
}

func TestWriteResultsParsesAsBenchmarkFormat(t *testing.T) {
	var b strings.Builder
	rs := []Result{{"BenchmarkStop/impl=func", 10000, 3123.456}, {"BenchmarkAfter", 20, 2154}}
	if err := WriteResults(&b, rs); err != nil {
		t.Fatal(err)
	}
	want := "BenchmarkStop/impl=func 10000 3123.46 instr/op\nBenchmarkAfter 20 2154.00 instr/op\n"
	if b.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", b.String(), want)
	}
	r := benchfmt.NewReader(strings.NewReader(b.String()), "x")
	var names []string
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			t.Fatalf("record %v", r.Result())
		}
		if v, ok := res.Value(Unit); !ok || v <= 0 {
			t.Errorf("%s: no %s value", res.Name, Unit)
		}
		names = append(names, string(res.Name))
	}
	if !slices.Equal(names, []string{"Stop/impl=func", "After"}) {
		t.Errorf("benchfmt read names %q", names)
	}
	for _, bad := range []string{"Stop", "BenchmarkA B"} {
		if err := WriteResults(&b, []Result{{bad, 1, 1}}); err == nil {
			t.Errorf("WriteResults(%q) succeeded", bad)
		}
	}
}

func TestCountingEnv(t *testing.T) {
	env := CountingEnv([]string{"PATH=/bin", "GOGC=50", "GOMAXPROCS=8", "GODEBUG=timerslack=1ms"})
	want := []string{"PATH=/bin", "GOMAXPROCS=1", "GOGC=off", "GODEBUG=timerslack=1ms," + countingGodebug}
	if !slices.Equal(env, want) {
		t.Errorf("CountingEnv = %q, want %q", env, want)
	}
	if env := CountingEnv([]string{"GODEBUG="}); env[len(env)-1] != "GODEBUG="+countingGodebug {
		t.Errorf("CountingEnv with an empty GODEBUG = %q", env)
	}
}

func TestFindValgrindMissing(t *testing.T) {
	_, err := FindValgrind(t.Context(), filepath.Join(t.TempDir(), "valgrind"))
	if err == nil || !strings.Contains(err.Error(), "scripts/install-deps.sh") {
		t.Errorf("FindValgrind of a missing file: %v, want an error pointing at scripts/install-deps.sh", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := FindValgrind(t.Context(), "valgrind"); err == nil || !strings.Contains(err.Error(), "install it") {
		t.Errorf("FindValgrind with no valgrind on PATH: %v", err)
	}
}

func TestFindValgrindVersion(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "valgrind")
	os.WriteFile(fake, []byte("#!/bin/sh\necho valgrind-3.19.0\n"), 0o755)
	vg, err := FindValgrind(t.Context(), fake)
	if err != nil || vg.Version != "valgrind-3.19.0" || vg.Path != fake {
		t.Errorf("FindValgrind = %+v, %v", vg, err)
	}
	args := vg.Args("/o", "bin", "-x")
	if !slices.Equal(args, []string{"--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/o", "bin", "-x"}) {
		t.Errorf("Args = %q", args)
	}
}

// fakeValgrind writes a stand-in for valgrind into dir: it answers --version, runs the command
// after its options with FAKE_OUTPUT as the command's output, and writes a cachegrind out file
// whose Ir summary is 1000 + 10 * the N of -test.benchtime=Nx.
func fakeValgrind(t *testing.T) *Valgrind {
	t.Helper()
	script := `#!/bin/sh
[ "$1" = --version ] && { echo valgrind-fake; exit 0; }
for a; do
	case $a in
	--cachegrind-out-file=*) out=${a#*=} ;;
	-test.benchtime=*x) n=${a#-test.benchtime=}; n=${n%x} ;;
	esac
done
printf '%s\n' "$FAKE_OUTPUT"
printf 'events: Ir\nsummary: %d\n' $((1000 + 10 * n)) >"$out"
`
	path := filepath.Join(t.TempDir(), "valgrind")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	vg, err := FindValgrind(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	return vg
}

func TestMeasureWantsExactlyOneResult(t *testing.T) {
	vg := fakeValgrind(t)
	b := &Binary{Variant: "heap", Pkg: "time", Path: "/bin/true", Dir: t.TempDir()}
	b.Env = []string{"FAKE_OUTPUT=BenchmarkStop/impl=func \t 40 \t 12 ns/op"}
	if perOp, err := b.Measure(t.Context(), vg, "BenchmarkStop/impl=func", 40); err != nil || perOp != 10 {
		t.Errorf("Measure = %v, %v; want 10", perOp, err)
	}
	for _, out := range []string{"", "BenchmarkStop/impl=chan 40 1 ns/op", "BenchmarkStop/impl=func 40 1 ns/op\nBenchmarkStop/impl=func 40 1 ns/op"} {
		b.Env = []string{"FAKE_OUTPUT=" + out}
		if _, err := b.Measure(t.Context(), vg, "BenchmarkStop/impl=func", 40); err == nil || !strings.Contains(err.Error(), "want exactly") {
			t.Errorf("output %q: %v, want an error asking for exactly one result", out, err)
		}
	}
}
