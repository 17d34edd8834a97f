package timerstats

import (
	"math"
	"runtime/metrics"
	"testing"
	"time"
)

// supported reports whether the running toolchain describes the metric name.
func supported(name string) bool {
	for _, d := range metrics.All() {
		if d.Name == name {
			return true
		}
	}
	return false
}

func TestReadMatchesToolchain(t *testing.T) {
	before := Read()
	if before.slackOK != supported(slackMetric) {
		t.Errorf("Read slackOK = %v, but the toolchain describes %s: %v", before.slackOK, slackMetric, supported(slackMetric))
	}
	if before.deferOK != supported(deferralsMetric) {
		t.Errorf("Read deferOK = %v, but the toolchain describes %s: %v", before.deferOK, deferralsMetric, supported(deferralsMetric))
	}
	if before.ok != supported(wakeupsMetric) {
		t.Errorf("Read ok = %v, but the toolchain describes %s: %v", before.ok, wakeupsMetric, supported(wakeupsMetric))
	}
	if before.firedOK != supported(firedMetric) {
		t.Fatalf("Read firedOK = %v, but the toolchain describes %s: %v", before.firedOK, firedMetric, supported(firedMetric))
	}
	if !before.firedOK {
		t.Skip("this toolchain does not count fired timers")
	}
	// A channel timer, not AfterFunc: the null floor's AfterFunc timers never fire (docs/wheel.md),
	// and make test-metrics runs this test with every toolchain.
	<-time.After(time.Millisecond)
	if after := Read(); after.fired <= before.fired {
		t.Fatalf("fired did not grow across a timer firing: %d -> %d", before.fired, after.fired)
	}
}

func TestMedian(t *testing.T) {
	inf := math.Inf(1)
	buckets := []float64{math.Inf(-1), 0, 10e-6, 20e-6, 40e-6, inf}
	for _, tc := range []struct {
		counts []uint64
		want   float64
	}{
		{[]uint64{0, 0, 0, 0, 0}, 0},     // empty
		{[]uint64{0, 0, 4, 0, 0}, 15e-6}, // one bucket: its middle
		{[]uint64{0, 1, 3, 0, 0}, 10e-6 + 10e-6*(2-1)/3.0},
		{[]uint64{0, 2, 0, 2, 0}, 10e-6}, // the median falls between buckets: their boundary
		{[]uint64{0, 0, 0, 0, 5}, 40e-6}, // the open last bucket: its finite bound
		{[]uint64{3, 0, 0, 0, 0}, 0},     // the open first bucket: its finite bound
		{[]uint64{0, 1, 1, 1, 0}, 15e-6}, // three samples: the middle one's bucket
	} {
		if got := median(tc.counts, buckets); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("median(%v) = %g, want %g", tc.counts, got, tc.want)
		}
	}
}

// TestSlackWithoutMetrics checks Slack is 0, not an error, where the slack metrics are absent or
// no timer got slack, and is the median of the growth between two snapshots otherwise.
func TestSlackWithoutMetrics(t *testing.T) {
	if got := Slack(Snapshot{}, Snapshot{}); got != 0 {
		t.Errorf("Slack without the metrics = %v", got)
	}
	buckets := []float64{0, 50e-6, 1e-3}
	before := Snapshot{slackOK: true, slack: []uint64{7, 0}, buckets: buckets}
	if got := Slack(before, before); got != 0 {
		t.Errorf("Slack with no timer armed in between = %v", got)
	}
	after := Snapshot{slackOK: true, slack: []uint64{7, 10}, buckets: buckets}
	if got, want := Slack(before, after), time.Duration(525e3); got != want {
		t.Errorf("Slack = %v, want %v: the 7 earlier samples must not count", got, want)
	}
}
