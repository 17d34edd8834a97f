package scripts_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nullAnchor is the line of needsAdd that null-floor.sh changes the heap toolchain after.
const nullAnchor = "\tneed := t.state&timerHeaped == 0 && t.when > 0 && (!t.isChan || t.blocked > 0)\n"

// fakeNullGo stands in for a toolchain's go: `go run` prints "null" when its GOROOT's time.go holds
// null-floor.sh's change (an AfterFunc timer would not fire) and "fired" otherwise.
const fakeNullGo = `#!/bin/sh
case $1 in
run) grep -q 'timerlab null floor' "$(dirname "$0")/../src/runtime/time.go" && echo null || echo fired ;;
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

// floorLeftovers lists what null-floor.sh left in build/floor besides a finished null toolchain.
func floorLeftovers(w *world) []string {
	ents, _ := os.ReadDir(w.path("build/floor"))
	var left []string
	for _, e := range ents {
		if e.Name() != "null" {
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

func TestNullFloorRefusesToolchainThatStillFires(t *testing.T) {
	w := newWorld(t)
	heapWithAnchor(t, w) // the fake go's `go run` prints a version line, not "null"
	r := w.run(t, "null-floor.sh", "--toolchain-only")
	wantOneLineError(t, r, "the null toolchain is not null")
	if w.exists("build/floor/null") || len(floorLeftovers(w)) > 0 {
		t.Fatalf("a null toolchain that failed its check left %v", floorLeftovers(w))
	}
}

func TestNullFloorDerivesFromHeapAndLeavesItAlone(t *testing.T) {
	w := newWorld(t)
	heapWithAnchor(t, w)
	w.write(t, "build/toolchains/heap/bin/go", fakeNullGo)
	heapTimeGo := w.read(t, "build/toolchains/heap/src/runtime/time.go")
	w.mustRun(t, "null-floor.sh", "--toolchain-only")

	nullTimeGo := w.read(t, "build/floor/null/src/runtime/time.go")
	change := nullAnchor + "\tif e := efaceOf(&t.arg); e._type != nil && e._type.Kind() == abi.Func {\n"
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
