package verify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
