package xbench

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"golang.org/x/perf/benchfmt"

	"timerlab/internal/suite"
)

// The fixtures under testdata are output of real sweet and bent runs: testdata/README.md has the
// commands.

func set(t *testing.T, name string) suite.Set {
	t.Helper()
	s, ok := suite.Find(suite.Sets(false), name)
	if !ok {
		t.Fatalf("no set %s", name)
	}
	return s
}

// parseResults parses Go benchmark output into "pkg name" -> units, tidied as benchstat does.
func parseResults(t *testing.T, output []byte) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	r := benchfmt.NewReader(bytes.NewReader(output), "output")
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("malformed: %v", rec)
		case *benchfmt.Result:
			id := rec.GetConfig("pkg") + " " + string(rec.Name.Full())
			for _, v := range rec.Values {
				out[id] = append(out[id], v.Unit)
			}
		}
	}
	return out
}

// TestSweetResults reads the results directory of a real sweet run: each benchmark's results under
// its driver's package, with sweet's figures.
func TestSweetResults(t *testing.T) {
	for _, tc := range []struct {
		set  string
		want map[string][]string // result -> some of its units
	}{
		{"sweet-etcd", map[string][]string{
			"golang.org/x/benchmarks/sweet/benchmarks/etcd EtcdPut-2": {"sec/op", "ops/s", "p50-latency-sec", "p99-latency-sec"},
			"golang.org/x/benchmarks/sweet/benchmarks/etcd EtcdSTM-2": {"sec/op", "ops/s", "p90-latency-sec", "peak-RSS-bytes"},
		}},
		{"sweet-controls", map[string][]string{
			"golang.org/x/benchmarks/sweet/benchmarks/gopher-lua GopherLuaKNucleotide-2": {"sec/op", "average-RSS-bytes"},
			"golang.org/x/benchmarks/sweet/benchmarks/markdown MarkdownRenderXHTML-2":    {"sec/op", "peak-VM-bytes"},
		}},
	} {
		out, err := SweetResults("testdata/sweet/results", set(t, tc.set), "heap")
		if err != nil {
			t.Fatalf("%s: %v", tc.set, err)
		}
		got := parseResults(t, out)
		if len(got) != len(tc.want) {
			t.Errorf("%s: results %v, want %d", tc.set, got, len(tc.want))
		}
		for id, units := range tc.want {
			for _, u := range units {
				if !slices.Contains(got[id], u) {
					t.Errorf("%s: %s has units %v, want %s among them", tc.set, id, got[id], u)
				}
			}
		}
	}
}

// TestSweetResultsRefusesBadOutput checks that results sweet did not write, malformed results or
// results lacking a benchmark the set expects are refused with one line naming what is wrong.
func TestSweetResultsRefusesBadOutput(t *testing.T) {
	etcd := set(t, "sweet-etcd")
	_, err := SweetResults("testdata/sweet/results", etcd, "wheel")
	oneLine(t, "no results for the config", err, "sweet wrote no results for etcd")

	dir := t.TempDir()
	good, err := os.ReadFile("testdata/sweet/results/etcd/heap.results")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "etcd"), 0o755)
	for what, c := range map[string]struct{ data, want string }{
		"malformed": {strings.Replace(string(good), " ns/op", " ns/op 12", 1), "malformed"},
		"no STM":    {strings.Split(string(good), "\n")[0] + "\n", "no result for golang.org/x/benchmarks/sweet/benchmarks/etcd BenchmarkEtcdSTM"},
		"empty":     {"", "no result for"},
	} {
		os.WriteFile(filepath.Join(dir, "etcd", "heap.results"), []byte(c.data), 0o644)
		_, err := SweetResults(dir, etcd, "heap")
		oneLine(t, what, err, c.want)
	}
}

// TestBentResults checks the stdout of real bent runs, with the pprof text its cpuprofile wrapper
// prints between results and without: every benchmark of the set is found, nothing is malformed;
// a benchmark bent dropped is named.
func TestBentResults(t *testing.T) {
	bent := set(t, "bent")
	for _, f := range []string{"testdata/bent/heap.stdout", "testdata/bent/heap-cpuprofile.stdout"} {
		out, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := BentResults(out, bent); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		got := parseResults(t, out)
		if len(got) != len(bent.XBench) {
			t.Errorf("%s: %d results, want one per benchmark of the set: %v", f, len(got), got)
		}
		var kept []string
		for _, line := range strings.Split(string(out), "\n") {
			if !strings.HasPrefix(line, "BenchmarkParallelBrodcast") {
				kept = append(kept, line)
			}
		}
		err = BentResults([]byte(strings.Join(kept, "\n")), bent)
		oneLine(t, "bent output without ParallelBrodcast", err, "github.com/dustin/go-broadcast BenchmarkParallelBrodcast")
	}
}

