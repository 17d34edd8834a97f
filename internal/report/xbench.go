package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"timerlab/internal/lab"
	"timerlab/internal/results"
	"timerlab/internal/stats"
)

// xbenchUnits are the figures the golang.org/x/benchmarks section leads with, in this order: time
// per op (for sweet's etcd, the mean request latency), throughput, and request latency quantiles.
// The others (memory) follow.
var xbenchUnits = []string{"sec/op", "ops/s", "p50-latency-sec", "p90-latency-sec", "p99-latency-sec"}

func xbenchRank(unit string) int {
	if i := slices.Index(xbenchUnits, unit); i >= 0 {
		return i
	}
	return len(xbenchUnits)
}

// aaVariant is the variant whose difference from the baseline is the A/A noise: pristine
// upstream keeps timers as the heap does; the heap adds only the shared patches.
const aaVariant = "upstream"

// LoadXBench adds to r the section of golang.org/x/benchmarks from the results directory dir, a
// matrix of their sets alone, run apart from r's (sweet's etcd takes minutes a cell), read as r
// was (Load or LoadPartial). A matrix of another patch series is refused, but by a partial report,
// which says so at its top; one of another machine gets a warning.
func (r *Report) LoadXBench(dir string) error {
	if own := r.setsOf(true); len(own) > 0 {
		return fmt.Errorf("%s holds sets of golang.org/x/benchmarks (%s) already: render %s on its own",
			r.Dir, strings.Join(own, ", "), dir)
	}
	x, err := load(dir, r.partial)
	if err != nil {
		return err
	}
	for _, p := range x.Partial {
		r.Partial = append(r.Partial, fmt.Sprintf("the golang.org/x/benchmarks matrix (%s): %s", filepath.Base(dir), p))
	}
	if other := x.setsOf(false); len(other) > 0 {
		return fmt.Errorf("%s holds sets other than those of golang.org/x/benchmarks (%s)", dir, strings.Join(other, ", "))
	}
	if err := r.mixSeries("the golang.org/x/benchmarks matrix", dir, x.Env.SeriesSHA256, "run both at one series"); err != nil {
		return err
	}
	if x.Env.MachineLine() != r.Env.MachineLine() {
		x.Warnings = append(x.Warnings, fmt.Sprintf("the golang.org/x/benchmarks matrix (%s) ran on %s; the rest on %s",
			dir, x.Env.MachineLine(), r.Env.MachineLine()))
	}
	r.Warnings = append(r.Warnings, x.Warnings...)
	x.Warnings = nil
	r.xbench = x
	return nil
}

