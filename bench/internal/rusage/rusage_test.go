package rusage

import (
	"testing"
	"time"
)

// TestReadCountsCPU checks that Read sees CPU time this process spends.
func TestReadCountsCPU(t *testing.T) {
	before := Read(t)
	for x, deadline := 0, time.Now().Add(50*time.Millisecond); time.Now().Before(deadline); x++ {
		_ = x * x
	}
	if used := Read(t).CPU - before.CPU; used <= 0 {
		t.Errorf("50ms of spinning used %v CPU by getrusage, want > 0", used)
	}
}

// TestReadCountsSwitches checks that Read sees the voluntary context switches of a blocking sleep.
func TestReadCountsSwitches(t *testing.T) {
	before := Read(t)
	for range 5 {
		time.Sleep(5 * time.Millisecond)
	}
	if n := Read(t).VCSW - before.VCSW; n <= 0 {
		t.Errorf("5 sleeps of 5ms made %d voluntary context switches, want > 0", n)
	}
}
