package verify

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"timerlab/internal/matrix"
	"timerlab/internal/results"
)

// copyResults copies the recorded results of the report tests into a temporary directory.
func copyResults(t *testing.T) string {
	dir := t.TempDir()
	if err := exec.Command("cp", "-R", "../report/testdata/results/.", dir).Run(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRecordedResultsVerify(t *testing.T) {
	if err := Results(copyResults(t)); err != nil {
		t.Error(err)
	}
}

func TestCorruptProfileFails(t *testing.T) {
	dir := copyResults(t)
	bad := filepath.Join(dir, "profiles", "heap", "timers.pb.gz")
	os.WriteFile(bad, []byte("not a profile"), 0o644)
	if err := Results(dir); err == nil || !strings.Contains(err.Error(), "timers.pb.gz") {
		t.Errorf("corrupt profile: %v", err)
	}
}

// TestAliasNeedsOnlyItsSetsProfiles: a variant that the matrix restricts to some sets (an alias)
// verifies without profiles of the others, and fails without one of its own.
func TestAliasNeedsOnlyItsSetsProfiles(t *testing.T) {
	dir := copyResults(t)
	spec, err := matrix.ReadSpec(dir)
	if err != nil {
		t.Fatal(err)
	}
	spec.Only = map[string][]string{"upstream": {"wakeups"}}
	data, _ := json.Marshal(spec)
	if err := os.WriteFile(filepath.Join(dir, "matrix.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, set := range spec.Sets {
		if set != "wakeups" {
			os.Remove(filepath.Join(dir, results.ProfilePath("upstream", set)))
		}
	}
	if err := Results(dir); err != nil {
		t.Errorf("alias without profiles of sets it does not run: %v", err)
	}
	os.Remove(filepath.Join(dir, results.ProfilePath("upstream", "wakeups")))
	if err := Results(dir); err == nil || !strings.Contains(err.Error(), "wakeups.pb.gz") {
		t.Errorf("alias without the profile of its own set: %v", err)
	}
}

func TestMalformedRawLineFails(t *testing.T) {
	dir := copyResults(t)
	f, _ := os.OpenFile(filepath.Join(dir, "raw", "upstream.txt"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("BenchmarkBroken-2 x y\n")
	f.Close()
	if err := Results(dir); err == nil || !strings.Contains(err.Error(), "upstream.txt") {
		t.Errorf("malformed raw line: %v", err)
	}
}

func TestBadSVGFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.svg")
	os.WriteFile(file, []byte("<svg><g></svg>"), 0o644)
	if err := XMLFile(file); err == nil {
		t.Error("malformed SVG parsed")
	}
}

// TestReportWithoutTablesFails checks a results.md without a verdict, or without a table of
// results, is refused, and one with both passes.
func TestReportWithoutTablesFails(t *testing.T) {
	docs := t.TempDir()
	for _, tc := range []struct {
		md   string
		want string
	}{
		{"# timerlab results\n\n| benchmark | unit | heap |\n| --- | --- | --- |\n", "no verdict"},
		{"# timerlab results\n\n## Verdict\n\nNo verdict.\n", "no table of results"},
		{"# timerlab results\n\n## Verdict\n\n| benchmark | unit | heap |\n| --- | --- | --- |\n", ""},
	} {
		os.WriteFile(filepath.Join(docs, "results.md"), []byte(tc.md), 0o644)
		err := Report(docs)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("results.md %q: %v, want %q", tc.md, err, tc.want)
		}
	}
}

// TestIncompleteResultsFail checks each way a results directory falls short of complete is refused
// in one line that names what: a raw file missing, empty, or without some of its run cells; a
// profile missing.
func TestIncompleteResultsFail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(dir string)
		want   string
	}{
		{"raw missing", func(dir string) { os.Remove(filepath.Join(dir, "raw", "upstream.txt")) },
			"raw/upstream.txt: missing"},
		{"raw empty", func(dir string) { os.WriteFile(filepath.Join(dir, "raw", "upstream.txt"), nil, 0o644) },
			"raw/upstream.txt: no benchmark results"},
		{"runs missing", func(dir string) { dropLines(t, filepath.Join(dir, "raw", "heap.txt"), "# run heap wakeups round 3") },
			"raw/heap.txt: lacks the runs of wakeups round 3"},
		{"profile missing", func(dir string) { os.Remove(filepath.Join(dir, "profiles", "heap", "wakeups.pb.gz")) },
			"profiles/heap/wakeups.pb.gz: missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyResults(t)
			tc.break_(dir)
			err := Results(dir)
			if err == nil || !strings.HasPrefix(err.Error(), dir+" is incomplete: ") || !strings.Contains(err.Error(), tc.want) ||
				strings.Contains(err.Error(), "\n") {
				t.Errorf("Results: %v, want one line with %q", err, tc.want)
			}
			c, err := Inspect(dir)
			if err != nil || len(c.Gaps) != 1 || !strings.HasPrefix(c.Gaps[0], tc.want) {
				t.Errorf("Inspect: %v, gaps %q; want the one gap %q", err, c.Gaps, tc.want)
			}
		})
	}
}

