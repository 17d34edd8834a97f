package report

import (
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

// wakeupWorkloads are the benchmarks of bench/wakeups, each reporting lateness quantiles,
// voluntary context switches and CPU per second.
var wakeupWorkloads = []string{"StaggeredTickers", "SubMsSleep"}

// latenessQuantiles maps the lateness metrics of bench/wakeups (tidied to seconds) to quantiles.
var latenessQuantiles = []struct {
	unit string
	q    float64
}{
	{"late-p10-sec", 0.10}, {"late-p25-sec", 0.25}, {"late-p50-sec", 0.50}, {"late-p90-sec", 0.90}, {"late-p99-sec", 0.99},
	{"late-p999-sec", 0.999}, {"late-max-sec", 1},
}

func (r *Report) charts() []savedChart {
	charts := []savedChart{r.costVsN()}
	for _, w := range wakeupWorkloads {
		charts = append(charts, r.latenessCDF(w))
	}
	for _, w := range wakeupWorkloads {
		charts = append(charts, r.vsSlack(w, "vcsw/s", "voluntary context switches/s", "wakeups"),
			r.vsSlack(w, "late-p99-sec", "p99 lateness (µs)", "late-p99"))
	}
	return charts
}

var costVsNName = regexp.MustCompile(`^CostVsN/N=(\d+)([KM]?)(-\d+)?$`)

// costVsN charts AfterFunc+Stop cost against the number of live timers.
func (r *Report) costVsN() savedChart {
	c := plots.Chart{Title: "AfterFunc+Stop cost vs live timers", X: "live timers (N)", Y: "ns/op",
		LogX: true, LogY: true, LegendLeft: true}
	for _, v := range r.Variants {
		s := plots.Series{Name: v}
		for _, k := range r.keys(timersPkg, "sec/op") {
			m := costVsNName.FindStringSubmatch(k.Name)
			if m == nil {
				continue
			}
			if sum, ok := r.Index.Summary(k, v); ok {
				s.Points = append(s.Points, plotter.XY{X: sizeOf(m[1], m[2]), Y: sum.Center * 1e9})
			}
		}
		c.Series = append(c.Series, s)
	}
	return savedChart{File: "cost-vs-n.svg", Chart: c}
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

// vsSlack charts one metric of workload against each variant's timer slack.
func (r *Report) vsSlack(workload, unit, label, file string) savedChart {
	c := plots.Chart{Title: workload + ": " + label + " vs timer slack", X: "timer slack (µs)", Y: label}
	for _, v := range r.Variants {
		val, ok := r.center(workload, unit, v)
		if !ok {
			continue
		}
		if strings.HasSuffix(unit, "-sec") {
			val *= 1e6
		}
		tc, _ := r.Env.Toolchain(v)
		c.Series = append(c.Series, plots.Series{Name: v,
			Points: plotter.XYs{{X: float64(slackOf(tc.GODEBUG)) / 1e3, Y: val}}})
	}
	return savedChart{File: strings.ToLower(workload) + "-" + file + "-vs-slack.svg", Chart: c,
		Note: "Slack is read from each variant's GODEBUG (a setting whose name contains \"slack\"); variants without one are at 0."}
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

// slackOf returns the timer slack a GODEBUG value sets: the duration of the first setting whose
// name contains "slack", such as timerslack=50us; 0 if none.
func slackOf(godebug string) time.Duration {
	for _, kv := range strings.Split(godebug, ",") {
		k, v, _ := strings.Cut(kv, "=")
		if strings.Contains(k, "slack") {
			if d, err := time.ParseDuration(v); err == nil {
				return d
			}
		}
	}
	return 0
}
