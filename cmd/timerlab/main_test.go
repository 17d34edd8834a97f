package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"timerlab/internal/labtest"
)

// TestEndToEnd runs the commands as CI does, on a one-set quick matrix with two fake toolchains:
// bench, then report and verify of what it wrote; verify must refuse a truncated chart, and
// bench --prebuilt the flags that shape a matrix.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	build := labtest.FakeBuild(t, "heap", "upstream")
	out, docs := filepath.Join(build, "results"), filepath.Join(build, "docs")
	bench := []string{"--quick", "--variants", "heap,upstream", "--sets", "std-context", "--rounds", "1", "--out", out}
	if err := benchCmd(t.Context(), bench); err != nil {
		t.Fatal(err)
	}
	if err := reportCmd(t.Context(), []string{"--results", out, "--docs", docs}); err != nil {
		t.Fatal(err)
	}
	if err := verifyCmd(t.Context(), []string{out, "--docs", docs}); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(docs, "results.md"))
	if !strings.Contains(string(md), "| WithTimeout/concurrency=40-") {
		t.Errorf("report lacks the WithTimeout row:\n%s", md)
	}
	os.WriteFile(filepath.Join(docs, "results", "cost-vs-n.svg"), []byte("<svg>"), 0o644)
	if err := verifyCmd(t.Context(), []string{"--docs", docs, out}); err == nil {
		t.Error("verify passed a truncated chart")
	}
	err := benchCmd(t.Context(), []string{"--prebuilt", "--out", out, "--rounds", "2"})
	if err == nil || !strings.Contains(err.Error(), "drop --rounds") {
		t.Errorf("--prebuilt --rounds 2: %v, want it refused", err)
	}
}
