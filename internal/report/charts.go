package report

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/plotter"

	"timerlab/internal/plots"
	"timerlab/internal/stats"
)

const (
	timersPkg  = "timerlab/bench/timers"
	wakeupsPkg = "timerlab/bench/wakeups"
)

// The benchmarks of bench/wakeups, each reporting lateness quantiles, voluntary context switches,
// CPU per second and the timer slack granted.
const (
	tickersWorkload = "StaggeredTickers"
	sleepsWorkload  = "SubMsSleep"
	// tickersFloorWorkload is tickersWorkload with GOMAXPROCS=1, in a set of its own (wakeups-1p).
	tickersFloorWorkload = "StaggeredTickersOneP"
)

var wakeupWorkloads = []string{tickersWorkload, sleepsWorkload}

// latenessQuantiles maps the lateness metrics of bench/wakeups (tidied to seconds) to quantiles.
var latenessQuantiles = []struct {
	unit string
	q    float64
}{
	{"late-p10-sec", 0.10}, {"late-p25-sec", 0.25}, {"late-p50-sec", 0.50}, {"late-p90-sec", 0.90}, {"late-p99-sec", 0.99},
	{"late-p999-sec", 0.999}, {"late-max-sec", 1},
}

// slackCharts are the figures of the wakeup workloads charted against the timer slack each
// variant granted. A workload that does not report a figure gets no chart of it.
var slackCharts = []slackChart{
	{"timer-wakeups/s", "timer wakeups/s", "timer-wakeups", 1},
	{"vcsw/s", "voluntary context switches/s", "vcsw", 1},
	{"cpu-sec/s", "CPU seconds per second", "cpu", 1},
	{"late-p50-sec", "p50 lateness (µs)", "late-p50", 1e6},
	{"late-p99-sec", "p99 lateness (µs)", "late-p99", 1e6},
	{coalesceEff, "coalescing efficiency (ideal / timer wakeups)", "coalesce-eff", 1},
}

type slackChart struct {
	unit, label, file string
	scale             float64 // the chart's value is the metric's median × scale
}

// coalesceEff is ideal wakeups / timer wakeups. It judges how well a variant uses the slack it
// grants, so it has no meaning without slack: with none, the ideal is one wakeup per distinct due
// instant, and the figure only says how many dues one wakeup happened to find.
const coalesceEff = "coalesce-eff"

func (r *Report) charts() []savedChart {
	charts := []savedChart{r.costVsN()}
	for _, w := range wakeupWorkloads {
		charts = append(charts, r.latenessCDF(w))
	}
	for _, w := range wakeupWorkloads {
		for _, c := range slackCharts {
			charts = append(charts, r.vsSlack(w, c))
		}
	}
	return charts
}

// vsNBenchmarks are the benchmarks of bench/timers charted against N, in legend order.
var vsNBenchmarks = []string{"CostVsN", "TimeoutVsN", "TimeoutVsNGCOff", "AllocVsN"}

var vsNName = regexp.MustCompile(`^(` + strings.Join(vsNBenchmarks, "|") + `)/N=(\d+)([KM]?)(-\d+)?$`)

// costVsN charts AfterFunc+Stop cost against the number of live timers: one line per variant and
// benchmark (CostVsN, TimeoutVsN, TimeoutVsN with the collector off, and their floor AllocVsN).
func (r *Report) costVsN() savedChart {
	c := plots.Chart{Title: "AfterFunc+Stop cost vs live timers", X: "live timers (N)", Y: "ns/op",
		LogX: true, LogY: true, LegendLeft: true}
	for _, bench := range vsNBenchmarks {
		for _, v := range r.Variants {
			s := plots.Series{Name: v + " " + bench}
			for _, k := range r.keys(timersPkg, "sec/op") {
				m := vsNName.FindStringSubmatch(k.Name)
				if m == nil || m[1] != bench {
					continue
				}
				if sum, ok := r.Index.Summary(k, v); ok {
					s.Points = append(s.Points, plotter.XY{X: sizeOf(m[2], m[3]), Y: sum.Center * 1e9})
				}
			}
			if len(s.Points) > 0 {
				c.Series = append(c.Series, s)
			}
		}
	}
	return savedChart{File: "cost-vs-n.svg", Chart: c,
		Note: "CostVsN: a timer due among the live ones; TimeoutVsN: a timeout due before all of them; " +
			"TimeoutVsNGCOff: TimeoutVsN with the garbage collector off while timed, the timer set's own cost; " +
			"AllocVsN: allocating a timer-sized object with no timer, a lower bound under CostVsN and TimeoutVsN " +
			"(too low at large N; the floor itself: scripts/null-floor.sh, docs/wheel.md)."}
}

