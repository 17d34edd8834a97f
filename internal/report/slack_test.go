package report

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

// testdata/slack is a recorded quick wakeups matrix with slack variants; see its README.md.
func loadSlack(t *testing.T) *Report {
	t.Helper()
	r, err := LoadPartial("testdata/slack")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) > 0 {
		t.Fatalf("warnings: %q", r.Warnings)
	}
	return r
}

// TestSlackTargets checks the slack sweep's rows against the figures testdata/slack/README.md works
// out from its raw files: ratios as the median of the pairwise ratios, with no interval and no
// significance from three runs, shares and values as medians, slack to two digits.
func TestSlackTargets(t *testing.T) {
	var b bytes.Buffer
	loadSlack(t).writeSummaries(&b)
	for _, want := range []string{
		"## Slack sweep",
		"| heap | - | 0 | ×1 | ×1 | — | 89% (—) | — | 0 | 2.20 (—) | ×1 | ×1 | ×1 |",
		"| slack | - | 980µs | ×1.02 (—) ~ | ×1.06 (—) ~ | — | 42% (—) | 1.36 (—) | 130µs | 1.24 (—) | ×4.85 (—) ~ | ×3.47 (—) ~ | ×2.33 (—) ~ |",
		"| slack-0 | timerslack=0 | 0 | ×1.29 (—) ~ | ×1.06 (—) ~ | — | 48% (—) | — | 0 | 2.21 (—) | ×1.02 (—) ~ | ×1.05 (—) ~ | ×1.13 (—) ~ |",
		"| slack-1ms | timerslack=1ms | 980µs | ×0.98 (—) ~ | ×1.13 (—) ~ | — | 37% (—) | 1.39 (—) | 980µs | 2.21 (—) | ×1.01 (—) ~ |",
		"| slack-12.5pct | timerslack=12.5% | 1.2ms | ×0.91 (—) ~ | ×0.93 (—) ~ | — | 45% (—) | 1.25 (—) | 64µs | 1.15 (—) | ×6.11 (—) ~ |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("slack targets lack %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "| upstream |") {
		t.Errorf("upstream, without slack, is in the slack targets:\n%s", b.String())
	}
}

// TestSlackTargetsFloor checks the CPU on 1 P column against the ratios testdata/floor/README.md
// works out from its raw files: each variant's CPU on one P over the baseline's at two.
func TestSlackTargetsFloor(t *testing.T) {
	r, err := LoadPartial("testdata/floor")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) > 0 {
		t.Fatalf("warnings: %q", r.Warnings)
	}
	var b bytes.Buffer
	r.writeSummaries(&b)
	for _, want := range []string{
		"| heap | - | 0 | ×1 | ×1 | ×0.82 (—) ~ |",
		"| slack | - | 980µs | ×0.39 (—) ~ | ×0.92 (—) ~ | ×0.78 (—) ~ |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("slack targets lack %q:\n%s", want, b.String())
		}
	}
}

func TestSlackTargetsWithoutSlackVariants(t *testing.T) {
	r, err := Load("testdata/results")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	r.writeSummaries(&b)
	if b.Len() > 0 {
		t.Errorf("slack targets for a run of heap and upstream:\n%s", b.String())
	}
}

