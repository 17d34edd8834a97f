package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"timerlab/internal/matrix"
	"timerlab/internal/results"
	"timerlab/internal/stats"
	"timerlab/internal/toolchain"
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
	return nearly(a.X, b.X) && nearly(a.Y, b.Y)
}

// nearly reports whether a is b but for rounding: within a billionth of b.
func nearly(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Abs(b)
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

// TestSweepVariants checks which variants the slack sweep's table holds, on a synthetic run that
// has a variant of each kind its rule names and of each it leaves out: slack built in (a
// GOEXPERIMENT, slack and wheel-slack) and an alias of it; a GODEBUG of timer slack on a toolchain
// of its own (pwait2-slack, timerslack=1) and on an alias of it (pwait2-slack-off); a toolchain with
// slack on by default and no GODEBUG beside its alias that sets one (quiet, quiet-off); an alias
// with no slack (pwait2, of heap); and not the baseline, another timer set, upstream, the null
// floor, a toolchain of its own whose GODEBUG sets something else, nor one whose name alone says
// slack. Without quiet-off, nothing says quiet has slack.
func TestSweepVariants(t *testing.T) {
	tc := func(v, root, goexp, godebug string) toolchain.Info {
		return toolchain.Info{Variant: v, GOROOT: "/tc/" + root, GOEXPERIMENT: goexp, GODEBUG: godebug}
	}
	toolchains := []toolchain.Info{
		tc("heap", "heap", "", ""),
		tc("upstream", "upstream", "", ""),
		tc("wheel", "wheel", "timerwheel", ""),
		tc("slack", "slack", "timerslack", ""),
		tc("wheel-slack", "wheel-slack", "timerwheel,timerslack", ""),
		tc("slack-1ms", "slack", "timerslack", "timerslack=1ms"),
		tc("pwait2", "heap", "", "epollpwait2=1"),
		tc("pwait2-slack", "pwait2-slack", "", "timerslack=1"),
		tc("pwait2-slack-off", "pwait2-slack", "", "timerslack=0"),
		tc("quiet", "quiet", "", ""),
		tc("quiet-off", "quiet", "", "asynctimerchan=1,timerslackdefer=1"),
		tc("async", "async", "", "asynctimerchan=1"),
		tc("slackish", "slackish", "", ""),
		tc("null", "null", "timernull", ""),
	}
	r := &Report{Env: results.Env{Build: results.Build{Toolchains: toolchains}},
		Spec: matrix.Spec{Only: map[string][]string{"slack-1ms": {"wakeups"}, "pwait2": {"wakeups"},
			"pwait2-slack-off": {"wakeups"}, "quiet-off": {"wakeups"}, "null": {"floor"}}}}
	for _, tc := range toolchains {
		r.Variants = append(r.Variants, tc.Variant)
	}
	want := []string{"slack", "wheel-slack", "slack-1ms", "pwait2", "pwait2-slack", "pwait2-slack-off", "quiet", "quiet-off"}
	if got := r.sweepVariants(); !slices.Equal(got, want) {
		t.Errorf("slack sweep variants\n%v, want\n%v", got, want)
	}
	r.Variants = slices.DeleteFunc(r.Variants, func(v string) bool { return v == "quiet-off" })
	want = slices.DeleteFunc(want, func(v string) bool { return v == "quiet" || v == "quiet-off" })
	if got := r.sweepVariants(); !slices.Equal(got, want) {
		t.Errorf("without quiet-off: slack sweep variants\n%v, want\n%v", got, want)
	}
}

// TestSweepHoldsPwait2Slack renders the slack sweep's table of testdata/slack recast as a run of
// the variants golang/go#53824's answer is judged by: slack-0 as pwait2 (heap's toolchain,
// epollpwait2=1, an alias), slack-1ms as pwait2-slack (a toolchain of its own without the slack
// experiment, GODEBUG timerslack=1, running every set) and slack-12.5pct as its alias
// pwait2-slack-off (timerslack=0). Each is a row beside slack with the figures the recorded
// variant has in TestSlackTargets; upstream is not.
func TestSweepHoldsPwait2Slack(t *testing.T) {
	dir := copyDir(t, "testdata/slack")
	renames := map[string]string{"slack-0": "pwait2", "slack-1ms": "pwait2-slack", "slack-12.5pct": "pwait2-slack-off"}
	for _, f := range []string{"matrix.json", "env.json", "raw/slack-0.txt", "raw/slack-1ms.txt", "raw/slack-12.5pct.txt"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		for from, to := range renames {
			s = strings.ReplaceAll(s, `"`+from+`"`, `"`+to+`"`)   // matrix.json, env.json
			s = strings.ReplaceAll(s, " "+from+"\n", " "+to+"\n") // variant: slack-1ms
			s = strings.ReplaceAll(s, " "+from+" ", " "+to+" ")   // # run slack-1ms wakeups round 1
		}
		os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644)
	}
	for from, to := range renames {
		if err := os.Rename(filepath.Join(dir, results.RawPath(from)), filepath.Join(dir, results.RawPath(to))); err != nil {
			t.Fatal(err)
		}
	}
	r, err := LoadPartial(dir) // testdata/slack has no profiles
	if err != nil {
		t.Fatal(err)
	}
	delete(r.Spec.Only, "pwait2-slack")
	for i, tc := range r.Env.Toolchains {
		switch tc.Variant {
		case "pwait2":
			r.Env.Toolchains[i] = toolchain.Info{Variant: tc.Variant, GOROOT: "/tc/heap", GODEBUG: "epollpwait2=1"}
		case "pwait2-slack":
			r.Env.Toolchains[i] = toolchain.Info{Variant: tc.Variant, GOROOT: "/tc/pwait2-slack", GODEBUG: "timerslack=1"}
		case "pwait2-slack-off":
			r.Env.Toolchains[i] = toolchain.Info{Variant: tc.Variant, GOROOT: "/tc/pwait2-slack", GODEBUG: "timerslack=0"}
		}
	}
	var b bytes.Buffer
	r.writeSummaries(&b)
	for _, want := range []string{
		"| heap | - | 0 | ×1 | ×1 | — | 89% (—) | — | 0 | 2.20 (—) | ×1 | ×1 | ×1 |",
		"| slack | - | 980µs | ×1.02 (—) ~ | ×1.06 (—) ~ | — | 42% (—) | 1.36 (—) | 130µs | 1.24 (—) | ×4.85 (—) ~ | ×3.47 (—) ~ | ×2.33 (—) ~ |",
		"| pwait2 | epollpwait2=1 | 0 | ×1.29 (—) ~ | ×1.06 (—) ~ | — | 48% (—) | — | 0 | 2.21 (—) | ×1.02 (—) ~ | ×1.05 (—) ~ | ×1.13 (—) ~ |",
		"| pwait2-slack | timerslack=1 | 980µs | ×0.98 (—) ~ | ×1.13 (—) ~ | — | 37% (—) | 1.39 (—) | 980µs | 2.21 (—) | ×1.01 (—) ~ |",
		"| pwait2-slack-off | timerslack=0 | 1.2ms | ×0.91 (—) ~ | ×0.93 (—) ~ | — | 45% (—) | 1.25 (—) | 64µs | 1.15 (—) | ×6.11 (—) ~ |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the slack sweep lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "| upstream |") {
		t.Errorf("upstream is in the slack sweep:\n%s", b.String())
	}
}

