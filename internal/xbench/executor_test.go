package xbench

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"timerlab/internal/configs"
	"timerlab/internal/matrix"
	"timerlab/internal/suite"
	"timerlab/internal/toolchain"
)

// fakeSweet stands in for sweet run: for each benchmark of -run it puts the binary $FAKE_BIN in
// WORK/BENCH/CONFIG/bin, as sweet's build does, runs it (TestHelperSleep) with the GODEBUG of the
// configuration's envexec, or $FAKE_GODEBUG's, and copies the recorded results (and, when the
// configuration asks for a CPU profile, profiles) of testdata/sweet into -results. FAKE_FAIL=1
// makes it fail as sweet does when a benchmark fails.
const fakeSweet = `#!/usr/bin/env bash
set -e
while [ $# -gt 1 ]; do
	case $1 in
	-work-dir) work=$2; shift ;;
	-results) results=$2; shift ;;
	-run) run=$2; shift ;;
	esac
	shift
done
config=$1
[ -z "$FAKE_FAIL" ] || { echo "[sweet] error: run benchmark markdown for config heap: exit status 2" >&2; exit 1; }
name=$(sed -n 's/^ *name = "\(.*\)"/\1/p' "$config")
godebug=$(grep -o 'GODEBUG=[^"]*' "$config" | head -n 1)
for b in ${run//,/ }; do
	mkdir -p "$work/$b/$name/bin" "$results/$b"
	bin=$work/$b/$name/bin/$b-bench
	[ -f "$bin" ] || cp "$FAKE_BIN" "$bin"
	if [ "$b" = etcd ]; then # etcd's driver runs two more binaries
		for extra in etcd benchmark; do [ -f "$work/$b/$name/bin/$extra" ] || cp "$FAKE_BIN" "$work/$b/$name/bin/$extra"; done
	fi
	env ${FAKE_GODEBUG:-$godebug} XBENCH_SLEEP=1 "$bin" -test.run='^TestHelperSleep$' >/dev/null
	cp "$FAKE_DATA/$b/heap.results" "$results/$b/$name.results"
	if grep -q cpuprofile "$config"; then
		mkdir -p "$results/$b/$name.debug"
		cp "$FAKE_PROFILE" "$results/$b/$name.debug/X-1-cpu.prof"
	fi
done
`

// setupFakeSweet writes fakeSweet into a new directory and sets its environment: the binary it
// stages is this test binary (built by runtime.Version()), its results and profiles those of
// testdata/sweet. It returns the directory, fakeSweet's path, the results' and a profile's.
func setupFakeSweet(t *testing.T) (dir, sweet, data, prof string) {
	dir = t.TempDir()
	sweet = filepath.Join(dir, "sweet")
	os.WriteFile(sweet, []byte(fakeSweet), 0o755)
	self, _ := os.Executable()
	data, _ = filepath.Abs("testdata/sweet/results")
	prof, _ = filepath.Abs("testdata/sweet/results/etcd/heap.debug/EtcdPut-1172050159-cpu.prof")
	t.Setenv("FAKE_BIN", self)
	t.Setenv("FAKE_DATA", data)
	t.Setenv("FAKE_PROFILE", prof)
	t.Setenv("FAKE_FAIL", "")
	t.Setenv("FAKE_GODEBUG", "")
	return dir, sweet, data, prof
}

// fakeInfo describes variant's toolchain as the one that built this test binary, with a GODEBUG.
func fakeInfo(variant string) toolchain.Info {
	return toolchain.Info{Variant: variant, GOROOT: "/toolchains/" + variant,
		Version: "go version " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH, GODEBUG: "asyncpreemptoff=0"}
}

