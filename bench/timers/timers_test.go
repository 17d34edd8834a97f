// Package timers measures the cost of timer operations against the number of live timers, a
// burst of timers most of which are cancelled before they fire, and the cost of timers that all
// fire.
package timers

import (
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	_ "unsafe" // go:linkname
	"weak"

	"timerlab/bench/internal/rusage"
	"timerlab/bench/units"
)

func nop() {}

// startLong starts n timers due in one to two hours, spread over GOMAXPROCS goroutines so that
// every P's timer heap holds its share.
func startLong(n int) []*time.Timer {
	timers := make([]*time.Timer, n)
	startLongInto(timers)
	return timers
}

// startLongInto is startLong into timers, which it fills.
func startLongInto(timers []*time.Timer) {
	procs := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() {
			for i := p; i < len(timers); i += procs {
				timers[i] = time.AfterFunc(time.Hour+rand.N(time.Hour), nop)
			}
		})
	}
	wg.Wait()
}

func stopAll(timers []*time.Timer) {
	for _, t := range timers {
		t.Stop()
	}
}

// A size is a number of timers and its name in a sub-benchmark.
type size struct {
	name string
	n    int
}

// liveSizes are the numbers of long timers live in the cost-vs-N benchmarks.
var liveSizes = []size{{"1K", 1e3}, {"10K", 1e4}, {"100K", 1e5}, {"1M", 1e6}, {"4M", 4e6}}

// burstSizes are the numbers of timers started at once in BenchmarkBurst and BenchmarkFireAll.
var burstSizes = []size{{"100K", 1e5}, {"1M", 1e6}}

// BenchmarkCostVsN times AfterFunc+Stop of a timer due within the range of N live timers, one to
// two hours away: among the heap's far leaves, the heap's best case (an insert rarely sifts up, and
// the stopped timer is trimmed off the heap's tail by the next insert).
func BenchmarkCostVsN(b *testing.B) {
	benchAfterFuncStop(b, time.Hour)
}

// BenchmarkTimeoutVsN times AfterFunc+Stop of a timeout due in one to two seconds, before every
// one of N live timers due in one to two hours: a request timeout on a server holding idle
// connections. In the heap the timeout sifts up to the top levels and leaves a zombie there; in
// the wheel it is an append to its slot and a removal from it whatever N is.
func BenchmarkTimeoutVsN(b *testing.B) {
	benchAfterFuncStop(b, time.Second)
}

// BenchmarkTimeoutVsNGCOff is TimeoutVsN with the garbage collector off while it is timed: the
// timer set's own cost against N. With the collector on, every variant's op also pays for marking
// the N live timers (the collector runs more of the time as N grows), which no timer set can avoid;
// with it off, what still grows with N is the timer set's work and its cache misses.
func BenchmarkTimeoutVsNGCOff(b *testing.B) {
	benchAfterFuncStop(b, time.Second, gcOff)
}

// benchAfterFuncStop times AfterFunc+Stop of a timer due in [base, 2*base) with each of liveSizes
// long timers live, after calling each setup (once the live timers are started and collected).
func benchAfterFuncStop(b *testing.B, base time.Duration, setup ...func(*testing.B)) {
	for _, size := range liveSizes {
		b.Run("N="+size.name, func(b *testing.B) {
			live := startLong(size.n)
			defer stopAll(live)
			var delays [1024]time.Duration
			for i := range delays {
				delays[i] = base + rand.N(base)
			}
			runtime.GC()
			for _, f := range setup {
				f(b)
			}
			i := 0
			for b.Loop() {
				time.AfterFunc(delays[i%len(delays)], nop).Stop()
				i++
			}
		})
	}
}

// gcOff turns the garbage collector off until b ends, and collects what b allocated then.
func gcOff(b *testing.B) {
	old := debug.SetGCPercent(-1)
	b.Cleanup(func() {
		debug.SetGCPercent(old)
		runtime.GC()
	})
}

// timerSized is as large as the timer AfterFunc allocates upstream (time.Timer and its runtime
// timer: 112 bytes).
type timerSized [14]uintptr

var sink *timerSized

// BenchmarkAllocVsN times part of what AfterFunc+Stop costs besides the timer set: allocating a
// timer-sized object, and the garbage collection that allocation drives, while N timers are
// live. It is a lower bound under CostVsN and TimeoutVsN, but too low at large N: it never writes
// the object, so it never faults in fresh memory as a new timer's first lock does.
// The null floor measures the floor itself on the floor set: heap's runtime with every AfterFunc
// timer kept out of the timer sets (variants.conf's null, docs/wheel.md).
func BenchmarkAllocVsN(b *testing.B) {
	for _, size := range liveSizes {
		b.Run("N="+size.name, func(b *testing.B) {
			live := startLong(size.n)
			defer stopAll(live)
			runtime.GC()
			for b.Loop() {
				sink = new(timerSized)
			}
		})
	}
}

