package layout

import (
	"os"
	"path/filepath"
	"testing"

	"timerlab/internal/lab"
)

// TestHeapLayout checks that the heap variant keeps pristine upstream's
// layout, on a 64-bit port and two 32-bit ones. runtime.timer,
// runtime.timers and runtime.timerWhen have upstream's sizes. runtime.p
// has upstream's size plus that of runtime.timerStats, the per-P counts
// of the lab's metrics, and nothing else: an empty hook field placed last
// in a struct adds padding, which this catches. It needs the heap and
// upstream toolchains: make test-layout sets TIMERLAB_LAYOUT=1 once they
// are built, and the test is skipped without it.
func TestHeapLayout(t *testing.T) {
	if os.Getenv("TIMERLAB_LAYOUT") == "" {
		t.Skip("TIMERLAB_LAYOUT is not set (make test-layout sets it)")
	}
	root, err := lab.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	tcs := filepath.Join(lab.NewLayout(root).Build, "toolchains")
	if !filepath.IsAbs(tcs) {
		tcs = filepath.Join(root, tcs)
	}
	for _, v := range []string{"heap", "upstream"} {
		if _, err := os.Stat(filepath.Join(tcs, v, "bin", "go")); err != nil {
			t.Fatalf("no %s toolchain: run scripts/build-toolchain.sh %s", v, v)
		}
	}
	same := []string{"runtime.timer", "runtime.timers", "runtime.timerWhen"}
	for _, port := range []struct{ goarch, goarm string }{{"amd64", ""}, {"386", ""}, {"arm", "6"}} {
		dir := t.TempDir()
		sizes := map[string]map[string]int64{}
		for _, v := range []string{"heap", "upstream"} {
			bin, err := Probe(filepath.Join(tcs, v), dir, "linux", port.goarch, port.goarm)
			if err != nil {
				t.Fatal(err)
			}
			names := append(append([]string{}, same...), "runtime.p")
			if v == "heap" {
				names = append(names, "runtime.timerStats")
			}
			if sizes[v], err = Sizes(bin, names...); err != nil {
				t.Fatal(err)
			}
		}
		h, u := sizes["heap"], sizes["upstream"]
		for _, n := range same {
			if h[n] != u[n] {
				t.Errorf("%s: %s is %d bytes under heap, %d under upstream", port.goarch, n, h[n], u[n])
			}
		}
		if want := u["runtime.p"] + h["runtime.timerStats"]; h["runtime.p"] != want {
			t.Errorf("%s: runtime.p is %d bytes under heap; want upstream's %d plus runtime.timerStats's %d = %d",
				port.goarch, h["runtime.p"], u["runtime.p"], h["runtime.timerStats"], want)
		}
	}
}
