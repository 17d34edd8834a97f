// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package runtime_test

import (
	"fmt"
	"math"
	"runtime"
	"testing"
)

// TestTimerLatenessBuckets checks that a firing's lateness lands in the one
// bucket of /sched/timers/lateness:seconds that holds it, across the whole
// int64 range: the power-of-two index of the firing path and the bucket
// boundaries of the metric must agree.
func TestTimerLatenessBuckets(t *testing.T) {
	for _, d := range []int64{
		0, 1, 2, 3, 4, 5, 7, 8, 1000, 1023, 1024, 1025,
		1 << 20, 1<<20 + 1, 1<<40 - 1, 1<<40 + 12345, 1 << 52,
		1 << 62, 1<<62 + 1<<40, math.MaxInt64,
		-1, -1000, math.MinInt64,
	} {
		lo, hi := runtime.TimerLatenessBucket(d)
		if len(lo) != 1 {
			t.Errorf("lateness %d ns: added to %d buckets, want 1", d, len(lo))
			continue
		}
		s := float64(d) / 1e9
		if d < 0 {
			if hi[0] > 0 {
				t.Errorf("lateness %d ns: in bucket [%g, %g), want the bucket of negative lateness", d, lo[0], hi[0])
			}
			continue
		}
		if !(lo[0] <= s && s < hi[0]) {
			t.Errorf("lateness %d ns = %g s: in bucket [%g, %g)", d, s, lo[0], hi[0])
		}
		if !math.IsInf(hi[0], 1) && hi[0] > 2*math.Max(lo[0], 1e-9) {
			t.Errorf("lateness %d ns: bucket [%g, %g) is wider than a power of two", d, lo[0], hi[0])
		}
	}
}

// TestTimerMetricsProposed runs random sequences of AfterFunc, NewTimer,
// NewTicker, Stop, Reset (of pending timers and of others) and firings in
// a program of their own, which runs no other timer, and checks that the
// counters golang/go#75956 proposes moved exactly as the sequence says,
// and that total = expired + stopped + the change in pending.
func TestTimerMetricsProposed(t *testing.T) {
	for seed := range 4 {
		out := runTestProg(t, "testprog", "TimerMetricsSequence", "GOGC=off", fmt.Sprintf("TIMER_SEQ_SEED=%d", seed))
		var got, want [5]int64
		if _, err := fmt.Sscanf(out, "metrics %d %d %d %d %d\nmodel %d %d %d %d %d\n",
			&got[0], &got[1], &got[2], &got[3], &got[4], &want[0], &want[1], &want[2], &want[3], &want[4]); err != nil {
			t.Fatalf("seed %d: unexpected output %q", seed, out)
		}
		names := [5]string{"total", "expired", "stopped", "pending", "resets"}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("seed %d: %s moved by %d, want %d", seed, names[i], got[i], want[i])
			}
		}
		if got[0] != got[1]+got[2]+got[3] {
			t.Errorf("seed %d: total moved by %d, expired + stopped + pending by %d", seed, got[0], got[1]+got[2]+got[3])
		}
	}
}
