package scripts_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nullAnchor is the line of needsAdd that null-floor.sh changes the heap toolchain after.
const nullAnchor = "\tneed := t.state&timerHeaped == 0 && t.when > 0 && (!t.isChan || t.blocked > 0)\n"

// fakeNullGo stands in for a toolchain's go. `go run` prints "null" when its GOROOT's time.go
// holds null-floor.sh's change (an AfterFunc timer would not fire) and "fired" otherwise. `go test
// -c -o FILE` writes a test binary that logs its toolchain's name (heap, wheel or null) to
// $TIMERLAB_BUILD/order, fails if FAKE_BENCH_FAIL names it, and prints one benchmark line.
const fakeNullGo = `#!/bin/sh
root=$(cd "$(dirname "$0")/.." && pwd)
name=$(basename "$root")
case $1 in
run) grep -q 'timerlab null floor' "$root/src/runtime/time.go" && echo null || echo fired ;;
test)
	printf '#!/bin/sh\necho %s >>"$TIMERLAB_BUILD/order"\n[ "${FAKE_BENCH_FAIL:-}" != %s ] || exit 1\n' "$name" "$name" >"$4"
	echo 'echo "BenchmarkCostVsN/N=1K-2 1 100 ns/op"' >>"$4"
	chmod +x "$4" ;;
*) echo "go version go9.9.9-timerlab.$name linux/amd64" ;;
esac
`

// alwaysFiresGo stands in for a go whose programs' AfterFunc timers fire, changed or not.
const alwaysFiresGo = `#!/bin/sh
case $1 in
run) echo fired ;;
*) echo "go version go9.9.9-timerlab.heap linux/amd64" ;;
esac
`

// heapWithAnchor builds the fake heap toolchain and gives its time.go the line the change follows.
func heapWithAnchor(t *testing.T, w *world) {
	t.Helper()
	w.mustRun(t, "build-toolchain.sh", "heap")
	timeGo := "build/toolchains/heap/src/runtime/time.go"
	w.write(t, timeGo, w.read(t, timeGo)+"func (t *timer) needsAdd() bool {\n"+nullAnchor+"\treturn need\n}\n")
}

// floorLeftovers lists what null-floor.sh left in build/floor besides a finished null toolchain
// and its lock.
func floorLeftovers(w *world) []string {
	ents, _ := os.ReadDir(w.path("build/floor"))
	var left []string
	for _, e := range ents {
		if e.Name() != "null" && e.Name() != ".lock" {
			left = append(left, e.Name())
		}
	}
	return left
}

func TestNullFloorNeedsCurrentHeapToolchain(t *testing.T) {
	w := newWorld(t)
	wantOneLineError(t, w.run(t, "null-floor.sh", "--toolchain-only"), "no toolchain for heap")
	w.mustRun(t, "build-toolchain.sh", "heap")
	w.write(t, "src-overlay/src/runtime/timelab.go", "package runtime\n\n// changed\n")
	wantOneLineError(t, w.run(t, "null-floor.sh", "--toolchain-only"), "heap's toolchain at "+
		w.path("build/toolchains/heap")+" is not built from the current series")
	if w.exists("build/floor/null") {
		t.Fatal("a null toolchain appeared from a stale heap toolchain")
	}
}

func TestNullFloorChangeNoLongerApplies(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "build-toolchain.sh", "heap") // its time.go has no needsAdd
	r := w.run(t, "null-floor.sh", "--toolchain-only")
	wantOneLineError(t, r, "heap's runtime/time.go has 0 lines")
	if !strings.Contains(r.stderr, "the null change no longer applies") {
		t.Fatalf("error does not say the change no longer applies: %q", r.stderr)
	}
	if w.exists("build/floor/null") || len(floorLeftovers(w)) > 0 {
		t.Fatalf("a failed derivation left %v", floorLeftovers(w))
	}
}

// TestNullFloorCheckRefuses: the check refuses a null toolchain whose AfterFunc timer still fires,
// and a heap control whose timer does not (a check that cannot see a timer fire proves nothing).
func TestNullFloorCheckRefuses(t *testing.T) {
	for _, tc := range []struct{ name, heapGo, want string }{
		{"null that fires", alwaysFiresGo, "printed 'fired' (want null)"},
		{"control that does not", strings.Replace(alwaysFiresGo, "echo fired", "echo null", 1),
			"/build/toolchains/heap printed 'null' (want fired)"},
	} {
		w := newWorld(t)
		heapWithAnchor(t, w)
		w.write(t, "build/toolchains/heap/bin/go", tc.heapGo)
		wantOneLineError(t, w.run(t, "null-floor.sh", "--toolchain-only"), tc.want)
		if w.exists("build/floor/null") || len(floorLeftovers(w)) > 0 {
			t.Fatalf("%s: the failed check left %v", tc.name, floorLeftovers(w))
		}
	}
}

