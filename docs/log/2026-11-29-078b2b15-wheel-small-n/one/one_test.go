package one

import (
	"testing"
	"time"
)

func nop() {}

// BenchmarkAfterFunc30sStop is a per-request timeout: one timer live, started and stopped at once.
func BenchmarkAfterFunc30sStop(b *testing.B) {
	for b.Loop() {
		time.AfterFunc(30*time.Second, nop).Stop()
	}
}
