package timerstats

import (
	"runtime/metrics"
	"testing"
	"time"
)

// supported reports whether the running toolchain describes the timer metrics.
func supported() bool {
	for _, d := range metrics.All() {
		if d.Name == "/sched/timers/fired:timers" {
			return true
		}
	}
	return false
}

func TestReadMatchesToolchain(t *testing.T) {
	before := Read()
	if before.ok != supported() {
		t.Fatalf("Read ok = %v, but the toolchain describes the timer metrics: %v", before.ok, supported())
	}
	if !before.ok {
		t.Skip("this toolchain has no /sched/timers/ metrics")
	}
	done := make(chan bool)
	time.AfterFunc(time.Millisecond, func() { done <- true })
	<-done
	if after := Read(); after.fired <= before.fired {
		t.Fatalf("fired did not grow across a timer firing: %d -> %d", before.fired, after.fired)
	}
}