// writeXBench writes the section of the sets of golang.org/x/benchmarks: their tables, the A/A
// noise, their profile shares; from r's matrix, or the one LoadXBench added.
func (r *Report) writeXBench(b *bytes.Buffer) {
	x := r
	if r.xbench != nil {
		x = r.xbench
	}
	sets := x.setsOf(true)
	if len(sets) == 0 {
		return
	}
	b.WriteString("## golang.org/x/benchmarks\n\n")
	tools := "sweet and bent"
	if pin, err := results.ReadXBenchPin(x.Dir); err == nil {
		tools = fmt.Sprintf("sweet and bent of %s@%s (xbench.conf)", pin.Module, pin.Version)
	}
	if x != r {
		fmt.Fprintf(b, "From the matrix %s of %s: %d rounds × -count=%d, the variants %s.\n\n", filepath.Base(x.Dir),
			x.Env.Date, x.Spec.Rounds, x.Spec.Count, strings.Join(x.Variants, ", "))
	}
	if fromPack(x.Dir, x.Variants) {
		fmt.Fprintf(b, "The sets %s, built by %s and run from a pack (`timerlab bench --build-only`, then "+
			"`--prebuilt`: docs/benchmarks.md) in interleaved rounds like the other sets: per round and variant, the "+
			"binaries the tools built with that variant's toolchain, run as the tools run them (each of sweet's drivers "+
			"with its harness's arguments, as `-count %d` runs it; each of bent's test binaries once a round, as `-N %d`), with "+
			"the variant's GOEXPERIMENT and GODEBUG; the GODEBUG each process ran with, and each binary's toolchain, were "+
			"checked. ", codeList(sets), tools, x.Spec.Count, x.Spec.Count)
	} else {
		fmt.Fprintf(b, "The sets %s, run by %s in interleaved rounds like the other sets: per round and variant, one "+
			"`sweet run -count %d` or `bent -N %d` of the set with that variant alone, its toolchain as sweet's goroot or "+
			"bent's Root, its GOEXPERIMENT and GODEBUG in their environments (with GOTOOLCHAIN=local); every binary they "+
			"built was checked to be built by that toolchain. ", codeList(sets), tools, x.Spec.Count, x.Spec.Count)
	}
	fmt.Fprintf(b, "One table per set, as above: medians ± 95%% confidence interval, each variant's change from %s "+
		"where a Mann-Whitney U-test finds it significant, `~` where not.\n\n", x.Variants[0])
	if n := x.Spec.Rounds * x.Spec.Count; n < 6 {
		fmt.Fprintf(b, "With %d samples per variant the 95%% confidence interval of a median cannot be computed (± ∞)%s.\n\n",
			n, map[bool]string{true: ", and no difference can reach p < 0.05", false: ""}[n < 4])
	}
	if slices.Contains(sets, "sweet-etcd") {
		load := "100,000 puts (EtcdPut), then 100,000 transactions (EtcdSTM)"
		if n := x.Spec.EtcdRequests; n > 0 {
			load = fmt.Sprintf("%s puts (EtcdPut), then %[1]s transactions (EtcdSTM): the pack's load "+
				"(`--etcd-requests`), where sweet's is 100,000 of each", thousands(n))
		}
		fmt.Fprintf(b, "`sweet-etcd`: three etcd v3.6.0 servers and etcd's benchmark tool on loopback, 1000 clients over "+
			"100 connections, %s. sec/op is the mean request "+
			"latency, ops/s the throughput, pNN-latency-sec the quantiles of request latency. Each server and the "+
			"load generator run at GOMAXPROCS = %d here (sweet gives each a quarter of the machine's, at least 1): "+
			"timers moving between Ps need more cores than that.\n\n", load, max(1, x.Env.GOMAXPROCS/4))
	}
	for _, name := range sets {
		if note := x.set(name).Note; note != "" {
			fmt.Fprintf(b, "`%s`: %s.\n\n", name, note)
		}
	}
	for _, name := range sets {
		x.writeSetTables(b, "###", x.set(name), xbenchRank)
	}
	ix := x.Index.Filter(x.isXBench)
	x.writeXBenchRatios(b, ix)
	x.writeAANoise(b, ix)
	b.WriteString("### CPU profiles\n\n")
	b.WriteString("One more run per variant and set, with sweet's cpuprofile diagnostic (etcd: the profiles of the three " +
		"servers, fetched over their pprof endpoints) or bent's cpuprofile wrapper (a profile per test binary), merged " +
		"into profiles/VARIANT/SET.pb.gz: `go tool pprof -top profiles/heap/sweet-etcd.pb.gz`. " + profileCategories + " " +
		profileRule + "\n\n")
	x.writeShares(b, sets, "####")
	if x != r { // the warnings writeShares added about x's profiles
		r.Warnings = append(r.Warnings, x.Warnings...)
		x.Warnings = nil
	}
}

