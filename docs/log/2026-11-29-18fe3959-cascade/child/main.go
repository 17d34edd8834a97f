// Command child is one round of the cascade measurement (see ../main.go).
//
// It creates -n time.AfterFunc timers that all land in one level-1 slot of
// the wheel (GOEXPERIMENT=timerwheel), plus one trigger timer, the
// earliest of that slot. When the trigger comes due, the P that checks the
// set cascades the whole slot (n+1 timers) under the set's lock: the n
// timers go to one level-0 slot 40 ms later, the trigger into the heap,
// and the trigger fires. The round ends before the n timers are due, so
// none of them fires: the window [S-10ms, S+25ms] holds the cascade and one
// firing, and nothing else the program asks for. Under the heap variant
// the same window holds the trigger's firing alone.
//
// With -bg, goroutines sleep and spin in a loop from the timers' creation
// to the window's end, so that other
// Ps keep entering the scheduler (findRunnable, stealWork) and see the
// cascading set.
//
// It prints one JSON object with the window's figures.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	_ "unsafe" // go:linkname
)

//go:linkname nanotime runtime.nanotime
func nanotime() int64

const (
	slotShift = 26 // a level-1 slot of the wheel spans 2^26 ns
	tick      = 1 << 20
)

var (
	nTimers  = flag.Int("n", 100000, "timers to cascade")
	bg       = flag.Int("bg", 0, "background sleepers (-k: k*GOMAXPROCS-1)")
	bgSleep  = flag.Duration("bgsleep", 200*time.Microsecond, "background sleep")
	bgSpin   = flag.Duration("bgspin", 5*time.Microsecond, "background work per wake")
	lead     = flag.Duration("lead", 300*time.Millisecond, "least time from the start of creation to the slot's start S")
	winAfter = flag.Duration("win", 25*time.Millisecond, "window end after S (< 40ms: the n timers' when)")
	mutProf  = flag.String("mutexprofile", "", "write the mutex profile of the window (runtime locks included)")
)

type thread struct {
	cpu       int64 // ns on CPU
	vcs, ivcs int64 // voluntary, involuntary context switches
}

func readThreads() map[int]thread {
	m := make(map[int]thread)
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		fail(err)
	}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if th, ok := readThread(tid); ok {
			m[tid] = th
		}
	}
	return m
}

func readThread(tid int) (thread, bool) {
	var th thread
	dir := filepath.Join("/proc/self/task", strconv.Itoa(tid))
	b, err := os.ReadFile(filepath.Join(dir, "schedstat"))
	if err != nil {
		return th, false
	}
	f := strings.Fields(string(b))
	if len(f) < 1 {
		return th, false
	}
	th.cpu, _ = strconv.ParseInt(f[0], 10, 64)
	st, err := os.Open(filepath.Join(dir, "status"))
	if err != nil {
		return th, false
	}
	defer st.Close()
	sc := bufio.NewScanner(st)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
			th.vcs, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		} else if v, ok := strings.CutPrefix(line, "nonvoluntary_ctxt_switches:"); ok {
			th.ivcs, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return th, true
}

var metricNames = []string{
	"/sync/mutex/wait/total:seconds",
	"/sched/timers/cascades:timers",
	"/sched/timers/wakeups:events",
	"/sched/timers/fired:timers",
	"/sched/timers/started:timers",
}

func readMetrics() map[string]float64 {
	have := make(map[string]bool)
	for _, d := range metrics.All() {
		have[d.Name] = true
	}
	var s []metrics.Sample
	for _, n := range metricNames {
		if have[n] {
			s = append(s, metrics.Sample{Name: n})
		}
	}
	metrics.Read(s)
	out := make(map[string]float64)
	for _, x := range s {
		switch x.Value.Kind() {
		case metrics.KindUint64:
			out[x.Name] = float64(x.Value.Uint64())
		case metrics.KindFloat64:
			out[x.Name] = x.Value.Float64()
		}
	}
	return out
}

func rusage() (cpu int64, nvcsw, nivcsw int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), ru.Nvcsw, ru.Nivcsw
}

// mutexProfile sums the mutex profile's records. A runtime lock's
// contention is recorded with the stack of the unlock that ended it.
func (r *Result) mutexProfile() {
	var buf strings.Builder
	if err := pprof.Lookup("mutex").WriteTo(&buf, 1); err != nil {
		fail(err)
	}
	cps := 0.0
	var cycles, count int64
	timers := false
	flush := func() {
		if count == 0 {
			return
		}
		us := float64(cycles) / cps * 1e6
		if timers {
			r.TimersLockWaits += count
			r.TimersLockWaitUS += us
		} else {
			r.OtherLockWaits += count
			r.OtherLockWaitUS += us
		}
		cycles, count, timers = 0, 0, false
	}
	for line := range strings.Lines(buf.String()) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "cycles/second="):
			cps, _ = strconv.ParseFloat(strings.TrimPrefix(line, "cycles/second="), 64)
		case strings.Contains(line, " @ "):
			flush()
			f := strings.Fields(line)
			cycles, _ = strconv.ParseInt(f[0], 10, 64)
			count, _ = strconv.ParseInt(f[1], 10, 64)
		case strings.HasPrefix(line, "#") && strings.Contains(line, "runtime.(*timers).unlock"):
			timers = true
		}
	}
	flush()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "child:", err)
	os.Exit(1)
}

