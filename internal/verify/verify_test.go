package verify

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