func TestNullFloorDerivesFromHeapAndLeavesItAlone(t *testing.T) {
	w := newWorld(t)
	heapWithAnchor(t, w)
	w.write(t, "build/toolchains/heap/bin/go", fakeNullGo)
	heapTimeGo := w.read(t, "build/toolchains/heap/src/runtime/time.go")
	w.mustRun(t, "null-floor.sh", "--toolchain-only")

	nullTimeGo := w.read(t, "build/floor/null/src/runtime/time.go")
	change := nullAnchor + "\tif e := efaceOf(&t.arg); e._type != nil && e._type.Kind() == abi.Func {\n" +
		"\t\tneed = false // timerlab null floor: an AfterFunc timer enters no timer set\n\t}\n\treturn need\n"
	if !strings.Contains(nullTimeGo, change) {
		t.Fatalf("the null toolchain's time.go lacks the change after the anchor:\n%s", nullTimeGo)
	}
	if got := w.read(t, "build/toolchains/heap/src/runtime/time.go"); got != heapTimeGo {
		t.Fatalf("deriving the null toolchain changed heap's time.go:\n%s", got)
	}
	if left := floorLeftovers(w); len(left) > 0 {
		t.Fatalf("the derivation left %v", left)
	}
	if _, err := os.Stat(filepath.Join(w.path("build/floor/null"), "bin", "go")); err != nil {
		t.Fatalf("the null toolchain has no go: %v", err)
	}
}

func TestNullFloorUsage(t *testing.T) {
	w := newWorld(t)
	wantOneLineError(t, w.run(t, "null-floor.sh"), "usage: null-floor.sh OUT | --toolchain-only")
	r := w.runEnv(t, []string{"ROUNDS=0"}, "null-floor.sh", w.path("out"))
	wantOneLineError(t, r, "ROUNDS=0: want a positive number of rounds")
}

// measureWorld is a world whose heap and wheel toolchains run fakeNullGo.
func measureWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t)
	heapWithAnchor(t, w)
	w.mustRun(t, "build-toolchain.sh", "wheel")
	w.write(t, "build/toolchains/heap/bin/go", fakeNullGo)
	w.write(t, "build/toolchains/wheel/bin/go", fakeNullGo)
	return w
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// noOutLeftovers fails t if what left a temporary or moved-aside OUT (.out.*) beside OUT.
func noOutLeftovers(t *testing.T, w *world, what string) {
	t.Helper()
	for _, name := range dirNames(t, w.dir) {
		if strings.HasPrefix(name, ".out.") {
			t.Errorf("%s left %s", what, name)
		}
	}
}

func TestNullFloorMeasuresInterleavedRounds(t *testing.T) {
	w := measureWorld(t)
	r := w.runEnv(t, []string{"ROUNDS=3"}, "null-floor.sh", w.path("out"))
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// Round r starts with variant (r mod 3) of heap, wheel, null: every variant runs once a
	// round, and each takes each place in turn.
	order := strings.Join(strings.Fields(w.read(t, "build/order")), " ")
	if want := "wheel null heap null heap wheel heap wheel null"; order != want {
		t.Fatalf("benchmarks ran in the order %q, want %q", order, want)
	}
	if got, want := strings.Join(dirNames(t, w.path("out")), " "), "benchstat.txt heap.txt null.txt wheel.txt"; got != want {
		t.Fatalf("OUT holds %q, want %q", got, want)
	}
	for _, v := range []string{"heap", "wheel", "null"} {
		if n := strings.Count(w.read(t, "out/"+v+".txt"), "BenchmarkCostVsN/N=1K"); n != 3 {
			t.Errorf("%s.txt has %d results, want one a round (3)", v, n)
		}
	}
	if stat := w.read(t, "out/benchstat.txt"); !strings.Contains(stat, "CostVsN/N=1K") || !strings.Contains(stat, "null") {
		t.Errorf("benchstat.txt does not compare the three:\n%s", stat)
	}
	noOutLeftovers(t, w, "the measurement")

	// A second run replaces the first's OUT whole and leaves nothing beside it.
	w.mustRun(t, "null-floor.sh", w.path("out"))
	if n := strings.Count(w.read(t, "out/heap.txt"), "BenchmarkCostVsN/N=1K"); n != 12 {
		t.Errorf("after a second run of 12 rounds heap.txt has %d results", n)
	}
	noOutLeftovers(t, w, "replacing OUT")
}

func TestNullFloorFailedRoundKeepsEarlierOut(t *testing.T) {
	w := measureWorld(t)
	w.mustRun(t, "null-floor.sh", w.path("out")) // 12 rounds: 12 results in each file
	before := w.read(t, "out/heap.txt")
	r := w.runEnv(t, []string{"ROUNDS=2", "FAKE_BENCH_FAIL=null"}, "null-floor.sh", w.path("out"))
	wantOneLineError(t, r, "null's benchmark failed in round 1")
	if after := w.read(t, "out/heap.txt"); after != before {
		t.Fatalf("a failed run changed the earlier OUT:\n%s", after)
	}
	noOutLeftovers(t, w, "the failed run")
}

func TestNullFloorRefusesForeignOut(t *testing.T) {
	w := measureWorld(t)
	// Each OUT holds something null-floor.sh does not write, which replacing OUT would delete.
	for _, foreign := range []string{"notes.md", ".hidden", "..dots", "heap.txt/inside"} {
		dir := "docs-" + strings.NewReplacer("/", "-", ".", "_").Replace(foreign)
		w.write(t, dir+"/"+foreign, "not ours\n")
		name := strings.Split(foreign, "/")[0]
		wantOneLineError(t, w.run(t, "null-floor.sh", w.path(dir)),
			"holds "+name+", which null-floor.sh does not write: name a new directory")
		if !w.exists(dir + "/" + foreign) {
			t.Fatalf("null-floor.sh removed %s, which it did not write", foreign)
		}
	}
	wantOneLineError(t, w.run(t, "null-floor.sh", w.path("no/such/out")), "no directory "+w.path("no/such"))
	if w.exists("build/floor/null") {
		t.Fatal("a refused OUT still derived the null toolchain")
	}
}