// BenchmarkLiveBytes reports the heap memory each live timer holds (live-B/timer): the timer
// itself and its share of the timer set (the heap's array, the wheel's slot arrays), with N long
// timers live. One op starts N timers into a slice allocated beforehand, compares the live heap
// after a collection with the live heap before, and stops them. Run one size a process with
// -test.benchtime=1x: a timer set keeps arrays it grew for earlier timers (the heap never shrinks
// its array), so a process that held as many timers before shows less.
func BenchmarkLiveBytes(b *testing.B) {
	for _, size := range liveSizes {
		b.Run("N="+size.name, func(b *testing.B) {
			live := make([]*time.Timer, size.n)
			var perTimer float64
			for b.Loop() {
				before := liveHeap()
				startLongInto(live)
				perTimer += float64(liveHeap()-before) / float64(size.n)
				stopAll(live)
			}
			b.ReportMetric(perTimer/float64(b.N), units.LiveBytes)
		})
	}
}

// BenchmarkStoppedBytes measures what a stopped AfterFunc timer keeps reachable (golang/go#75935):
// upstream keeps a stopped timer, its function and what the function holds in its P's heap, as a
// zombie, until the timer comes to the top or the tail of the heap or zombies exceed a quarter of
// it. The shape of the report: 20K AfterFunc timers due in about 1.5 hours whose functions each
// hold 4 KiB, then 100K live timers due in one to two hours, so that the 20K sit inside the heap,
// neither at its top nor at its tail; then the 20K are stopped and dropped, the same goroutine does
// one more timer operation, sleeps briefly, and a collection runs. kept-B/stopped is the 4 KiB
// times the share of the stopped timers whose 4 KiB is still reachable (read through weak
// pointers, so nothing else in the heap counts): about 4096 where the zombies stay, 0 where Stop
// takes the timer out at once. Run it on one P (-test.cpu=1), as the report's shape has it: on
// several, the goroutine moves between Ps and the 120K timers spread over their heaps.
func BenchmarkStoppedBytes(b *testing.B) { stoppedBytes(b, false) }

// BenchmarkStoppedBytesSelf is BenchmarkStoppedBytes for functions that also refer to their own
// Timer, as context.WithDeadline's does. A fix that waits for the Timer to become unreachable (a
// cleanup on it, say) never sees that happen when the function the zombie keeps reaches the Timer.
func BenchmarkStoppedBytesSelf(b *testing.B) { stoppedBytes(b, true) }

func stoppedBytes(b *testing.B, self bool) {
	const live, stopped, held = 100_000, 20_000, 4096
	longs := make([]*time.Timer, live)
	zombies := make([]*time.Timer, stopped)
	weaks := make([]weak.Pointer[[held]byte], stopped)
	var kept float64
	for b.Loop() {
		for i := range zombies {
			buf := new([held]byte)
			weaks[i] = weak.Make(buf)
			d := time.Hour + 30*time.Minute + time.Duration(i)*time.Second/10
			if self {
				var t *time.Timer
				t = time.AfterFunc(d, func() { buf[0]++; t.Stop() })
				zombies[i] = t
			} else {
				zombies[i] = time.AfterFunc(d, func() { buf[0]++ })
			}
		}
		for i := range longs {
			longs[i] = time.AfterFunc(time.Hour+time.Duration(i)*time.Hour/live, func() {})
		}
		for i, t := range zombies {
			t.Stop()
			zombies[i] = nil
		}
		time.AfterFunc(3*time.Hour, func() {}).Stop() // one more operation on the set
		time.Sleep(10 * time.Millisecond)
		runtime.GC()
		alive := 0
		for _, w := range weaks {
			if w.Value() != nil {
				alive++
			}
		}
		kept += float64(alive) * held / stopped
		stopAll(longs)
	}
	b.ReportMetric(kept/float64(b.N), units.StoppedBytes)
}

// liveHeap returns the bytes of reachable heap objects, read after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkBurst is the keep-alive pattern in compressed time: a burst of timers due in 10-50 ms
// (standing for 10-50 s), 95% of them cancelled at once, the rest left to fire; one op is one
// burst, done when every survivor has fired. ns/timer is the cost of the AfterFunc and Stop calls.
func BenchmarkBurst(b *testing.B) {
	for _, size := range burstSizes {
		b.Run("timers="+size.name, func(b *testing.B) { burst(b, size.n) })
	}
}