// precision returns six runs of the precision set's benchmarks for variant, recorded under its
// own name (benchfmt's variant key): SpreadSubMsSleep with nsPerOp per sleep, cpuOp CPU per sleep,
// wakeups timer wakeups a second and ratio its median actual / requested; CoarseTimeouts with cpu CPU a second,
// coarseWakeups timer wakeups and vcsw context switches a second; each figure times 1 + i/100 in
// run i, so that the runs differ: every ratio to heap's has the interval 0.971-1.029 of it, and
// each median of ratio-p50 is 1.025 times ratio, its interval from ratio to 1.05 times it.
func precision(variant string, nsPerOp, cpuOp, wakeups, ratio, cpu, coarseWakeups, vcsw float64) string {
	s := "variant: " + variant + "\npkg: timerlab/bench/wakeups\n"
	for i := range 6 {
		f := 1 + float64(i)/100
		s += fmt.Sprintf("BenchmarkSpreadSubMsSleep/goroutines=50-2 1000 %g ns/op %g cpu-ns/op %g timer-wakeups/s %g ratio-p50\n",
			nsPerOp, cpuOp*f, wakeups*f, ratio*f)
		s += fmt.Sprintf("BenchmarkCoarseTimeouts/waiters=2000/tickers=100-2 1000 20000 ns/op %g cpu-ns/s %g timer-wakeups/s %g vcsw/s\n",
			cpu*f, coarseWakeups*f, vcsw*f)
	}
	return s
}

