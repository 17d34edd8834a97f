// Command cascade measures what idle Ps and Ms do while a P of the wheel
// variant (GOEXPERIMENT=timerwheel) cascades a slot of many timers under
// its timers lock, with wakeTime answering 1 (due now) throughout, against
// the heap variant, which has no cascade, in the same window.
//
// It builds ./child with each variant's toolchain and runs rounds of it,
// interleaved (heap, wheel; then wheel, heap), at each GOMAXPROCS and
// background load, and prints the median and range of each figure.
//
// Usage:
//
//	TIMERLAB_TOOLCHAINS=/path/to/build/toolchains go run . [flags]
//
// or -toolchains DIR. DIR/<variant> is a GOROOT.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

var (
	toolchains = flag.String("toolchains", os.Getenv("TIMERLAB_TOOLCHAINS"), "directory of toolchains (default $TIMERLAB_TOOLCHAINS)")
	variants   = flag.String("variants", "heap,wheel", "variants to compare")
	procsList  = flag.String("procs", "2,4,8", "GOMAXPROCS values")
	scenarios  = flag.String("scenarios", "idle:-bg 0;light:-bg -1;busy:-bg -2 -bgspin 10us", "scenarios: name:child arguments, ;-separated")
	obsRoot    = flag.String("obs", "", "GOROOT of the diagnostic wheel build (tc/mkobs.sh): adds variant wheel-obs")
	rounds     = flag.Int("rounds", 12, "rounds per variant, GOMAXPROCS and scenario")
	n          = flag.Int("n", 100000, "timers to cascade")
	childArgs  = flag.String("childargs", "", "extra arguments for the child")
	out        = flag.String("out", "", "write every round's JSON here (JSON lines)")
	binDir     = flag.String("bin", "", "where to build the children (default: a temporary directory)")
	from       = flag.String("from", "", "report the rounds of an earlier -out file instead of running")
)

func usage(msg string) {
	fmt.Fprintln(os.Stderr, "cascade:", msg)
	os.Exit(2)
}

type key struct {
	v     string
	procs int
	bg    string
}

// data is the rounds of a campaign: each round's figures by variant,
// GOMAXPROCS and scenario, with the order they were met in.
type data struct {
	vs, bgs []string
	procs   []int
	scen    map[string][]string
	results map[key][]map[string]any // valid rounds
	invalid map[key]int
	rounds  int
	withObs bool
}

func newData() *data {
	return &data{scen: make(map[string][]string), results: make(map[key][]map[string]any), invalid: make(map[key]int)}
}

// add records one round's output.
func (d *data) add(v string, procs int, bg string, res map[string]any) {
	if !slices.Contains(d.vs, v) {
		d.vs = append(d.vs, v)
	}
	if !slices.Contains(d.procs, procs) {
		d.procs = append(d.procs, procs)
	}
	if !slices.Contains(d.bgs, bg) {
		d.bgs = append(d.bgs, bg)
	}
	if _, ok := res["obs"]; ok {
		d.withObs = true
	}
	k := key{v, procs, bg}
	// A window that held the n timers' firing (an older child did not
	// mark it invalid) measures that firing, not the cascade.
	if fired, _ := res["fired"].(float64); fired > float64(*n)/10 {
		res["valid"] = false
	}
	if res["valid"] != true {
		d.invalid[k]++
		return
	}
	d.results[k] = append(d.results[k], res)
}