// TestMergeProfiles merges the profiles of a real sweet run (etcd's Put and STM, each already the
// merge of three servers' profiles) and of a real bent run (a profile per test binary): the merge
// holds every sample and parses as pprof writes it; no profile, or one that does not parse, is an
// error.
func TestMergeProfiles(t *testing.T) {
	for _, pattern := range []string{"testdata/sweet/results/etcd/heap.debug/*-cpu.prof", "testdata/bent/heap.profiles/*.prof"} {
		files, _ := filepath.Glob(pattern)
		if len(files) < 2 {
			t.Fatalf("%s: %d profiles", pattern, len(files))
		}
		var want int64
		for _, f := range files {
			want += cpuNanos(t, mustRead(t, f))
		}
		data, err := MergeProfiles(files)
		if err != nil {
			t.Fatal(err)
		}
		if got := cpuNanos(t, data); got != want {
			t.Errorf("%s: merged %d ns of CPU, want the sum %d", pattern, got, want)
		}
	}
	if _, err := MergeProfiles(nil); err == nil {
		t.Error("no profiles merged")
	}
	bad := filepath.Join(t.TempDir(), "bad-cpu.prof")
	os.WriteFile(bad, []byte("not a profile"), 0o644)
	files, _ := filepath.Glob("testdata/bent/heap.profiles/*.prof")
	if _, err := MergeProfiles(append(files, bad)); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a file that is no profile: %v, want an error naming it", err)
	}
}

// cpuNanos is the CPU time a profile holds.
func cpuNanos(t *testing.T, data []byte) int64 {
	t.Helper()
	p, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	i := len(p.SampleType) - 1
	for j, st := range p.SampleType {
		if st.Type == "cpu" {
			i = j
		}
	}
	var n int64
	for _, s := range p.Sample {
		n += s.Value[i]
	}
	return n
}

// TestBentBenchmarksAccepted checks the benchmarks file written for the bent set against the one
// real bent ran (testdata/README.md).
func TestBentBenchmarksAccepted(t *testing.T) {
	got, err := BentBenchmarks(set(t, "bent"))
	if err != nil {
		t.Fatal(err)
	}
	if want := mustRead(t, "testdata/bent/timerlab-bent.toml"); !bytes.Equal(got, want) {
		t.Errorf("the bent set's benchmarks file differs from the one bent ran:\n%s", got)
	}
}

// TestBentOutputs checks which of bent's output files belong to a configuration: STAMP.CONFIG.KIND,
// CONFIG whole, dots in it included.
func TestBentOutputs(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "bench"), 0o755)
	for _, f := range []string{"20261126T072226.slack-12.5pct.stdout", "20261126T072226.5pct.stdout",
		"20261126T072226.slack.stdout", "20261126T072226.wheel-slack.stdout", "20261126T072226.slack.build"} {
		os.WriteFile(filepath.Join(dir, "bench", f), nil, 0o644)
	}
	for config, want := range map[string]int{"slack-12.5pct": 1, "5pct": 1, "slack": 2, "heap": 0} {
		if got, _ := bentOutputs(dir, config); len(got) != want {
			t.Errorf("outputs of %s: %v, want %d", config, got, want)
		}
	}
	if _, err := bentOutput(dir, "slack", "stdout"); err != nil {
		t.Error(err)
	}
	clearBentOutput(dir, "slack")
	if _, err := bentOutput(dir, "slack", "stdout"); err == nil {
		t.Error("slack's stdout is still there after clearBentOutput")
	}
	if got, _ := bentOutputs(dir, "wheel-slack"); len(got) != 1 {
		t.Errorf("clearBentOutput of slack took wheel-slack's: %v", got)
	}
}

// TestStandInAssets checks the stand-in assets: the same bytes every time, the entry points sweet's
// gopher-lua driver calls, markdown documents; and that writeAssets leaves a complete directory.
func TestStandInAssets(t *testing.T) {
	a, b := standInAssets(), standInAssets()
	for bench, files := range a {
		for name, content := range files {
			if b[bench][name] != content {
				t.Errorf("%s/%s differs between two calls", bench, name)
			}
		}
	}
	lua := a["gopher-lua"]["k-nucleotide.lua"]
	for _, fn := range []string{"function frequency(seq, k)", "function count(seq, frag)"} {
		if !strings.Contains(lua, fn) {
			t.Errorf("k-nucleotide.lua lacks %q", fn)
		}
	}
	if dna := a["gopher-lua"]["input.txt"]; strings.Trim(dna, "ACGT\n") != "" || len(dna) < 1e6 {
		t.Errorf("input.txt: %d bytes, not only bases", len(dna))
	}
	md := 0
	for name, content := range a["markdown"] {
		if strings.HasSuffix(name, ".md") {
			md++
			if !strings.Contains(content, "\n## ") || !strings.Contains(content, "| --- |") {
				t.Errorf("%s has no heading or table", name)
			}
		}
	}
	if md < 10 {
		t.Errorf("%d markdown documents", md)
	}
	dir := filepath.Join(t.TempDir(), "assets")
	if err := writeAssets(dir); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, filepath.Join(dir, "gopher-lua", "k-nucleotide.lua")); string(got) != lua {
		t.Error("writeAssets wrote another k-nucleotide.lua")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".assets-*")); len(leftovers) > 0 {
		t.Errorf("writeAssets left %v", leftovers)
	}
}
