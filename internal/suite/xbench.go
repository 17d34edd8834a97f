package suite

// XBenchmarks is the benchmarks of golang.org/x/benchmarks that its sweet and bent build and run
// with each variant (internal/xbench), in sets that run only when named. Sweet's etcd is the
// timer-heavy one: each of its three servers wraps every request in context.WithTimeout (tens of
// thousands of timers started and stopped per run, 1-2% fired) and raft ticks on timers;
// gopher-lua and markdown use no timer and are controls, run on stand-in assets that timerlab makes
// (internal/xbench) because sweet's assets host is not always reachable. The bent set is small
// enough that three variants fit in about 20 minutes on 2 cores: bent builds every test binary
// with -a, 15-35 s each per variant. The quick matrix has none of them.
var XBenchmarks = Workload{Name: "golang.org/x/benchmarks",
	sets: func(quick bool) []Set {
		if quick {
			return nil
		}
		return xbenchSets()
	}}

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
			About: "sweet's gopher-lua and markdown, timer-free controls, on stand-in assets made by timerlab",
			Note: "gopher-lua and markdown ran on stand-in assets that timerlab makes " +
				"(internal/xbench: a k-nucleotide in Lua of its own over 2 MB of generated DNA, 16 MB of generated " +
				"Markdown), not on sweet's: their figures compare the variants within this run only"}),
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
