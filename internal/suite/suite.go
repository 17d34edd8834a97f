// Package suite defines the benchmark sets timerlab runs with every toolchain. A set is one Go
// package whose benchmarks are built into one test binary per toolchain and then run round after
// round.
package suite

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Module says where a set's package is built from.
type Module int

const (
	// Std packages are built from the toolchain's own GOROOT/src, so each variant runs the
	// benchmarks of its own tree.
	Std Module = iota
	// Bench packages are built in the repository's bench/ module, which pins the workloads and
	// the third-party libraries.
	Bench
)

// Set is one benchmark package and the benchmarks of it that are run.
type Set struct {
	Name string // short identifier used in file names: [a-z0-9-]+
	Pkg  string // import path
	From Module
	// Bench is the -test.bench pattern; '/' separates the levels of sub-benchmarks.
	Bench string
	// Expect lists the top-level benchmarks (without the Benchmark prefix) the pattern is meant
	// to select. Ones a toolchain's package lacks are reported when the set is built.
	Expect    []string
	Benchtime string // -test.benchtime; "" for the default
	// CPU is the -test.cpu list: the GOMAXPROCS the benchmarks run at, set by the testing package
	// before they start; "" for the binary's own.
	CPU   string
	About string // one line for the report
	// Sweep marks a set that the timer slack policy changes the figures of: the alias rows of
	// variants.conf (one toolchain at several GODEBUG settings) run on such sets only, unless
	// timerlab bench --sweep-sets says otherwise.
	Sweep bool
}

// ModuleDir returns the directory go commands for s run in: GOROOT/src for the standard library,
// the repository's bench/ otherwise.
func (s Set) ModuleDir(goroot, repoRoot string) string {
	if s.From == Std {
		return filepath.Join(goroot, "src")
	}
	return filepath.Join(repoRoot, "bench")
}

// benchModule is the module path of the repository's bench/.
const benchModule = "timerlab/bench"

// RepoDir returns the directory of s's package in the repository at repoRoot, if it lives there
// (bench/ holds the package and not only its dependencies).
func (s Set) RepoDir(repoRoot string) (string, bool) {
	rel, ok := strings.CutPrefix(s.Pkg, benchModule+"/")
	if s.From != Bench || !ok {
		return "", false
	}
	return filepath.Join(repoRoot, "bench", filepath.FromSlash(rel)), true
}

// ListPattern is the -test.list pattern matching exactly the expected top-level benchmarks.
func (s Set) ListPattern() string {
	return anyOf(s.Expect...)
}

// Missing returns the expected benchmarks absent from listed, the output of -test.list.
func (s Set) Missing(listed string) []string {
	have := map[string]bool{}
	for _, line := range strings.Fields(listed) {
		have[strings.TrimPrefix(line, "Benchmark")] = true
	}
	var missing []string
	for _, name := range s.Expect {
		if !have[name] {
			missing = append(missing, name)
		}
	}
	return missing
}

var validName = regexp.MustCompile(`^[a-z0-9-]+$`)

// Validate reports a set whose name cannot be a file name or whose pattern does not compile.
func (s Set) Validate() error {
	if !validName.MatchString(s.Name) {
		return fmt.Errorf("set name %q: want [a-z0-9-]+", s.Name)
	}
	for _, level := range strings.Split(s.Bench, "/") {
		if _, err := regexp.Compile(level); err != nil {
			return fmt.Errorf("set %s: bench pattern %q: %v", s.Name, s.Bench, err)
		}
	}
	if len(s.Expect) == 0 {
		return fmt.Errorf("set %s expects no benchmarks", s.Name)
	}
	return nil
}

// Sets returns the benchmark sets of the full or the quick matrix, in the order they are run.
func Sets(quick bool) []Set {
	if quick {
		return quickSets()
	}
	return fullSets()
}

// SweepSets returns the names of the sets marked Sweep, in order.
func SweepSets(sets []Set) []string {
	var names []string
	for _, s := range sets {
		if s.Sweep {
			names = append(names, s.Name)
		}
	}
	return names
}

// Find returns the set called name among sets.
func Find(sets []Set, name string) (Set, bool) {
	for _, s := range sets {
		if s.Name == name {
			return s, true
		}
	}
	return Set{}, false
}