// TestSweetCells runs the cells of sweet-controls with a fake sweet: each cell writes its file
// from what sweet left (the binaries it built, checked against the variant's Go version; its
// results; its profiles) and leaves no temporary directory; the configuration it ran is the one
// Sweet writes; a binary built by another Go or a failing sweet fails the cell and writes nothing.
func TestSweetCells(t *testing.T) {
	dir, sweet, data, prof := setupFakeSweet(t)
	info := fakeInfo("heap")
	set, _ := suite.Find(suite.Sets(false), "sweet-controls")
	results := filepath.Join(dir, "results")
	x := &Executor{Dir: results, Tools: &Tools{Sweet: sweet, Benchmarks: dir},
		Toolchains: map[string]*toolchain.Toolchain{"heap": {}}, Infos: map[string]toolchain.Info{"heap": info},
		Sets: map[string]suite.Set{set.Name: set}, Count: 1, Timeout: time.Minute, Log: discard{}}
	n := 0
	cell := func(kind matrix.Kind) (string, error) {
		n++
		out := filepath.Join(dir, fmt.Sprintf("out-%d-%s", n, kind))
		err := x.Execute(t.Context(), matrix.Cell{Kind: kind, Variant: "heap", Set: set.Name, Round: 1}, out)
		data, _ := os.ReadFile(out)
		if err != nil && len(data) > 0 {
			t.Errorf("%s cell failed (%v) and wrote %s", kind, err, out)
		}
		return string(data), err
	}
	build, err := cell(matrix.Build)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"gopher-lua", "markdown"} {
		if !strings.Contains(build, filepath.Join(results, WorkDir, "sweet", "work", b, "heap", "bin", b+"-bench")+" "+runtime.Version()) {
			t.Errorf("build cell's list lacks %s's binary:\n%s", b, build)
		}
	}
	run, err := cell(matrix.Run)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := SweetResults(data, set, "heap")
	record := ""
	for _, b := range []string{"gopher-lua", "markdown"} {
		record += "# processes of " + filepath.Join(results, WorkDir, "sweet", "work", b, "heap", "bin", b+"-bench") +
			" ran with GODEBUG \"asyncpreemptoff=0\" (1 seen)\n"
	}
	if run != record+string(want) {
		t.Errorf("run cell wrote\n%s\nwant\n%s", run, record+string(want))
	}
	config, _ := os.ReadFile(filepath.Join(results, WorkDir, "sweet", "timerlab-heap-run.toml"))
	if wantConfig, _ := configs.Sweet([]toolchain.Info{info}, false); !bytes.Equal(config, wantConfig) {
		t.Errorf("sweet ran with\n%s\nwant\n%s", config, wantConfig)
	}
	profile, err := cell(matrix.Profile)
	if err != nil {
		t.Fatal(err)
	}
	if n := cpuNanos(t, []byte(profile)); n != 2*cpuNanos(t, mustRead(t, prof)) {
		t.Errorf("profile cell: %d ns of CPU, want both benchmarks' profiles", n)
	}
	if left, _ := filepath.Glob(filepath.Join(results, WorkDir, "sweet", ".cell-*")); len(left) > 0 {
		t.Errorf("cells left %v", left)
	}

	x.Infos["heap"] = toolchain.Info{Variant: "heap", Version: "go version go1.27.4-timerlab.heap " + runtime.GOOS + "/" + runtime.GOARCH}
	_, err = cell(matrix.Run)
	oneLine(t, "a binary built by another Go", err, "gopher-lua-bench was built by "+runtime.Version(), "go1.27.4-timerlab.heap")
	x.Infos["heap"] = info
	t.Setenv("FAKE_GODEBUG", "GODEBUG=asyncpreemptoff=1")
	for _, kind := range []matrix.Kind{matrix.Run, matrix.Profile} {
		_, err = cell(kind)
		oneLine(t, "a binary run with another GODEBUG", err, "ran with GODEBUG \"asyncpreemptoff=1\", not heap's \"asyncpreemptoff=0\"")
	}
	t.Setenv("FAKE_GODEBUG", "")
	t.Setenv("FAKE_FAIL", "1")
	if _, err = cell(matrix.Run); err == nil || !strings.Contains(err.Error(), "run benchmark markdown") {
		t.Errorf("sweet failing: %v, want its error", err)
	}
}

// TestHelperSleep is the benchmark process of fakeSweet and TestEnvWatch: it sleeps long enough
// to be seen by an envWatch.
func TestHelperSleep(t *testing.T) {
	if os.Getenv("XBENCH_SLEEP") == "" {
		t.Skip("a benchmark process of the fake tools")
	}
	time.Sleep(50 * watchPeriod)
}

// TestPortsFree checks the check of etcd's ports on a port something listens on.
func TestPortsFree(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	oneLine(t, "a port in use", portsFree([]int{port}), fmt.Sprintf("port %d is in use", port))
	l.Close()
	if err := portsFree([]int{port}); err != nil {
		t.Errorf("a free port: %v", err)
	}
}

// TestEnvWatch runs a copy of the test binary through run, as a tool runs a benchmark: the watch
// sees its process and GODEBUG, counts it once however long it lives, and passes only the
// GODEBUG it saw; a watch of other binaries sees nothing, and says so.
func TestEnvWatch(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	self, _ := os.Executable()
	bin := filepath.Join(t.TempDir(), "bench")
	if err := os.WriteFile(bin, mustRead(t, self), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "XBENCH_SLEEP=1", "GODEBUG=asyncpreemptoff=1")
	script := `"$1" -test.run='^TestHelperSleep$' >/dev/null`
	w := newEnvWatch([]string{bin}, nil)
	if _, err := run(t.Context(), t.TempDir(), env, w, "bash", "-c", script, "bash", bin); err != nil {
		t.Fatal(err)
	}
	if err := w.check("slack", "asyncpreemptoff=1"); err != nil {
		t.Error(err)
	}
	if got, want := w.record(), "# processes of "+bin+" ran with GODEBUG \"asyncpreemptoff=1\" (1 seen)\n"; got != want {
		t.Errorf("record %q, want %q", got, want)
	}
	oneLine(t, "another GODEBUG", w.check("slack", "timerslack=1"), bin+" ran with GODEBUG \"asyncpreemptoff=1\", not slack's \"timerslack=1\"")
	oneLine(t, "no GODEBUG wanted", w.check("heap", ""), "not heap's none")

	w = newEnvWatch([]string{bin + "-other"}, nil)
	if _, err := run(t.Context(), t.TempDir(), env, w, "bash", "-c", script, "bash", bin); err != nil {
		t.Fatal(err)
	}
	oneLine(t, "no process of the binaries", w.check("slack", "asyncpreemptoff=1"), "no process of slack's binaries was seen running")
}