// Result is one round's figures for the window; times in µs.
type Result struct {
	Procs       int     `json:"procs"`
	BG          int     `json:"bg"`
	N           int     `json:"n"`
	Valid       bool    `json:"valid"`
	Why         string  `json:"why,omitempty"`
	CreateUS    float64 `json:"create_us"`    // time to create the n timers
	WindowUS    float64 `json:"window_us"`    // actual window length
	StartUS     float64 `json:"start_us"`     // window start - S
	EndUS       float64 `json:"end_us"`       // window end - S
	TrigLateUS  float64 `json:"trig_late_us"` // trigger callback start - trigger's when
	TopCPUUS    float64 `json:"top_cpu_us"`   // CPU of the busiest thread in the window (the cascader)
	OtherCPUUS  float64 `json:"other_cpu_us"` // CPU of all other threads but the main one
	MainCPUUS   float64 `json:"main_cpu_us"`  // the measuring thread
	RusageCPUUS float64 `json:"rusage_cpu_us"`
	VCS         int64   `json:"vcs"`  // voluntary context switches, all threads but the main one
	IVCS        int64   `json:"ivcs"` // involuntary
	Active      int     `json:"active"`
	NewThreads  int     `json:"new_threads"`
	MutexWaitUS float64 `json:"mutex_wait_us"` // the metric: sampled 1 in 8, so coarse
	// From the mutex profile of the window (every contention): waits that
	// ended at an unlock of a timers lock in check (the cascading
	// holder's), and all others.
	TimersLockWaits  int64     `json:"timers_lock_waits"`
	TimersLockWaitUS float64   `json:"timers_lock_wait_us"`
	OtherLockWaits   int64     `json:"other_lock_waits"`
	OtherLockWaitUS  float64   `json:"other_lock_wait_us"`
	Cascades         float64   `json:"cascades"`
	Wakeups          float64   `json:"wakeups"`
	Fired            float64   `json:"fired"`
	BGLateMaxUS      float64   `json:"bg_late_max_us"` // worst background wake lateness for wakes due in [S, end]
	BGWakes          int64     `json:"bg_wakes"`       // background wakes due in [S, end]
	BGLateSumUS      float64   `json:"bg_late_sum_us"`
	ThreadCPUUS      []float64 `json:"thread_cpu_us"` // per thread, by tid
	MainRank         int       `json:"main_rank"`     // the main thread's index in thread_cpu_us
	Obs              []int64   `json:"obs,omitempty"` // the diagnostic build's counters (-tags cascadeobs)
}

var (
	slotS   atomic.Int64 // S, once known
	winEnd  atomic.Int64
	lateMax atomic.Int64
	lateSum atomic.Int64
	wakes   atomic.Int64
)

func spin(d time.Duration) {
	end := nanotime() + int64(d)
	for nanotime() < end {
	}
}

func sleeper() {
	for {
		before := nanotime()
		time.Sleep(*bgSleep)
		now := nanotime()
		due := before + int64(*bgSleep)
		if s := slotS.Load(); s != 0 && due >= s && due <= winEnd.Load() {
			late := now - due
			lateSum.Add(late)
			wakes.Add(1)
			for {
				m := lateMax.Load()
				if late <= m || lateMax.CompareAndSwap(m, late) {
					break
				}
			}
		}
		spin(*bgSpin)
	}
}

func sleepUntil(t int64) {
	if d := t - nanotime(); d > 0 {
		time.Sleep(time.Duration(d))
	}
}