// TestVsSlackCharts checks each variant sits at the slack it reported (slack-ns, in µs), also where
// its GODEBUG gives no duration (12.5%, or unset for the default policy); that a figure a variant
// lacks leaves it out; and that a workload without a figure gets no chart of it.
func TestVsSlackCharts(t *testing.T) {
	charts := map[string]savedChart{}
	for _, c := range loadSlack(t).charts() {
		charts[c.File] = c
	}
	points := func(file string) map[string]plotter.XY {
		t.Helper()
		c, ok := charts[file]
		if !ok {
			t.Fatalf("no chart %s", file)
		}
		pts := map[string]plotter.XY{}
		for _, s := range c.Chart.Series {
			pts[s.Name] = s.Points[0]
		}
		return pts
	}
	wakeups := points("staggeredtickers-timer-wakeups-vs-slack.svg")
	for v, want := range map[string]plotter.XY{"heap": {X: 0, Y: 533.3}, "slack": {X: 982.306, Y: 610},
		"slack-1ms": {X: 983.04, Y: 490.4}, "slack-12.5pct": {X: 1170.018, Y: 468.6}} {
		if got := wakeups[v]; !near(got, want) {
			t.Errorf("tickers timer wakeups: %s at %v, want %v", v, got, want)
		}
	}
	if _, ok := wakeups["upstream"]; ok {
		t.Error("upstream, without timer metrics, is on the timer wakeups chart")
	}
	if got := points("staggeredtickers-vcsw-vs-slack.svg")["upstream"]; !near(got, plotter.XY{X: 0, Y: 1879}) {
		t.Errorf("tickers vcsw: upstream at %v, want (0, 1879)", got)
	}
	if got := points("submssleep-late-p99-vs-slack.svg")["slack-12.5pct"]; !near(got, plotter.XY{X: 63.514, Y: 4593.136}) {
		t.Errorf("sleeps p99 lateness: slack-12.5pct at %v, want (63.514µs, 4593.136µs)", got)
	}
	for _, file := range []string{"staggeredtickers-cpu-vs-slack.svg", "staggeredtickers-late-p50-vs-slack.svg",
		"staggeredtickers-coalesce-eff-vs-slack.svg", "submssleep-timer-wakeups-vs-slack.svg", "submssleep-vcsw-vs-slack.svg"} {
		if charts[file].Chart.Empty() {
			t.Errorf("chart %s is empty", file)
		}
	}
	eff := points("staggeredtickers-coalesce-eff-vs-slack.svg")
	if _, ok := eff["heap"]; ok {
		t.Error("heap, which grants no slack, is on the coalescing efficiency chart")
	}
	if got := eff["slack-1ms"]; got.X != 983.04 || got.Y <= 0 {
		t.Errorf("coalescing efficiency: slack-1ms at %v, want it at 983.04µs", got)
	}
	if !charts["submssleep-coalesce-eff-vs-slack.svg"].Chart.Empty() {
		t.Error("SubMsSleep, which reports no coalesce-eff, has a chart of it")
	}
}

// near reports whether a and b are the same point up to rounding.
func near(a, b plotter.XY) bool {
	return math.Abs(a.X-b.X) <= 1e-9*math.Abs(b.X) && math.Abs(a.Y-b.Y) <= 1e-9*math.Abs(b.Y)
}

// TestEnvTableShowsAliases checks each alias is listed with its target's toolchain and its own GODEBUG.
func TestEnvTableShowsAliases(t *testing.T) {
	var b bytes.Buffer
	loadSlack(t).writeEnv(&b)
	for _, want := range []string{
		"| slack | go version go1.27.4-timerlab.slack X:timerslack linux/amd64 | timerslack | - |",
		"| slack-1ms | go version go1.27.4-timerlab.slack X:timerslack linux/amd64 | timerslack | timerslack=1ms |",
		"| slack-12.5pct | go version go1.27.4-timerlab.slack X:timerslack linux/amd64 | timerslack | timerslack=12.5% |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("environment lacks %q:\n%s", want, b.String())
		}
	}
}

// TestSlackVariantsFromExperiment checks that the variants with slack are those whose toolchain has
// the slack experiment, as variants.conf's goexp column builds it, not those whose GODEBUG or name
// mention slack.
func TestSlackVariantsFromExperiment(t *testing.T) {
	r := loadSlack(t)
	for i, tc := range r.Env.Toolchains {
		switch tc.Variant {
		case "upstream":
			r.Env.Toolchains[i].GODEBUG = "timerslack=1ms" // ignored without the experiment
		case "slack-1ms":
			r.Env.Toolchains[i].GOEXPERIMENT = "notimerslack"
		}
	}
	if got, want := r.slackVariants(), []string{"slack", "slack-0", "slack-12.5pct"}; !slices.Equal(got, want) {
		t.Errorf("slack variants %v, want %v", got, want)
	}
}