func burst(b *testing.B, n int) {
	timers := make([]*time.Timer, n)
	delays := make([]time.Duration, n)
	for i := range delays {
		delays[i] = 10*time.Millisecond + rand.N(40*time.Millisecond)
	}
	var fired atomic.Int64
	onFire := func() { fired.Add(1) }
	var spent time.Duration
	for b.Loop() {
		fired.Store(0)
		start := time.Now()
		for i := range timers {
			timers[i] = time.AfterFunc(delays[i], onFire)
		}
		survivors := int64(0)
		for i, t := range timers {
			if i%20 == 0 || !t.Stop() {
				survivors++
			}
		}
		spent += time.Since(start)
		waitFired(b, &fired, survivors)
	}
	b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N)/float64(n), units.NsTimer)
}

// waitFired waits until want timers have fired, failing 10 s after the last deadline: a timer
// that late is lost, not slow.
func waitFired(b *testing.B, fired *atomic.Int64, want int64) {
	deadline := time.Now().Add(50*time.Millisecond + 10*time.Second)
	for fired.Load() < want {
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d surviving timers fired", fired.Load(), want)
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkFireAll is the firing cost: N timers started in random order, due at instants spread
// evenly over one second, all left to fire; one op is one round, done when the last has fired.
// cpu-ns/timer is the process's CPU time per timer (user + system, from getrusage), read from the
// OS so that it counts the timer set's work wherever it runs: in the goroutine that starts the
// timers, in the scheduler and on the Ps that run them, and in the collector.
func BenchmarkFireAll(b *testing.B) {
	for _, size := range burstSizes {
		b.Run("timers="+size.name, func(b *testing.B) { fireAll(b, size.n) })
	}
}

func fireAll(b *testing.B, n int) {
	delays := make([]time.Duration, n)
	for i, k := range rand.Perm(n) {
		delays[i] = time.Duration(k) * time.Second / time.Duration(n)
	}
	var fired atomic.Int64
	var last chan struct{}
	onFire := func() {
		if fired.Add(1) == int64(n) {
			close(last)
		}
	}
	var cpu time.Duration
	for b.Loop() {
		fired.Store(0)
		last = make(chan struct{})
		before := rusage.Read(b).CPU
		for _, d := range delays {
			time.AfterFunc(d, onFire)
		}
		select {
		case <-last:
		case <-time.After(11 * time.Second):
			b.Fatalf("%d of %d timers fired within 10 s of the last deadline", fired.Load(), n)
		}
		cpu += rusage.Read(b).CPU - before
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n), units.CPUTimer)
}

// nanotime is the runtime's clock, the one its timers are due by: the benchmark below aligns its
// timers with the wheel's slots, which start at multiples of a power of two of it.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// The crowd of BenchmarkStopDuringCascade and the Stops asked for around its cascade.
const (
	crowdTimers = 100_000
	// slot1 is the width of a slot of the wheel's second level, 2^26 ns (docs/wheel.md): the
	// crowd is due within one such slot, which the wheel moves as a whole when its window comes.
	slot1 = 1 << 26
	// The crowd is due from crowdFrom to crowdTo after its slot's start; a trigger timer at
	// triggerAt after it wakes the owner, whose check then cascades the slot: with the wheel, a
	// move of every crowd timer under the owner's timers lock, none of them due yet; with the
	// heap, nothing but the trigger's firing.
	triggerAt = 1 * time.Millisecond
	crowdFrom = 10 * time.Millisecond
	crowdTo   = 60 * time.Millisecond
	// The victims are stopped one every stopEvery, from stopBefore before the slot's start to
	// stopAfter after it, before any crowd timer is due.
	stopEvery  = 10 * time.Microsecond
	stopBefore = 20 * time.Millisecond
	stopAfter  = 8 * time.Millisecond
)

// BenchmarkStopDuringCascade times Stop, from one P, of timers that another P owns while the
// owner's set moves a crowd of timers (a wheel Stop that takes the owner's timers lock can wait
// behind the cascade of a full slot; the heap's Stop marks the timer under its own lock, and so
// does the wheel's from another P unless it finds the set's stopped ring full while the set is not
// cascading). One op is one round: on one P the owner starts the crowd, 100K timers due
// within one slot of the wheel's second level far enough ahead for the setup to end first (twice
// the last round's setup), a trigger timer just after that slot's start, and the victims, due in an
// hour, then parks; the stopper, spinning on the other P, asks for a Stop of a victim every
// stopEvery from stopBefore before the slot's start to stopAfter after it, while no crowd timer
// fires. A Stop's time runs from when it was asked for to when it returned, so that the Stops asked
// for while an earlier one waited count that wait too (one stopper cannot call them then).
// stop-p50-ns and stop-p99-ns are the quantiles of all the Stops of all rounds (nearest rank); a
// round whose setup ends after its first Stop is due is left out. It needs two Ps (one spins) and
// an otherwise idle machine: a stopper that loses its CPU falls behind.
func BenchmarkStopDuringCascade(b *testing.B) {
	if runtime.GOMAXPROCS(0) < 2 {
		b.Skip("needs GOMAXPROCS >= 2: the stopper spins on one P while another owns the timers")
	}
	victims := make([]*time.Timer, (stopBefore+stopAfter)/stopEvery)
	var took []time.Duration
	setup, late := int64(150*time.Millisecond), 0 // the last round's setup; the rounds left out
	var fired atomic.Int64
	onFire := func() { fired.Add(1) }
	for b.Loop() {
		fired.Store(0)
		round := make([]time.Duration, 0, len(victims))
		var start atomic.Int64 // the slot's start in nanotime, once the owner has started the crowd
		done := make(chan struct{})
		go func() { // the stopper: spinning from the start, so that another P takes it
			for start.Load() == 0 {
			}
			first := start.Load() - int64(stopBefore)
			for i, v := range victims {
				asked := first + int64(i)*int64(stopEvery)
				for nanotime() < asked {
				}
				v.Stop()
				round = append(round, time.Duration(nanotime()-asked))
			}
			close(done)
		}()
		// The owner: this goroutine, on its P while the stopper spins on another. The slot starts
		// far enough ahead for the setup to end before the first Stop is due: twice the last
		// round's setup, or 300 ms for the first.
		now := nanotime()
		slot := (now+int64(stopBefore)+2*setup)/slot1*slot1 + slot1
		for i := range crowdTimers {
			due := slot + int64(crowdFrom) + int64(i)*int64(crowdTo-crowdFrom)/crowdTimers
			time.AfterFunc(time.Duration(due-nanotime()), onFire)
		}
		time.AfterFunc(time.Duration(slot+int64(triggerAt)-nanotime()), nop)
		for i := range victims {
			victims[i] = time.AfterFunc(time.Hour, nop)
		}
		runtime.GC() // not in the window
		start.Store(slot)
		setup = nanotime() - now
		onTime := nanotime() < slot-int64(stopBefore)
		<-done
		if onTime { // a late setup would be timed as Stops: the round is left out
			took = append(took, round...)
		} else {
			late++
		}
		waitFired(b, &fired, crowdTimers)
	}
	if len(took) == 0 {
		b.Skipf("every round's setup (%d) overran its first Stop: the machine is too busy to measure", late)
	}
	if late > 0 {
		b.Logf("%d of the rounds left out: their setup overran their first Stop", late)
	}
	slices.Sort(took)
	rank := func(q float64) time.Duration { return took[max(0, int(math.Ceil(q*float64(len(took))))-1)] }
	b.ReportMetric(float64(rank(0.50).Nanoseconds()), units.StopP50)
	b.ReportMetric(float64(rank(0.99).Nanoseconds()), units.StopP99)
}

// BenchmarkCollectWithZombie is the price of heap-release (golang/go#75935's answer): one op is a
// full collection, runtime.GC, with N timers live on one P and one of them stopped just before,
// so that its heap holds a zombie. Under heap-release each collection first passes over that heap
// to drop the zombie, holding its timers lock; elsewhere the zombie stays. In no set: run it with
// a variant's toolchain, -test.cpu=1, to compare one toolchain's collections with another's.
func BenchmarkCollectWithZombie(b *testing.B) {
	for _, n := range []size{{"100K", 100_000}, {"1M", 1_000_000}} {
		b.Run("N="+n.name, func(b *testing.B) {
			start := func(i int) *time.Timer {
				return time.AfterFunc(time.Hour+time.Duration(i)*time.Millisecond, func() {})
			}
			live := make([]*time.Timer, n.n)
			for i := range live {
				live[i] = start(i)
			}
			defer stopAll(live)
			runtime.GC()
			for b.Loop() {
				b.StopTimer()
				i := rand.N(len(live))
				live[i].Stop()
				live[i] = start(i)
				b.StartTimer()
				runtime.GC()
			}
		})
	}
}