func main() {
	flag.Parse()
	debug.SetGCPercent(-1) // no GC in or near the window
	runtime.LockOSThread() // the measuring thread is this one, and only it
	mainTid := syscall.Gettid()
	procs := runtime.GOMAXPROCS(0)
	nbg := *bg
	if nbg < 0 {
		nbg = -nbg*procs - 1
	}
	res := Result{Procs: procs, BG: nbg, N: *nTimers, Valid: true}
	winEnd.Store(1<<62 - 1)
	time.Sleep(20 * time.Millisecond)
	// Create the timers on one P, the only one while they are created:
	// with more, a preemption of this goroutine could move it to another
	// P midway and split the timers between two sets. Growing again adds
	// Ps with empty sets. The sleep has a check lock this P's set: its
	// wheel's cursor is now, so the timers' level is the one planned.
	runtime.GOMAXPROCS(1)
	time.Sleep(time.Millisecond)

	// S: the next level-1 slot boundary at least lead from now.
	c0 := nanotime()
	S := (c0 + int64(*lead) + 1<<slotShift - 1) &^ (1<<slotShift - 1)
	farWhen := S + 40_000_000 // 38.15 ticks into the slot: one level-0 slot
	trigWhen := S + 200_000   // 0.19 ticks into the slot: the slot's earliest
	var trigRan atomic.Int64
	f := func() {}
	for range *nTimers {
		time.AfterFunc(time.Duration(farWhen-nanotime()), f)
	}
	time.AfterFunc(time.Duration(trigWhen-nanotime()), func() { trigRan.Store(nanotime()) })
	c1 := nanotime()
	runtime.GOMAXPROCS(procs)
	// The sleepers start once the timers are made, which they would slow
	// down at one P, and run for the rest of the lead before the window.
	for range nbg {
		go sleeper()
	}
	res.CreateUS = float64(c1-c0) / 1e3
	t0 := S - 10_000_000
	t1 := S + int64(*winAfter)
	if c1 > t0-2_000_000 {
		res.Valid, res.Why = false, "creation ran past the window's start"
	}
	slotS.Store(S)
	winEnd.Store(t1)

	sleepUntil(t0)
	runtime.SetMutexProfileFraction(1) // every contended lock in the window, runtime's too
	o0 := readObs()
	m0 := readMetrics()
	th0 := readThreads()
	ru0, _, _ := rusage()
	main0, _ := readThread(mainTid) // last: the reads above are before the window
	w0 := nanotime()

	sleepUntil(t1)
	w1 := nanotime()
	main1, _ := readThread(mainTid) // first: the reads below are after it
	ru1, _, _ := rusage()
	th1 := readThreads()
	m1 := readMetrics()
	o1 := readObs()
	for i := range o1 {
		res.Obs = append(res.Obs, int64(o1[i]-o0[i]))
	}
	runtime.SetMutexProfileFraction(0)
	res.mutexProfile()
	if *mutProf != "" {
		pf, err := os.Create(*mutProf)
		if err != nil {
			fail(err)
		}
		pprof.Lookup("mutex").WriteTo(pf, 0)
		pf.Close()
	}

	res.WindowUS = float64(w1-w0) / 1e3
	res.StartUS = float64(w0-S) / 1e3
	res.EndUS = float64(w1-S) / 1e3
	if w0 > S-1_000_000 || w1 < S+15_000_000 {
		res.Valid, res.Why = false, "the window missed S (the process was held off the CPU)"
	}
	if w1 > farWhen-2_000_000 {
		res.Valid, res.Why = false, "the window ran into the n timers' firing (the process was held off the CPU)"
	}
	if tr := trigRan.Load(); tr != 0 {
		res.TrigLateUS = float64(tr-trigWhen) / 1e3
	} else {
		res.Valid, res.Why = false, "trigger did not fire in the window"
	}
	res.MainCPUUS = float64(main1.cpu-main0.cpu) / 1e3
	res.RusageCPUUS = float64(ru1-ru0) / 1e3
	var top, sum int64
	for tid, b := range th1 {
		if tid == mainTid {
			continue
		}
		a, ok := th0[tid]
		if !ok {
			res.NewThreads++
		}
		d := b.cpu - a.cpu
		sum += d
		top = max(top, d)
		if d > 0 {
			res.Active++
		}
		res.VCS += b.vcs - a.vcs
		res.IVCS += b.ivcs - a.ivcs
	}
	// Every thread's CPU in the window, in the order the threads were
	// made (by tid): the first is m0, the second sysmon's.
	tids := make([]int, 0, len(th1))
	for tid := range th1 {
		tids = append(tids, tid)
	}
	sort.Ints(tids)
	for _, tid := range tids {
		res.ThreadCPUUS = append(res.ThreadCPUUS, float64(th1[tid].cpu-th0[tid].cpu)/1e3)
		if tid == mainTid {
			res.MainRank = len(res.ThreadCPUUS) - 1
		}
	}
	res.TopCPUUS = float64(top) / 1e3
	res.OtherCPUUS = float64(sum-top) / 1e3
	res.MutexWaitUS = (m1["/sync/mutex/wait/total:seconds"] - m0["/sync/mutex/wait/total:seconds"]) * 1e6
	res.Cascades = m1["/sched/timers/cascades:timers"] - m0["/sched/timers/cascades:timers"]
	res.Wakeups = m1["/sched/timers/wakeups:events"] - m0["/sched/timers/wakeups:events"]
	res.Fired = m1["/sched/timers/fired:timers"] - m0["/sched/timers/fired:timers"]
	res.BGLateMaxUS = float64(lateMax.Load()) / 1e3
	res.BGWakes = wakes.Load()
	res.BGLateSumUS = float64(lateSum.Load()) / 1e3
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fail(err)
	}
	os.Exit(0) // before the n timers are due
}
