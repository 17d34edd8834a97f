package experiment

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"timerlab/internal/lab"
	"timerlab/internal/labtest"
	"timerlab/internal/matrix"
	"timerlab/internal/results"
	"timerlab/internal/toolchain"
)

// benchFile is a test file with a short timer benchmark, and one that matches no pattern the tests use.
const benchFile = `package %s

import (
	"testing"
	"time"
)

func BenchmarkStopTimer(b *testing.B) {
	b.Benchtime()
	for range b.N {
		time.AfterFunc(time.Hour, func() {}).Stop()
	}
}

func BenchmarkUnselected(b *testing.B) {}
`

// moduleFiles returns the files of a module called path with one package of name, with
// benchFile's benchmarks (without its benchtime call, which is there to break it).
func moduleFiles(path, name string, broken bool) map[string]string {
	src := strings.Replace(benchFile, "%s", name, 1)
	if !broken {
		src = strings.Replace(src, "\tb.Benchtime()\n", "", 1)
	}
	return map[string]string{"go.mod": "module " + path + "\n\ngo 1.22\n", name + ".go": "package " + name + "\n",
		name + "_test.go": src}
}

// writeModule writes moduleFiles(path, name, broken) in dir.
func writeModule(t *testing.T, dir, path, name string, broken bool) {
	t.Helper()
	for f, text := range moduleFiles(path, name, broken) {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeProxy serves the module example.com/dep at v1.0.0, of moduleFiles, through
// labtest.FakeProxy.
func fakeProxy(t *testing.T) {
	t.Helper()
	labtest.FakeProxy(t, labtest.Module{Path: "example.com/dep", Version: "v1.0.0",
		Files: moduleFiles("example.com/dep", "dep", false)})
}

// TestResolvePackages checks what --pkg resolves each kind of argument to, and that a package
// that does not exist, one that does not build, a module version that does not exist and a
// pattern that selects nothing are refused in one line that names the cause.
func TestResolvePackages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	labtest.FakeBuild(t, "heap", "upstream")
	fakeProxy(t)
	l := checkout(t)
	var tcs []*toolchain.Toolchain
	for _, v := range []lab.Variant{{Name: "heap", Toolchain: "heap"}, {Name: "upstream", Toolchain: "upstream"}} {
		tcs = append(tcs, &toolchain.Toolchain{Variant: v, GOROOT: l.ToolchainDir(v.Toolchain)})
	}
	local, broken := t.TempDir(), t.TempDir()
	writeModule(t, local, "example.com/mine", "mine", false)
	writeModule(t, broken, "example.com/broken", "broken", true)
	work := t.TempDir()

	got, err := resolvePackages(t.Context(), tcs, []string{local, "example.com/dep@latest", "errors"}, "StopTimer|^BenchmarkIs$", work)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, path, version, dir, expect string }{
		{"pkg-example-com-mine", "example.com/mine", "", local, "StopTimer"},
		{"pkg-example-com-dep-v1-0-0", "example.com/dep", "v1.0.0", "", "StopTimer"},
		{"pkg-errors", "errors", "", "", "Is"},
	}
	for i, w := range want {
		if i >= len(got) {
			t.Fatalf("resolved %d sets, want %d", len(got), len(want))
		}
		g := got[i]
		if g.name != w.name || g.pkg.Path != w.path || g.pkg.Version != w.version || g.pkg.Dir != w.dir ||
			strings.Join(g.pkg.Expect, ",") != w.expect {
			t.Errorf("set %d: %s %+v, want %+v", i, g.name, g.pkg, w)
		}
	}
	if dep := got[1]; !strings.Contains(string(dep.goMod), "example.com/dep v1.0.0") || len(dep.goSum) == 0 {
		t.Errorf("the module of example.com/dep@v1.0.0: go.mod %q, go.sum %q", dep.goMod, dep.goSum)
	}

	for _, tc := range []struct {
		args  []string
		bench string
		want  string
	}{
		{[]string{"no/such/pkg"}, ".", "no such package in the standard library"},
		{[]string{filepath.Join(local, "missing")}, ".", "no such directory"},
		{[]string{broken}, ".", "does not build with heap: "},
		{[]string{"example.com/dep@v9.9.9"}, ".", "--pkg example.com/dep@v9.9.9: "},
		{[]string{local}, "NoSuchBenchmark", "no benchmark matches --bench NoSuchBenchmark"},
		{[]string{local}, "a(", "--bench: "},
		{[]string{local, local}, ".", "make the same set, pkg-example-com-mine"},
		{[]string{local}, "StopTimer/nosuch", "no benchmark matches --bench StopTimer/nosuch"},
	} {
		_, err := resolvePackages(t.Context(), tcs, tc.args, tc.bench, work)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("--pkg %s --bench %s: %v, want one line with %q", tc.args, tc.bench, err, tc.want)
		}
	}
}

// TestBenchPackages runs a matrix of a module's package at a version (cmd/timerlab's
// TestBenchPackage runs a local module's), and checks what it records: the package in
// matrix.json, the module that requires the version, and every variant's results; a refused
// package leaves nothing written, and the same command again finds every cell done.
func TestBenchPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	build := labtest.FakeBuild(t, "heap", "upstream")
	fakeProxy(t)
	l, out := checkout(t), filepath.Join(build, "results-pkg")
	o := Options{Variants: []string{"heap", "upstream"}, Packages: []string{"no/such/pkg"}, Bench: "StopTimer",
		Rounds: 1, Count: 1, Timeout: 5 * time.Minute}
	if err := Bench(t.Context(), l, o, out); err == nil {
		t.Fatal("a package that does not exist was accepted")
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused package created %s", out)
	}
	o.Packages = []string{"example.com/dep@v1.0.0"}
	if err := Bench(t.Context(), l, o, out); err != nil {
		t.Fatal(err)
	}
	spec, err := matrix.ReadSpec(out)
	if err != nil {
		t.Fatal(err)
	}
	sets := []string{"pkg-example-com-dep-v1-0-0"}
	if !slices.Equal(spec.Sets, sets) || spec.Packages[sets[0]].Version != "v1.0.0" {
		t.Errorf("matrix.json: %+v", spec)
	}
	if mod, err := os.ReadFile(filepath.Join(out, "packages", sets[0], "go.mod")); err != nil ||
		!strings.Contains(string(mod), "example.com/dep v1.0.0") {
		t.Errorf("the module requiring example.com/dep: %q, %v", mod, err)
	}
	for _, v := range []string{"heap", "upstream"} {
		raw, _ := os.ReadFile(filepath.Join(out, "raw", v+".txt"))
		if !strings.Contains(string(raw), "pkg: example.com/dep") || !strings.Contains(string(raw), "BenchmarkStopTimer") ||
			strings.Contains(string(raw), "Unselected") {
			t.Errorf("raw/%s.txt lacks example.com/dep's StopTimer, or has Unselected:\n%s", v, raw)
		}
		if _, err := os.Stat(filepath.Join(out, results.ProfilePath(v, sets[0]))); err != nil {
			t.Error(err)
		}
	}
	round := filepath.Join(out, matrix.Cell{Kind: matrix.Run, Variant: "heap", Set: sets[0], Round: 1}.Path())
	before, _ := os.Stat(round)
	if err := Bench(t.Context(), l, o, out); err != nil {
		t.Fatalf("the same command again: %v", err)
	}
	if after, _ := os.Stat(round); !after.ModTime().Equal(before.ModTime()) {
		t.Error("a finished cell was run again")
	}
}