// Go's own timer benchmarks in package time.
var stdTimeBenchmarks = []string{
	"AfterFunc1000", "After", "Stop", "StartStop1000", "Reset", "Sleep1000",
	"SimultaneousAfterFunc1000", "AdjustTimers10000", "Ticker", "TickerReset",
	"ParallelTimerLatency", "StaggeredTickerLatency",
}

// The subset of stdTimeBenchmarks the quick matrix runs.
var quickTimeBenchmarks = []string{
	"AfterFunc1000", "Stop", "StartStop1000", "Reset", "AdjustTimers10000", "TickerReset",
	"ParallelTimerLatency", "StaggeredTickerLatency",
}

// anyOf is the top-level -test.bench pattern selecting exactly the benchmarks named.
func anyOf(names ...string) string {
	return "^Benchmark(" + strings.Join(names, "|") + ")$"
}

func fullSets() []Set {
	return []Set{
		{Name: "std-time", Pkg: "time", From: Std, Bench: anyOf(stdTimeBenchmarks...),
			Expect: stdTimeBenchmarks, About: "Go's own timer benchmarks (src/time)"},
		{Name: "std-context", Pkg: "context", From: Std, Bench: anyOf("WithTimeout"),
			Expect: []string{"WithTimeout"}, About: "context.WithTimeout churn (src/context)"},
		{Name: "std-net", Pkg: "net", From: Std,
			Bench:  anyOf("TCP4OneShotTimeout", "TCP4PersistentTimeout", "SetReadDeadline"),
			Expect: []string{"TCP4OneShotTimeout", "TCP4PersistentTimeout", "SetReadDeadline"},
			About:  "net deadlines on loopback TCP (src/net)"},
		timersSet("", "1s"),
		timersGCOffSet("", "1s"),
		{Name: "firing", Pkg: "timerlab/bench/timers", From: Bench, Bench: anyOf("FireAll") + "/^timers=(100K|1M)$",
			Expect: []string{"FireAll"}, Benchtime: "3x",
			About: "firing cost: N timers due over one second, all left to fire; CPU per timer from getrusage"},
		{Name: "deadline", Pkg: "timerlab/bench/deadline", From: Bench, Bench: anyOf("DeadlineChurn", "TimerResetChurn"),
			Expect: []string{"DeadlineChurn", "TimerResetChurn"},
			About:  "deadline churn: SetReadDeadline / Reset moved earlier and later (golang/go#41699)"},
		{Name: "httptimeout", Pkg: "timerlab/bench/httptimeout", From: Bench, Bench: anyOf("HTTPWithTimeout"),
			Expect: []string{"HTTPWithTimeout"},
			About:  "loopback net/http server, context.WithTimeout per request, bounded load"},
		wakeupsSet("1s"),
		wakeupsFloorSet("1s"),
		{Name: "grpc", Pkg: "timerlab/bench/grpcload", From: Bench, Bench: anyOf("GRPCUnaryDeadline"),
			Expect: []string{"GRPCUnaryDeadline"},
			About:  "google.golang.org/grpc unary health checks with per-call deadlines over loopback"},
		{Name: "fasthttp", Pkg: "github.com/valyala/fasthttp", From: Bench,
			Bench: anyOf("ClientGetTimeoutFastServer", "ClientGetEndToEnd10TCP",
				"NetHTTPClientGetEndToEnd10TCP", "ServerTimeoutError"),
			Expect: []string{"ClientGetTimeoutFastServer", "ClientGetEndToEnd10TCP",
				"NetHTTPClientGetEndToEnd10TCP", "ServerTimeoutError"},
			About: "github.com/valyala/fasthttp's own benchmarks: GetTimeout, loopback TCP end to end"},
	}
}

