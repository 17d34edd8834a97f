// Package suite defines the benchmark sets timerlab runs with every toolchain. A set is one Go
// package whose benchmarks are built into one test binary per toolchain and then run round after
// round, or benchmarks of golang.org/x/benchmarks that its sweet or bent builds and runs (Tool).
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

// Tool says what builds and runs a set's benchmarks.
type Tool int

const (
	// GoTest sets are one package's test binary, built with go test -c and run by timerlab.
	GoTest Tool = iota
	// Sweet sets are benchmarks of golang.org/x/benchmarks/sweet: sweet builds and runs them,
	// one sweet run per cell (internal/xbench).
	Sweet
	// Bent sets are third-party packages' benchmarks that golang.org/x/benchmarks/cmd/bent
	// fetches, builds and runs (internal/xbench).
	Bent
)

func (t Tool) String() string {
	return [...]string{"go test", "sweet", "bent"}[t]
}

// XBench is one benchmark of a Sweet or Bent set.
type XBench struct {
	// Name is sweet's name of the benchmark (sweet run -run NAME), or the name of bent's
	// [[Benchmarks]] entry.
	Name string
	// Suite is bent's suite of the benchmark (its suites.toml: the module, its version); "" for
	// sweet.
	Suite string
	// Bench is bent's -test.bench pattern; "" for sweet.
	Bench string
	// Pkg is the package its results are recorded under: sweet's benchmark driver
	// (golang.org/x/benchmarks/sweet/benchmarks/NAME), or the package bent's test binary reports.
	Pkg string
	// Expect lists the top-level benchmarks it reports, without the Benchmark prefix.
	Expect []string
}

// Set is one benchmark package and the benchmarks of it that are run.
type Set struct {
	Name string // short identifier used in file names: [a-z0-9-]+
	Pkg  string // import path; "" for a Sweet or Bent set (see XBench)
	From Module
	Tool Tool
	// XBench lists the benchmarks of a Sweet or Bent set, which go in its Expect too.
	XBench []XBench
	// OptIn marks a set that runs only when named (timerlab bench --sets): the sets of
	// golang.org/x/benchmarks, which need sweet and bent installed (timerlab xbench) and hours.
	OptIn bool
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

// Expected is one benchmark a set's results must hold: a top-level benchmark of a package.
type Expected struct {
	Pkg, Bench string
}

// Expected lists the benchmarks the set's results must hold, in order.
func (s Set) Expected() []Expected {
	var out []Expected
	if s.Tool == GoTest {
		for _, b := range s.Expect {
			out = append(out, Expected{s.Pkg, b})
		}
		return out
	}
	for _, x := range s.XBench {
		for _, b := range x.Expect {
			out = append(out, Expected{x.Pkg, b})
		}
	}
	return out
}

// XBenchNames returns the names of the set's sweet or bent benchmarks, in order.
func (s Set) XBenchNames() []string {
	var names []string
	for _, x := range s.XBench {
		names = append(names, x.Name)
	}
	return names
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
	if s.Tool == GoTest {
		if len(s.XBench) > 0 {
			return fmt.Errorf("set %s is built with go test but lists benchmarks of %s", s.Name, Sweet)
		}
		return nil
	}
	if len(s.XBench) == 0 {
		return fmt.Errorf("set %s runs with %s but lists none of its benchmarks", s.Name, s.Tool)
	}
	for _, x := range s.XBench {
		if x.Name == "" || x.Pkg == "" || len(x.Expect) == 0 || (s.Tool == Bent) != (x.Suite != "" && x.Bench != "") {
			return fmt.Errorf("set %s: benchmark %+v: want a name, a package, the benchmarks it reports, "+
				"and for bent (only) a suite and a -test.bench pattern", s.Name, x)
		}
	}
	return nil
}

// Default returns the sets that run when none is named: all but the OptIn ones.
func Default(sets []Set) []Set {
	var out []Set
	for _, s := range sets {
		if !s.OptIn {
			out = append(out, s)
		}
	}
	return out
}

// Sets returns the benchmark sets of the full or the quick matrix, in the order they are run. The
// full matrix also knows the OptIn sets of golang.org/x/benchmarks (xbenchSets), which run only
// when named.
func Sets(quick bool) []Set {
	if quick {
		return quickSets()
	}
	return append(fullSets(), xbenchSets()...)
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

// The sets of golang.org/x/benchmarks. Sweet's etcd is the timer-heavy one: each of its three
// servers wraps every request in context.WithTimeout (tens of thousands of timers started and
// stopped per run, 1-2% fired) and raft ticks on timers; gopher-lua and markdown use no timer and
// are controls, run on stand-in assets that timerlab makes (internal/xbench) because sweet's
// assets host is not always reachable. The bent set is small enough that three variants fit in
// about 20 minutes on 2 cores: bent builds every test binary with -a, 15-35 s each per variant.
func xbenchSets() []Set {
	const sweetPkg = "golang.org/x/benchmarks/sweet/benchmarks/"
	return []Set{
		xbenchSet(Set{Name: "sweet-etcd", Tool: Sweet,
			XBench: []XBench{{Name: "etcd", Pkg: sweetPkg + "etcd", Expect: []string{"EtcdPut", "EtcdSTM"}}},
			About: "sweet's etcd: a 3-server etcd v3.6.0 cluster under 1000 clients (Put, then STM), " +
				"a context.WithTimeout per request; sec/op is the mean request latency"}),
		xbenchSet(Set{Name: "sweet-controls", Tool: Sweet,
			XBench: []XBench{
				{Name: "gopher-lua", Pkg: sweetPkg + "gopher-lua", Expect: []string{"GopherLuaKNucleotide"}},
				{Name: "markdown", Pkg: sweetPkg + "markdown", Expect: []string{"MarkdownRenderXHTML"}},
			},
			About: "sweet's gopher-lua and markdown, timer-free controls, on stand-in assets made by timerlab"}),
		xbenchSet(Set{Name: "bent", Tool: Bent,
			XBench: []XBench{
				{Name: "k8s_workqueue-DelayingQueue_AddAfter", Suite: "k8s_workqueue", Pkg: "k8s.io/client-go/util/workqueue",
					Bench: "^BenchmarkDelayingQueue_AddAfter$", Expect: []string{"DelayingQueue_AddAfter"}},
				{Name: "dustin_broadcast-ParallelBrodcast", Suite: "dustin_broadcast", Pkg: "github.com/dustin/go-broadcast",
					Bench: "^BenchmarkParallelBrodcast$", Expect: []string{"ParallelBrodcast"}},
				{Name: "semver-ValidateVersionRangeFail", Suite: "semver", Pkg: "github.com/Masterminds/semver/v3",
					Bench: "^BenchmarkValidateVersionRangeFail$", Expect: []string{"ValidateVersionRangeFail"}},
				{Name: "gonum_community-NewUndirectedLayers%2FgraphSize%3D1000%2CnumGraphs%3D10", Suite: "gonum_community",
					Pkg:    "gonum.org/v1/gonum/graph/community",
					Bench:  "^BenchmarkNewUndirectedLayers$/^graphSize=1000,numGraphs=10$",
					Expect: []string{"NewUndirectedLayers"}},
			},
			About: "bent: k8s workqueue AddAfter (timers), go-broadcast (goroutine wakeups); semver, gonum community: controls"}),
	}
}

// xbenchSet completes a set of golang.org/x/benchmarks: OptIn, and its Expect from its benchmarks.
func xbenchSet(s Set) Set {
	s.OptIn = true
	for _, x := range s.XBench {
		s.Expect = append(s.Expect, x.Expect...)
	}
	return s
}