// latenessCDF charts the distribution of wakeup lateness of workload from its quantile metrics.
func (r *Report) latenessCDF(workload string) savedChart {
	c := plots.Chart{Title: workload + ": lateness CDF", X: "lateness (µs)", Y: "fraction of wakeups", LogX: true,
		LegendBottom: true}
	for _, v := range r.Variants {
		s := plots.Series{Name: v}
		for _, lq := range latenessQuantiles {
			if late, ok := r.center(workload, lq.unit, v); ok {
				s.Points = append(s.Points, plotter.XY{X: max(late*1e6, 0.01), Y: lq.q})
			}
		}
		c.Series = append(c.Series, s)
	}
	return savedChart{File: strings.ToLower(workload) + "-lateness-cdf.svg", Chart: c,
		Note: "Quantiles p10, p25, p50, p90, p99, p99.9 and max of each variant (medians over the runs); lateness below 10 ns is drawn at 10 ns."}
}

// vsSlack charts one metric of workload against the median slack each variant granted in that
// workload. Coalescing efficiency is charted only for variants that granted slack.
func (r *Report) vsSlack(workload string, sc slackChart) savedChart {
	c := plots.Chart{Title: workload + ": " + sc.label + " vs timer slack", X: "median timer slack granted (µs)", Y: sc.label}
	for _, v := range r.Variants {
		val, ok := r.center(workload, sc.unit, v)
		slack := r.slack(workload, v)
		if !ok || (sc.unit == coalesceEff && slack == 0) {
			continue
		}
		c.Series = append(c.Series, plots.Series{Name: v,
			Points: plotter.XYs{{X: slack.Seconds() * 1e6, Y: val * sc.scale}}})
	}
	note := "Slack is the median of the slack the runtime granted the workload's timers (`slack-ns`, from " +
		"/sched/timers/slack:seconds), medians over the runs; "
	if sc.unit == coalesceEff {
		note += "variants that granted no slack are left out."
	} else {
		note += "variants without slack or without the metric are at 0."
	}
	return savedChart{File: strings.ToLower(workload) + "-" + sc.file + "-vs-slack.svg", Chart: c, Note: note}
}

// slack returns the median slack variant granted in workload: its slack-ns figure, 0 if absent.
func (r *Report) slack(workload, variant string) time.Duration {
	secs, _ := r.center(workload, "slack-sec", variant)
	return time.Duration(math.Round(secs * 1e9))
}

// center returns the median of workload's metric unit with variant.
func (r *Report) center(workload, unit, variant string) (float64, bool) {
	for _, k := range r.keys(wakeupsPkg, unit) {
		if strings.HasPrefix(k.Name, workload+"/") || strings.HasPrefix(k.Name, workload+"-") {
			if sum, ok := r.Index.Summary(k, variant); ok {
				return sum.Center, true
			}
		}
	}
	return 0, false
}

func (r *Report) keys(pkg, unit string) []stats.Key {
	var out []stats.Key
	for _, k := range r.Index.Keys() {
		if k.Pkg == pkg && k.Unit == unit {
			out = append(out, k)
		}
	}
	return out
}

// sizeOf turns "100" "K" into 100e3.
func sizeOf(digits, suffix string) float64 {
	n, _ := strconv.ParseFloat(digits, 64)
	switch suffix {
	case "K":
		n *= 1e3
	case "M":
		n *= 1e6
	}
	return n
}