// TestMissingBenchmarkWarns checks that a benchmark a set expects, absent from runs that all ran
// (the toolchain lacks it, or it skipped itself), is a warning, not a gap.
func TestMissingBenchmarkWarns(t *testing.T) {
	dir := copyResults(t)
	dropLines(t, filepath.Join(dir, "raw", "heap.txt"), "BenchmarkDeadlineChurn")
	if err := Results(dir); err != nil {
		t.Errorf("Results: %v", err)
	}
	c, err := Inspect(dir)
	want := []string{"set deadline: no results for BenchmarkDeadlineChurn with heap"}
	if err != nil || len(c.Gaps) > 0 || !slices.Equal(c.Warnings, want) {
		t.Errorf("Inspect: %v, gaps %q, warnings %q; want the warning %q", err, c.Gaps, c.Warnings, want)
	}
}

// dropLines removes from the file path the lines starting with prefix.
func dropLines(t *testing.T, path, prefix string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, prefix) {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUnknownNamesFail checks that a matrix naming sets this timerlab does not know, or variants
// env.json does not describe, is refused, every name at once.
func TestUnknownNamesFail(t *testing.T) {
	dir := copyResults(t)
	spec, err := matrix.ReadSpec(dir)
	if err != nil {
		t.Fatal(err)
	}
	spec.Sets = append(spec.Sets, "nosuch", "nonesuch")
	data, _ := json.Marshal(spec)
	os.WriteFile(filepath.Join(dir, "matrix.json"), data, 0o644)
	if err := Results(dir); err == nil || !strings.Contains(err.Error(), `names the benchmark sets "nosuch", "nonesuch", unknown`) {
		t.Errorf("unknown sets: %v", err)
	}
	spec.Sets = spec.Sets[:len(spec.Sets)-2]
	spec.Variants = append(spec.Variants, "ghost")
	data, _ = json.Marshal(spec)
	os.WriteFile(filepath.Join(dir, "matrix.json"), data, 0o644)
	if err := Results(dir); err == nil || !strings.Contains(err.Error(), `names the variant "ghost", whose toolchain`) {
		t.Errorf("a variant env.json does not describe: %v", err)
	}
}

// TestSource checks that a report records the results it was rendered from: the digest of those
// results, or of a copy of them, matches; that of other results, or of the same ones changed, does
// not; and a report that records none is refused.
func TestSource(t *testing.T) {
	dir := copyResults(t)
	spec, err := matrix.ReadSpec(dir)
	if err != nil {
		t.Fatal(err)
	}
	digest, err := results.Digest(dir, spec)
	if err != nil {
		t.Fatal(err)
	}
	docs := t.TempDir()
	md := "<!-- Generated by `timerlab report` from results. -->\n" + SourceLine(SourceResults, "results", digest) +
		"\n# timerlab results\n"
	os.WriteFile(filepath.Join(docs, "results.md"), []byte(md), 0o644)
	if err := Source(docs, dir); err != nil {
		t.Errorf("the results it was rendered from: %v", err)
	}
	if err := Source(docs, copyResults(t)); err != nil {
		t.Errorf("a copy of them: %v", err)
	}
	xbench := "../report/testdata/xbench"
	if err := Source(docs, xbench); err == nil || !strings.Contains(err.Error(), "rendered from other results") {
		t.Errorf("other results: %v", err)
	}
	xspec, err := matrix.ReadSpec(xbench)
	if err != nil {
		t.Fatal(err)
	}
	xdigest, err := results.Digest(xbench, xspec)
	if err != nil {
		t.Fatal(err)
	}
	withX := md[:strings.Index(md, "\n# ")] + SourceLine(SourceXBench, "xbench", xdigest) + md[strings.Index(md, "\n# "):]
	os.WriteFile(filepath.Join(docs, "results.md"), []byte(withX), 0o644)
	if err := Source(docs, xbench); err != nil {
		t.Errorf("the results of its golang.org/x/benchmarks section: %v", err)
	}
	f, _ := os.OpenFile(filepath.Join(dir, "raw", "heap.txt"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("# another line\n")
	f.Close()
	if err := Source(docs, dir); err == nil || !strings.Contains(err.Error(), "rendered from other results") {
		t.Errorf("the results changed since: %v", err)
	}
	os.WriteFile(filepath.Join(docs, "results.md"), []byte("# timerlab results\n"), 0o644)
	if err := Source(docs, dir); err == nil || !strings.Contains(err.Error(), "records no results it was rendered from") {
		t.Errorf("a report that records no source: %v", err)
	}
}