func main() {
	flag.Parse()
	if flag.NArg() != 0 {
		usage("unexpected arguments")
	}
	if *from != "" {
		d, err := load(*from)
		if err != nil {
			fatal(err)
		}
		d.report()
		return
	}
	if *toolchains == "" {
		usage("no toolchains: set TIMERLAB_TOOLCHAINS or -toolchains to build/toolchains")
	}
	vs := strings.Split(*variants, ",")
	procs := ints(*procsList)
	d := newData()
	var bgs []string
	for _, sc := range strings.Split(*scenarios, ";") {
		name, args, ok := strings.Cut(sc, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			usage(fmt.Sprintf("bad scenario %q: want name:arguments", sc))
		}
		bgs = append(bgs, name)
		d.scen[name] = strings.Fields(args)
	}
	if len(vs) == 0 || len(procs) == 0 || len(bgs) == 0 || *rounds < 1 {
		usage("empty -variants, -procs or -scenarios, or -rounds < 1")
	}
	roots := make(map[string]string)
	for _, v := range vs {
		roots[v] = filepath.Join(*toolchains, v)
	}
	if *obsRoot != "" {
		vs = append(vs, "wheel-obs")
		roots["wheel-obs"] = *obsRoot
	}
	dir := *binDir
	if dir == "" {
		t, err := os.MkdirTemp("", "cascade")
		if err != nil {
			fatal(err)
		}
		defer os.RemoveAll(t)
		dir = t
	}
	bins := make(map[string]string)
	for _, v := range vs {
		goroot := roots[v]
		gobin := filepath.Join(goroot, "bin", "go")
		if _, err := os.Stat(gobin); err != nil {
			fatal(fmt.Errorf("variant %s: no toolchain at %s", v, goroot))
		}
		bin := filepath.Join(dir, "child-"+v)
		tags := ""
		if v == "wheel-obs" {
			tags = "cascadeobs"
		}
		cmd := exec.Command(gobin, "build", "-tags="+tags, "-o", bin, "./child")
		cmd.Env = append(os.Environ(), "GOROOT="+goroot, "PATH="+filepath.Join(goroot, "bin")+":"+os.Getenv("PATH"), "GOTOOLCHAIN=local", "GOFLAGS=")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fatal(fmt.Errorf("building the child with %s: %v", v, err))
		}
		ver, _ := exec.Command(gobin, "version").Output()
		fmt.Printf("# %s: %s", v, ver)
		bins[v] = bin
	}
	var w *bufio.Writer
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fatal(err)
		}
		defer f.Close()
		w = bufio.NewWriter(f)
		defer w.Flush()
	}
	d.rounds = *rounds
	start := time.Now()
	for r := range *rounds {
		for _, p := range procs {
			for _, bg := range bgs {
				order := append([]string(nil), vs...)
				if r%2 == 1 {
					slices.Reverse(order)
				}
				for _, v := range order {
					res, line, err := runChild(bins[v], p, d.scen[bg])
					if err != nil {
						fatal(fmt.Errorf("%s GOMAXPROCS=%d %s: %v", v, p, bg, err))
					}
					res["round"] = float64(r)
					if w != nil {
						fmt.Fprintf(w, "{\"variant\":%q,\"scenario\":%q,\"scenario_args\":%q,\"round\":%d,%s\n",
							v, bg, strings.Join(d.scen[bg], " "), r, line[1:])
					}
					d.add(v, p, bg, res)
				}
			}
		}
		fmt.Fprintf(os.Stderr, "round %d/%d done (%v)\n", r+1, *rounds, time.Since(start).Round(time.Second))
	}
	d.report()
}

// load reads a campaign's rounds back from -out's JSON lines.
func load(path string) (*data, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d := newData()
	for i, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var res map[string]any
		if err := json.Unmarshal(line, &res); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		v, _ := res["variant"].(string)
		bg, _ := res["scenario"].(string)
		p, _ := res["procs"].(float64)
		if v == "" || bg == "" || p == 0 {
			return nil, fmt.Errorf("%s:%d: no variant, scenario or procs", path, i+1)
		}
		if args, ok := res["scenario_args"].(string); ok {
			d.scen[bg] = strings.Fields(args)
		}
		if r, _ := res["round"].(float64); int(r)+1 > d.rounds {
			d.rounds = int(r) + 1
		}
		d.add(v, int(p), bg, res)
	}
	if len(d.vs) == 0 {
		return nil, fmt.Errorf("%s: no rounds", path)
	}
	return d, nil
}

var figures = []string{"trig_late_us", "top_cpu_us", "other_cpu_us", "sysmon_cpu_us", "vcs", "ivcs", "active",
	"timers_lock_waits", "timers_lock_wait_us", "other_lock_waits", "mutex_wait_us", "wakeups", "cascades",
	"bg_late_max_us", "bg_late_mean_us", "window_us",
	"obs.check_saw_1", "obs.steal_saw_1", "obs.busy_locks", "obs.busy_lock_wait_us", "obs.noP_saw_1",
	"obs.netpoll0_for_1", "obs.netpollBreak_for_1", "obs.sysmon_saw_1", "obs.handoffp_saw_1",
	"obs.advances", "obs.advance_us", "obs.answered_1", "obs.idle_locks", "obs.idle_lock_wait_us"}

// paired are the figures whose wheel-heap difference report gives for
// rounds in which both ran (they ran back to back).
var paired = []string{"trig_late_us", "top_cpu_us", "other_cpu_us", "sysmon_cpu_us", "vcs", "ivcs", "bg_late_max_us"}

