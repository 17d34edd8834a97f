package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"

	"timerlab/internal/lab"
)

// writeSlackTargets writes the table that judges each variant with timer slack against the
// baseline of the same run. It writes nothing when the run has no such variant or no baseline.
func (r *Report) writeSlackTargets(b *bytes.Buffer) {
	vs := r.slackVariants()
	if len(vs) == 0 || r.Variants[0] != lab.Baseline {
		return
	}
	b.WriteString("## Slack targets\n\n")
	fmt.Fprintf(b, "Each variant with timer slack against %[1]s in this run, %[1]s first; medians over the runs, "+
		"ratios are variant / %[1]s. *tickers*: %[2]s; slack is the median slack granted (`slack-ns`), late p99 "+
		"is a share of the ticker period, coalesce-eff is ideal wakeups / timer wakeups (1: every wakeup the slack "+
		"allows to save is saved; — where no slack is granted); CPU on 1 P is the variant's CPU for the same tickers "+
		"with GOMAXPROCS=1 (%[4]s) over %[1]s's at the run's GOMAXPROCS: what receiving the ticks costs with the "+
		"fewest threads, the floor under the CPU any wakeup policy can reach. *sleeps*: %[3]s; ratio p50 is the "+
		"median of actual / requested duration of the sleeps of at least 100 µs.\n\n",
		lab.Baseline, tickersWorkload, sleepsWorkload, tickersFloorWorkload)
	b.WriteString("| variant | GODEBUG | tickers: slack | vcsw/s | CPU | CPU on 1 P | late p99 (% of period) | coalesce-eff " +
		"| sleeps: slack | ratio p50 | timer wakeups/s |\n" + "|" + strings.Repeat(" --- |", 11) + "\n")
	for _, v := range append([]string{lab.Baseline}, vs...) {
		tc, _ := r.Env.Toolchain(v)
		writeRow(b, v, orDash(tc.GODEBUG),
			r.slackCell(tickersWorkload, v), r.ratioCell(tickersWorkload, "vcsw/s", v),
			r.ratioCell(tickersWorkload, "cpu-sec/s", v), r.ratioOver(tickersFloorWorkload, tickersWorkload, "cpu-sec/s", v), r.latePeriodCell(v),
			r.coalesceCell(v), r.slackCell(sleepsWorkload, v),
			r.valueCell(sleepsWorkload, "ratio-p50", v), r.ratioCell(sleepsWorkload, "timer-wakeups/s", v))
	}
	b.WriteString("\n")
}

// slackVariants returns the variants other than the baseline that have timer slack: their
// toolchain's GOEXPERIMENT or their GODEBUG names it, or they granted some in a wakeup workload.
func (r *Report) slackVariants() []string {
	var out []string
	for _, v := range r.Variants {
		tc, _ := r.Env.Toolchain(v)
		named := strings.Contains(tc.GOEXPERIMENT+","+tc.GODEBUG, "slack")
		granted := r.slack(tickersWorkload, v) > 0 || r.slack(sleepsWorkload, v) > 0
		if v != lab.Baseline && (named || granted) {
			out = append(out, v)
		}
	}
	return out
}

func writeRow(b *bytes.Buffer, cells ...string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// slackCell is the median slack variant granted in workload, "—" without the figure.
func (r *Report) slackCell(workload, variant string) string {
	if _, ok := r.center(workload, "slack-sec", variant); !ok {
		return "—"
	}
	return r.slack(workload, variant).Round(100 * time.Nanosecond).String()
}

// ratioCell is variant's median of unit in workload over the baseline's, as "×0.42".
func (r *Report) ratioCell(workload, unit, variant string) string {
	return r.ratioOver(workload, workload, unit, variant)
}

// ratioOver is variant's median of unit in workload over the baseline's in baseWorkload, as
// "×0.42"; "—" where either figure is missing. The CPU on 1 P column divides the tickers on one P
// (tickersFloorWorkload) by the baseline's tickers at the run's GOMAXPROCS (tickersWorkload).
func (r *Report) ratioOver(workload, baseWorkload, unit, variant string) string {
	val, ok := r.center(workload, unit, variant)
	base, okBase := r.center(baseWorkload, unit, lab.Baseline)
	if !ok || !okBase || base == 0 {
		return "—"
	}
	return fmt.Sprintf("×%.2f", val/base)
}

// valueCell is variant's median of unit in workload.
func (r *Report) valueCell(workload, unit, variant string) string {
	val, ok := r.center(workload, unit, variant)
	if !ok {
		return "—"
	}
	return fmt.Sprintf("%.2f", val)
}

// coalesceCell is variant's median coalescing efficiency on the tickers, "—" where it granted them
// no slack.
func (r *Report) coalesceCell(variant string) string {
	if r.slack(tickersWorkload, variant) == 0 {
		return "—"
	}
	return r.valueCell(tickersWorkload, coalesceEff, variant)
}

// latePeriodCell is variant's p99 tick lateness as a percentage of the ticker period.
func (r *Report) latePeriodCell(variant string) string {
	late, ok := r.center(tickersWorkload, "late-p99-sec", variant)
	period := r.tickerPeriod()
	if !ok || period <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*late/period.Seconds())
}

var periodParam = regexp.MustCompile(`/period=([^/-]+)`)

// tickerPeriod returns the period of the tickers workload, from its name; 0 if none.
func (r *Report) tickerPeriod() time.Duration {
	for _, k := range r.keys(wakeupsPkg, "late-p99-sec") {
		if m := periodParam.FindStringSubmatch(k.Name); m != nil && strings.HasPrefix(k.Name, tickersWorkload+"/") {
			d, _ := time.ParseDuration(m[1])
			return d
		}
	}
	return 0
}