// TestPrecisionSet checks the precision set's figures in the report, on a synthetic run of heap,
// slack, pwait2 (an alias of heap), pwait2-slack (a toolchain of its own at GODEBUG timerslack=1)
// and its alias pwait2-slack-off: the verdict judges slack and pwait2-slack, not the aliases, on
// golang/go#53824's figures and the coarse timeouts', the steady sleeps' timer wakeups a second (not
// per sleep: the precise variants' sleeps take half as long) that buy sleeps ending on time being
// that precision's price; and the slack sweep holds every one of them
// with the same figures, the aliases too.
func TestPrecisionSet(t *testing.T) {
	text := precision("heap", 20000, 2000, 1000, 2.0, 4e8, 100, 600) +
		precision("slack", 20000, 3000, 2000, 2.0, 4.4e8, 100, 600) +
		precision("pwait2", 10000, 6000, 8000, 1.1, 6e8, 800, 2400) +
		precision("pwait2-slack", 10000, 4000, 4000, 1.1, 4e8, 200, 600) +
		precision("pwait2-slack-off", 10000, 6000, 8000, 1.1, 4e8, 100, 600)
	res := parseResults(t, text, "precision")
	vs := []string{"heap", "slack", "pwait2", "pwait2-slack", "pwait2-slack-off"}
	r := &Report{Spec: matrix.Spec{Variants: vs, Sets: []string{"precision"},
		Only: map[string][]string{"pwait2": {"precision"}, "pwait2-slack-off": {"precision"}}},
		Env: results.Env{Build: results.Build{Toolchains: []toolchain.Info{
			{Variant: "heap", GOROOT: "/tc/heap"},
			{Variant: "slack", GOROOT: "/tc/slack", GOEXPERIMENT: "timerslack"},
			{Variant: "pwait2", GOROOT: "/tc/heap", GODEBUG: "epollpwait2=1"},
			{Variant: "pwait2-slack", GOROOT: "/tc/pwait2-slack", GODEBUG: "timerslack=1"},
			{Variant: "pwait2-slack-off", GOROOT: "/tc/pwait2-slack", GODEBUG: "timerslack=0"},
		}}},
		Variants: vs, Index: stats.NewIndex(res)}

	var verdict bytes.Buffer
	r.writeVerdict(&verdict)
	for _, want := range []string{
		"| figure | slack | pwait2-slack | reading |",
		"| 50 steady sleeps of 20 µs-1 ms: CPU per sleep (golang/go#53824's CPU per wakeup) (`wakeups` SpreadSubMsSleep) | " +
			"×1.50 (1.46–1.54) | ×2.00 (1.94–2.06) | worse: slack, pwait2-slack |",
		"| 50 steady sleeps of 20 µs-1 ms: timer wakeups per second (`wakeups` SpreadSubMsSleep) | ×2.00 (1.94–2.06) | " +
			"×4.00 (3.89–4.12) | worse: slack; the price of sleeps that end on time: pwait2-slack |",
		"| 50 steady sleeps of 0.1-1 ms: median actual / requested (`wakeups` SpreadSubMsSleep) | ×1.00 (0.97–1.03) ~ | " +
			"×0.55 (0.53–0.57) | better: pwait2-slack |",
		"| 2000 timeouts of 1-50 ms and 100 10 ms tickers: CPU per second (`wakeups` CoarseTimeouts) | ×1.10 (1.07–1.13) | " +
			"×1.00 (0.97–1.03) ~ | worse: slack |",
		"| 2000 timeouts of 1-50 ms and 100 10 ms tickers: timer wakeups per second (`wakeups` CoarseTimeouts) | " +
			"×1.00 (0.97–1.03) ~ | ×2.00 (1.94–2.06) | worse: pwait2-slack |",
		"| 2000 timeouts of 1-50 ms and 100 10 ms tickers: context switches per second (`wakeups` CoarseTimeouts) | " +
			"×1.00 (0.97–1.03) ~ | ×1.00 (0.97–1.03) ~ | no significant difference |",
	} {
		if !strings.Contains(verdict.String(), want) {
			t.Errorf("the verdict lacks %q:\n%s", want, verdict.String())
		}
	}

	var sweep bytes.Buffer
	r.writeSummaries(&sweep)
	dashes := "| - | — | — | — | — | — | — | — | — | — | — | — |" // the wakeups set's columns: not run
	for _, want := range []string{
		"| heap " + dashes + " ×1 | ×1 | 2.05 (2.00–2.10) | ×1 | ×1 | ×1 |",
		"| slack " + dashes + " ×1.50 (1.46–1.54) | ×2.00 (1.94–2.06) | 2.05 (2.00–2.10) | ×1.10 (1.07–1.13) | ×1.00 (0.97–1.03) ~ | ×1.00 (0.97–1.03) ~ |",
		"| pwait2 | epollpwait2=1 | — | — | — | — | — | — | — | — | — | — | — | ×3.00 (2.91–3.09) | ×8.00 (7.77–8.24) | 1.13 (1.10–1.16) | ×1.50 (1.46–1.54) | ×8.00 (7.77–8.24) | ×4.00 (3.89–4.12) |",
		"| pwait2-slack | timerslack=1 | — | — | — | — | — | — | — | — | — | — | — | ×2.00 (1.94–2.06) | ×4.00 (3.89–4.12) | 1.13 (1.10–1.16) | ×1.00 (0.97–1.03) ~ | ×2.00 (1.94–2.06) | ×1.00 (0.97–1.03) ~ |",
		"| pwait2-slack-off | timerslack=0 | — | — | — | — | — | — | — | — | — | — | — | ×3.00 (2.91–3.09) | ×8.00 (7.77–8.24) | 1.13 (1.10–1.16) | ×1.00 (0.97–1.03) ~ | ×1.00 (0.97–1.03) ~ | ×1.00 (0.97–1.03) ~ |",
	} {
		if !strings.Contains(sweep.String(), want) {
			t.Errorf("the slack sweep lacks %q:\n%s", want, sweep.String())
		}
	}
}