// writeXBenchRatios writes each variant's sec/op against the baseline's, benchmark by benchmark,
// as a ratio with its interval: the size of an effect the run can rule out, which the tables'
// "~" alone does not say.
func (r *Report) writeXBenchRatios(b *bytes.Buffer, ix *stats.Index) {
	if len(r.Variants) < 2 {
		return
	}
	fmt.Fprintf(b, "### Each variant against %s\n\n", r.Variants[0])
	fmt.Fprintf(b, "sec/op of each benchmark as the ratio to %s's: the Hodges–Lehmann estimate with its 95%% "+
		"confidence interval, `~` where the U-test finds no significant difference. An interval that holds 1 rules "+
		"out only the effects beyond it.\n\n", r.Variants[0])
	fmt.Fprintf(b, "| benchmark | %s |\n|%s\n", strings.Join(r.Variants[1:], " | "), strings.Repeat(" --- |", len(r.Variants)))
	for _, k := range ix.Keys() {
		if k.Unit != "sec/op" {
			continue
		}
		row := []string{"`" + stats.ShortPkg(k.Pkg) + "` " + k.Name}
		for _, v := range r.Variants[1:] {
			cell := "—"
			if ratio, ok := ix.Ratio(k, r.Variants[0], v); ok {
				cell = ratioCell(ratio)
			}
			row = append(row, cell)
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// writeAANoise writes, for each benchmark of ix and each of xbenchUnits, aaVariant against the
// baseline, and the largest difference between them: the noise floor of this machine and run,
// under which a variant's difference from the baseline is not evidence of anything.
func (r *Report) writeAANoise(b *bytes.Buffer, ix *stats.Index) {
	fmt.Fprintf(b, "### A/A noise: %s against %s\n\n", aaVariant, lab.Baseline)
	if r.Variants[0] != lab.Baseline || !slices.Contains(r.Variants, aaVariant) {
		fmt.Fprintf(b, "No A/A figure: the matrix did not run both %s and %s.\n\n", lab.Baseline, aaVariant)
		return
	}
	fmt.Fprintf(b, "%s and pristine %s keep timers alike (%s adds only the shared patches), so their difference "+
		"is what this machine's noise, and those patches, make of each figure. A variant whose difference from %s is "+
		"no larger than the largest here has not shown an effect.\n\n", lab.Baseline, aaVariant, lab.Baseline, lab.Baseline)
	type bench struct{ pkg, name string }
	var rows []bench
	cells := map[bench]map[string]stats.Key{}
	for _, k := range ix.Keys() {
		if xbenchRank(k.Unit) == len(xbenchUnits) {
			continue
		}
		id := bench{k.Pkg, k.Name}
		if cells[id] == nil {
			cells[id] = map[string]stats.Key{}
			rows = append(rows, id)
		}
		cells[id][k.Unit] = k
	}
	var units []string // of xbenchUnits, those some benchmark has
	for _, u := range xbenchUnits {
		for _, id := range rows {
			if _, ok := cells[id][u]; ok {
				units = append(units, u)
				break
			}
		}
	}
	fmt.Fprintf(b, "| benchmark | %s |\n|%s\n", strings.Join(units, " | "), strings.Repeat(" --- |", len(units)+1))
	worst, worstAt := -1.0, ""
	for _, id := range rows {
		row := []string{"`" + stats.ShortPkg(id.pkg) + "` " + id.name}
		for _, u := range units {
			k, ok := cells[id][u]
			if !ok {
				row = append(row, "—")
				continue
			}
			row = append(row, ix.Delta(k, lab.Baseline, aaVariant))
			s0, ok0 := ix.Summary(k, lab.Baseline)
			s1, ok1 := ix.Summary(k, aaVariant)
			if ok0 && ok1 && s0.Center != 0 {
				if d := math.Abs(s1.Center/s0.Center - 1); d > worst {
					worst, worstAt = d, fmt.Sprintf("%s, %s", id.name, u)
				}
			}
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	b.WriteString("\n")
	if worst >= 0 {
		fmt.Fprintf(b, "Largest difference of %s from %s: %.1f%% (%s).\n\n", aaVariant, lab.Baseline, 100*worst, worstAt)
	}
}

func codeList(names []string) string {
	return "`" + strings.Join(names, "`, `") + "`"
}

// thousands writes n with a comma between each group of three digits, as the report's prose
// writes counts (100,000).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// fromPack reports whether the runs in dir ran from a pack: every process its raw files record
// (the "# processes of BIN" lines a run of sweet or bent writes) is a binary staged in dir's
// bin/VARIANT/SET.d, which only timerlab bench --prebuilt runs; sweet and bent run their own
// builds. A directory whose raw files record no process did not.
func fromPack(dir string, variants []string) bool {
	seen := false
	for _, v := range variants {
		data, err := os.ReadFile(filepath.Join(dir, results.RawPath(v)))
		if err != nil {
			return false
		}
		staged := "/bin/" + v + "/"
		for line := range strings.Lines(string(data)) {
			bin, ok := strings.CutPrefix(line, "# processes of ")
			if !ok {
				continue
			}
			bin, _, _ = strings.Cut(bin, " ran with ")
			_, rest, ok := strings.Cut(filepath.ToSlash(bin), staged)
			if set, _, _ := strings.Cut(rest, "/"); !ok || !strings.HasSuffix(set, ".d") {
				return false
			}
			seen = true
		}
	}
	return seen
}