func (d *data) report() {
	fmt.Printf("# n=%d rounds=%d; median [min–max] per variant over valid rounds; the window is [S-10ms, S+25ms]\n", *n, d.rounds)
	for _, p := range d.procs {
		for _, bg := range d.bgs {
			idle := true // no background sleepers in any round
			for _, v := range d.vs {
				for _, res := range d.results[key{v, p, bg}] {
					if value(res, "bg") != 0 {
						idle = false
					}
				}
			}
			fmt.Printf("\n## GOMAXPROCS=%d %s (%s)\n", p, bg, strings.Join(d.scen[bg], " "))
			fmt.Printf("%-22s", "figure")
			for _, v := range d.vs {
				k := key{v, p, bg}
				fmt.Printf(" %-30s", fmt.Sprintf("%s (%d valid, %d not)", v, len(d.results[k]), d.invalid[k]))
			}
			fmt.Println()
			for _, fig := range figures {
				if (idle && strings.HasPrefix(fig, "bg_")) || (!d.withObs && strings.HasPrefix(fig, "obs.")) {
					continue
				}
				fmt.Printf("%-22s", fig)
				for _, v := range d.vs {
					var xs []float64
					for _, res := range d.results[key{v, p, bg}] {
						if _, ok := res["obs"]; ok || !strings.HasPrefix(fig, "obs.") {
							xs = append(xs, value(res, fig))
						}
					}
					fmt.Printf(" %-30s", summary(xs))
				}
				fmt.Println()
			}
			// Paired: wheel minus heap in the same round.
			if slices.Contains(d.vs, "heap") && slices.Contains(d.vs, "wheel") {
				byRound := func(v string) map[float64]map[string]any {
					m := make(map[float64]map[string]any)
					for _, res := range d.results[key{v, p, bg}] {
						r, _ := res["round"].(float64)
						m[r] = res
					}
					return m
				}
				hs, ws := byRound("heap"), byRound("wheel")
				for _, fig := range paired {
					if idle && strings.HasPrefix(fig, "bg_") {
						continue
					}
					var diffs []float64
					above := 0
					for r, h := range hs {
						if wr, ok := ws[r]; ok {
							x := value(wr, fig) - value(h, fig)
							diffs = append(diffs, x)
							if x > 0 {
								above++
							}
						}
					}
					if len(diffs) > 0 {
						fmt.Printf("wheel-heap %-18s %s; wheel above in %d of %d rounds\n", fig, summary(diffs), above, len(diffs))
					}
				}
			}
			// Rounds in which some M waited for the timers lock of a set
			// in check, against the others: what the wait cost the
			// background's sleepers.
			for _, v := range d.vs {
				var with, without []float64
				for _, res := range d.results[key{v, p, bg}] {
					if value(res, "timers_lock_waits") > 0 {
						with = append(with, value(res, "bg_late_max_us"))
					} else {
						without = append(without, value(res, "bg_late_max_us"))
					}
				}
				if len(with) > 0 && !idle {
					fmt.Printf("%s: bg_late_max_us in %d rounds with a timers lock wait %s, in %d without %s\n",
						v, len(with), summary(with), len(without), summary(without))
				}
			}
		}
	}
}

// obsIndex maps the obs. figures to the diagnostic counters (timerlab_obs.go).
var obsIndex = map[string]int{
	"obs.check_saw_1": 0, "obs.steal_saw_1": 1, "obs.busy_locks": 2, "obs.busy_lock_wait_us": 3,
	"obs.noP_saw_1": 4, "obs.netpoll0_for_1": 5, "obs.netpollBreak_for_1": 6, "obs.sysmon_saw_1": 7,
	"obs.handoffp_saw_1": 8, "obs.advances": 9, "obs.advance_us": 10, "obs.answered_1": 11,
	"obs.idle_locks": 12, "obs.idle_lock_wait_us": 13,
}

func value(res map[string]any, fig string) float64 {
	if i, ok := obsIndex[fig]; ok {
		o, _ := res["obs"].([]any)
		if i >= len(o) {
			return 0
		}
		x, _ := o[i].(float64)
		if strings.HasSuffix(fig, "_us") {
			x /= 1e3
		}
		return x
	}
	if fig == "sysmon_cpu_us" {
		// The second thread made is sysmon's when the first is main's.
		th, _ := res["thread_cpu_us"].([]any)
		if rank, _ := res["main_rank"].(float64); rank != 0 || len(th) < 2 {
			return 0
		}
		x, _ := th[1].(float64)
		return x
	}
	if fig == "bg_late_mean_us" {
		n := value(res, "bg_wakes")
		if n == 0 {
			return 0
		}
		return value(res, "bg_late_sum_us") / n
	}
	f, _ := res[fig].(float64)
	return f
}

func summary(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	sort.Float64s(xs)
	m := len(xs) / 2
	med := xs[m]
	if len(xs)%2 == 0 {
		med = (xs[m-1] + xs[m]) / 2
	}
	return fmt.Sprintf("%s [%s–%s]", num(med), num(xs[0]), num(xs[len(xs)-1]))
}

func num(x float64) string {
	switch {
	case x == 0:
		return "0"
	case x >= 100 || x <= -100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	default:
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
}

func runChild(bin string, procs int, scenArgs []string) (map[string]any, []byte, error) {
	args := []string{"-n", strconv.Itoa(*n)}
	args = append(args, scenArgs...)
	args = append(args, strings.Fields(*childArgs)...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("%v: %s", err, stderr.String())
	}
	line := bytes.TrimSpace(outb)
	var res map[string]any
	if err := json.Unmarshal(line, &res); err != nil {
		return nil, nil, fmt.Errorf("bad output %q: %v", line, err)
	}
	return res, line, nil
}

func ints(s string) []int {
	var xs []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		x, err := strconv.Atoi(f)
		if err != nil {
			usage(fmt.Sprintf("not an integer: %q", f))
		}
		xs = append(xs, x)
	}
	return xs
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "cascade:", err)
	os.Exit(1)
}
