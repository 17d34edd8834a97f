package report

import (
	"os/exec"
	"strings"
	"testing"
)

// TestReadsOnlyResults checks that the report depends on what reads a results directory alone, not
// on what installs the tools or runs a matrix: the installer of golang.org/x/benchmarks and its
// executor (internal/xbench), the go test executor, the instruction counter, the matrix's planner.
func TestReadsOnlyResults(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "timerlab/internal/report").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch pkg {
		case "timerlab/internal/xbench", "timerlab/internal/gotest", "timerlab/internal/instr",
			"timerlab/internal/experiment", "timerlab/internal/configs":
			t.Errorf("the report depends on %s", pkg)
		}
	}
}