// quickSets is the CI matrix: the same workloads with small N and short runs, without the
// net package and the third-party libraries, whose builds dominate a short run.
func quickSets() []Set {
	return []Set{
		{Name: "std-time", Pkg: "time", From: Std, Bench: anyOf(quickTimeBenchmarks...), Expect: quickTimeBenchmarks,
			Benchtime: "100ms", About: "Go's own timer benchmarks (src/time), a subset"},
		{Name: "std-context", Pkg: "context", From: Std, Bench: anyOf("WithTimeout") + "/^concurrency=40$",
			Expect: []string{"WithTimeout"}, Benchtime: "100ms", About: "context.WithTimeout churn (src/context)"},
		timersSet("quick", "100ms"),
		timersGCOffSet("quick", "100ms"),
		{Name: "deadline", Pkg: "timerlab/bench/deadline", From: Bench, Bench: anyOf("DeadlineChurn", "TimerResetChurn"),
			Expect: []string{"DeadlineChurn", "TimerResetChurn"}, Benchtime: "100ms",
			About: "deadline churn: SetReadDeadline / Reset moved earlier and later (golang/go#41699)"},
		{Name: "httptimeout", Pkg: "timerlab/bench/httptimeout", From: Bench, Bench: anyOf("HTTPWithTimeout"),
			Expect: []string{"HTTPWithTimeout"}, Benchtime: "2000x",
			About: "loopback net/http server, context.WithTimeout per request, bounded load"},
		wakeupsSet("300ms"),
		wakeupsFloorSet("300ms"),
	}
}

// timersBenchmarks are the benchmarks of bench/timers.
var timersBenchmarks = []string{"CostVsN", "TimeoutVsN", "AllocVsN", "Burst"}

// timersSet is the cost-vs-N and burst workload; quick selects the small sizes.
func timersSet(quick, benchtime string) Set {
	burst := "timers=1M"
	if quick != "" {
		burst = "timers=100K"
	}
	sizes := "^(" + liveSizes(quick) + "|" + burst + ")$"
	return Set{Name: "timers", Pkg: "timerlab/bench/timers", From: Bench,
		Bench: anyOf(timersBenchmarks...) + "/" + sizes, Expect: timersBenchmarks,
		Benchtime: benchtime,
		About: "AfterFunc+Stop cost with N long timers live, of a timer due among them and of a " +
			"timeout due before them, and the allocation floor under both; a burst of timers, most cancelled"}
}

// timersGCOffSet is the timeout cost against N with the collector off while timed: the timer
// set's own growth with N, apart from the marking of the live timers that every variant pays.
// It is a set of its own, not a benchmark of timers, so that results recorded before it existed
// still hold every benchmark their sets expect.
func timersGCOffSet(quick, benchtime string) Set {
	return Set{Name: "timers-gcoff", Pkg: "timerlab/bench/timers", From: Bench,
		Bench: anyOf("TimeoutVsNGCOff") + "/^" + liveSizes(quick) + "$", Expect: []string{"TimeoutVsNGCOff"},
		Benchtime: benchtime,
		About:     "TimeoutVsN with the garbage collector off while timed: the timer set's own cost against N"}
}

// liveSizes is the sub-benchmark pattern of the numbers of live timers the cost-vs-N benchmarks
// run with; quick selects the small ones.
func liveSizes(quick string) string {
	if quick != "" {
		return "N=(1K|100K)"
	}
	return "N=(1K|100K|1M|4M)"
}

func wakeupsSet(benchtime string) Set {
	return Set{Name: "wakeups", Pkg: "timerlab/bench/wakeups", From: Bench,
		Bench: anyOf("StaggeredTickers", "SubMsSleep"), Expect: []string{"StaggeredTickers", "SubMsSleep"},
		Benchtime: benchtime, Sweep: true,
		About: "1000 staggered 10ms tickers; 50 goroutines sleeping 20-1000us: wakeups, CPU, lateness, coalescing"}
}

// wakeupsFloorSet is the tickers of the wakeups set on one P: their CPU there is the floor under
// what any wakeup policy can save on them (bench/wakeups, StaggeredTickersOneP). It is a set of its
// own for the reason timersGCOffSet is, and not a sweep set: the floor is the work of receiving the
// ticks, which the slack policy does not change.
func wakeupsFloorSet(benchtime string) Set {
	return Set{Name: "wakeups-1p", Pkg: "timerlab/bench/wakeups", From: Bench,
		Bench: anyOf("StaggeredTickersOneP"), Expect: []string{"StaggeredTickersOneP"}, Benchtime: benchtime, CPU: "1",
		About: "the 1000 staggered tickers with GOMAXPROCS=1: the CPU of receiving the ticks, the floor under any wakeup policy"}
}
