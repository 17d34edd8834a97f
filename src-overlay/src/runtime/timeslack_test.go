// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerslack

package runtime_test

import (
	"internal/goexperiment"
	"internal/testenv"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	. "runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// pct is p percent in TimerSlackOne units, truncated as the parser does.
func pct(p float64) int64 { return int64(p * 1e7 * TimerSlackOne / 1e9) }

// TestTimerSlackParse checks the GODEBUG timerslack grammar,
// [ABS][+PCT%][:CAP], and that malformed values are refused.
func TestTimerSlackParse(t *testing.T) {
	good := []struct {
		in   string
		want TimerSlackSpec
	}{
		{"0", TimerSlackSpec{0, 0, maxWhen}},
		{"50us", TimerSlackSpec{50e3, 0, maxWhen}},
		{"1.5ms", TimerSlackSpec{1.5e6, 0, maxWhen}},
		{"2s", TimerSlackSpec{2e9, 0, maxWhen}},
		{"3µs", TimerSlackSpec{3e3, 0, maxWhen}},
		{"7ns", TimerSlackSpec{7, 0, maxWhen}},
		{".5us", TimerSlackSpec{500, 0, maxWhen}},
		{"1.0000000001s", TimerSlackSpec{1e9, 0, maxWhen}},
		{"12.5%", TimerSlackSpec{0, TimerSlackOne / 8, maxWhen}},
		{"100%", TimerSlackSpec{0, TimerSlackOne, maxWhen}},
		{"0%", TimerSlackSpec{0, 0, maxWhen}},
		{"20us+10%", TimerSlackSpec{20e3, pct(10), maxWhen}},
		{"10%+20us", TimerSlackSpec{20e3, pct(10), maxWhen}},
		{"12.5%:1ms", TimerSlackSpec{0, TimerSlackOne / 8, 1e6}},
		{"20us+10%:2ms", TimerSlackSpec{20e3, pct(10), 2e6}},
		{"1ms:0", TimerSlackSpec{1e6, 0, 0}},
		{"9223372036s", TimerSlackSpec{9223372036e9, 0, maxWhen}},
	}
	for _, tt := range good {
		got, ok := ParseTimerSlack(tt.in)
		if !ok || got != tt.want {
			t.Errorf("ParseTimerSlack(%q) = %+v, %v; want %+v, true", tt.in, got, ok, tt.want)
		}
	}
	bad := []string{
		"", "1", "ms", "1m", "1h", "-1ms", "+1ms", "1ms+", "1ms+2ms", "10%+5%", "1ms:", ":1ms",
		"1ms:2ms:3ms", "101%", "100.1%", "%", "1e3us", "1..2ms", "1.2.3ms", "1 ms", "0x10ns",
		"9223372037s", "99999999999999999999ns", "10%:5%", "abc", "1ms,2ms",
	}
	for _, in := range bad {
		if got, ok := ParseTimerSlack(in); ok {
			t.Errorf("ParseTimerSlack(%q) = %+v, true; want false", in, got)
		}
	}
	if _, ok := ParseTimerSlack(DefaultTimerSlack); !ok {
		t.Errorf("the default policy %q does not parse", DefaultTimerSlack)
	}
}

// TestTimerSlackWindow checks the window arithmetic, at the int64 extremes
// included: the hard deadline is never before when nor after maxWhen, and
// the slack is min(abs + rel*delay, cap, MaxTimerSlack) wherever that does
// not overflow.
func TestTimerSlackWindow(t *testing.T) {
	exact := []struct {
		spec            TimerSlackSpec
		when, now, want int64
	}{
		{TimerSlackSpec{0, 0, maxWhen}, 100, 0, 100},
		{TimerSlackSpec{50, 0, maxWhen}, 100, 0, 150},
		{TimerSlackSpec{0, TimerSlackOne / 8, maxWhen}, 10e6 + 1000, 1000, 10e6 + 1000 + 1.25e6},
		{TimerSlackSpec{0, TimerSlackOne / 8, 1e6}, 10e6 + 1000, 1000, 10e6 + 1000 + 1e6},
		{TimerSlackSpec{20, TimerSlackOne, maxWhen}, 1000, 900, 1120},
		{TimerSlackSpec{0, TimerSlackOne, maxWhen}, 1000, 2000, 1000}, // armed late: no relative slack
		{TimerSlackSpec{5, TimerSlackOne, maxWhen}, 1000, 2000, 1005},
		{TimerSlackSpec{1e6, 0, 0}, 1000, 0, 1000}, // a zero cap turns slack off
		{TimerSlackSpec{1, 0, maxWhen}, maxWhen, 0, maxWhen},
		{TimerSlackSpec{maxWhen, 0, maxWhen}, 1, 0, 1 + MaxTimerSlack},
		{TimerSlackSpec{maxWhen, TimerSlackOne, maxWhen}, maxWhen - 1, 1, maxWhen},
		{TimerSlackSpec{0, TimerSlackOne, maxWhen}, maxWhen, 1, maxWhen},
		{TimerSlackSpec{0, TimerSlackOne, maxWhen}, 1 << 62, 0, 1<<62 + MaxTimerSlack},
		{TimerSlackSpec{0, TimerSlackOne / 2, maxWhen}, 3e9, 0, 3e9 + 1.5e9},
		{TimerSlackSpec{0, TimerSlackOne / 2, maxWhen}, 10e9, 0, 10e9 + MaxTimerSlack},
	}
	for _, tt := range exact {
		if got := TimerSlackHard(tt.spec, tt.when, tt.now); got != tt.want {
			t.Errorf("hard(%+v, when=%d, now=%d) = %d, want %d", tt.spec, tt.when, tt.now, got, tt.want)
		}
	}

	edges := []int64{0, 1, 2, 1e3, 1e6, 1e9, 1 << 32, 1 << 62, maxWhen / 2, maxWhen - 1, maxWhen}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() int64 {
		if r.IntN(2) == 0 {
			return edges[r.IntN(len(edges))]
		}
		return r.Int64()
	}
	for range 200000 {
		spec := TimerSlackSpec{Abs: pick(), Rel: r.Int64N(TimerSlackOne + 1), Max: pick()}
		when, now := max(pick(), 1), pick()
		hard := TimerSlackHard(spec, when, now)
		if hard < when || hard-when > min(spec.Max, MaxTimerSlack) {
			t.Fatalf("hard(%+v, when=%d, now=%d) = %d: outside [when, when+cap]", spec, when, now, hard)
		}
		if delay := when - now; delay > 0 && delay < 1<<40 && spec.Abs < 1<<40 && when < 1<<61 {
			// No saturation: the slack is exactly min(abs + rel*delay, cap), rel*delay truncated
			// within a nanosecond.
			want := min(spec.Abs+(delay*spec.Rel)>>16, spec.Max, MaxTimerSlack)
			if got := hard - when; got < want-1 || got > want {
				t.Fatalf("hard(%+v, when=%d, now=%d) - when = %d, want %d", spec, when, now, got, want)
			}
		}
	}
}

// TestTimerSlackCapAt checks the threshold from which a policy gives every
// timer its cap with no multiply: at capAt the slack is the cap, one
// nanosecond before it is less, and without a relative term every delay
// gets the same slack.
func TestTimerSlackCapAt(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		spec := TimerSlackSpec{Abs: r.Int64N(2e9), Rel: r.Int64N(TimerSlackOne + 1), Max: 1 + r.Int64N(5e9)}
		if r.IntN(4) == 0 {
			spec.Rel = 0
		}
		capAt, fixed := TimerSlackCapAt(spec)
		const when = 1 << 50
		slack := func(delay int64) int64 { return TimerSlackHard(spec, when, when-delay) - when }
		ref := func(delay int64) int64 {
			return min(spec.Abs+(max(delay, 0)*spec.Rel)>>16, spec.Max, MaxTimerSlack)
		}
		if got := slack(capAt); got != fixed || got != ref(capAt) {
			t.Fatalf("%+v: slack at capAt %d is %d (fixed %d), want %d", spec, capAt, got, fixed, ref(capAt))
		}
		if capAt > 0 && slack(capAt-1) >= fixed {
			t.Fatalf("%+v: slack %d one before capAt %d reaches the cap %d", spec, slack(capAt-1), capAt, fixed)
		}
		if spec.Rel == 0 && capAt != math.MinInt64 {
			t.Fatalf("%+v: capAt %d without a relative term", spec, capAt)
		}
	}
}

// TestTimerSlackGODEBUG checks that GODEBUG sets the policy, at run time
// too, that a bad value gives upstream behaviour (no slack) rather than a
// crash, and that unsetting it restores the default.
func TestTimerSlackGODEBUG(t *testing.T) {
	defer os.Setenv("GODEBUG", os.Getenv("GODEBUG"))
	def, _ := ParseTimerSlack(DefaultTimerSlack)
	for _, tt := range []struct {
		godebug string
		want    TimerSlackSpec
	}{
		{"timerslack=50us", TimerSlackSpec{50e3, 0, maxWhen}},
		{"gctrace=0,timerslack=12.5%:1ms", TimerSlackSpec{0, TimerSlackOne / 8, 1e6}},
		{"timerslack=1ms,timerslack=2ms", TimerSlackSpec{2e6, 0, maxWhen}},
		{"timerslack=bogus", TimerSlackSpec{0, 0, maxWhen}},
		{"timerslack=-5ms", TimerSlackSpec{0, 0, maxWhen}},
		{"timerslack=0", TimerSlackSpec{0, 0, maxWhen}},
		{"gctrace=0", def},
		{"", def},
	} {
		os.Setenv("GODEBUG", tt.godebug)
		if got := TimerSlackPolicy(); got != tt.want {
			t.Errorf("GODEBUG=%q: policy %+v, want %+v", tt.godebug, got, tt.want)
		}
	}
}

// TestTimerSlackNeverEarly runs timers of many kinds under a generous
// policy and checks that none fires before its time: AfterFunc, Sleep,
// Timer channels with Reset earlier and later, and Tickers.
func TestTimerSlackNeverEarly(t *testing.T) {
	defer os.Setenv("GODEBUG", os.Getenv("GODEBUG"))
	for _, policy := range []string{"2ms", "50%", "100us+25%:3ms", "0"} {
		SetTimerSlack(policy)
		var wg sync.WaitGroup
		for i := range 200 {
			d := time.Duration(rand.N(4000)) * time.Microsecond
			wg.Go(func() {
				start := time.Now()
				switch i % 4 {
				case 0:
					done := make(chan time.Duration, 1)
					time.AfterFunc(d, func() { done <- time.Since(start) })
					checkNotEarly(t, policy, "AfterFunc", <-done, d)
				case 1:
					time.Sleep(d)
					checkNotEarly(t, policy, "Sleep", time.Since(start), d)
				case 2:
					tm := time.NewTimer(time.Hour)
					tm.Reset(2 * d)
					tm.Reset(d)
					<-tm.C
					checkNotEarly(t, policy, "Timer.Reset", time.Since(start), d)
				case 3:
					p := d/4 + time.Microsecond
					tk := time.NewTicker(p)
					for k := 1; k <= 4; k++ {
						<-tk.C
						checkNotEarly(t, policy, "Ticker", time.Since(start), time.Duration(k)*p)
					}
					tk.Stop()
				}
			})
		}
		wg.Wait()
	}
}

func checkNotEarly(t *testing.T, policy, kind string, got, want time.Duration) {
	if got < want {
		t.Errorf("timerslack=%s: %s of %v fired after %v, early", policy, kind, want, got)
	}
}

// TestTimerSlackFakeTime checks that timers on a synctest bubble's fake
// clock get no slack: each fires at exactly its when, in order.
func TestTimerSlackFakeTime(t *testing.T) {
	defer os.Setenv("GODEBUG", os.Getenv("GODEBUG"))
	os.Setenv("GODEBUG", "timerslackdefer=1,timerslack=5ms")
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		for _, d := range []time.Duration{time.Millisecond, 10 * time.Millisecond, time.Second} {
			time.Sleep(d)
			if got := time.Since(start); got != d {
				t.Errorf("fake-time Sleep(%v) ended after %v", d, got)
			}
			start = time.Now()
		}
		tk := time.NewTicker(3 * time.Millisecond)
		defer tk.Stop()
		for k := 1; k <= 3; k++ {
			if got := (<-tk.C).Sub(start); got != time.Duration(k)*3*time.Millisecond {
				t.Errorf("fake-time tick %d came at %v", k, got)
			}
		}
	})
}

// TestTimerSlackResetEarlier checks that a timer reset earlier, whose heap
// entry still holds its old deadline, runs in deadline order with the
// other timers whose windows a wakeup finds open: the wakeup re-sorts the
// stale entry before it runs any timer, as it does for a due timer. The
// times lie within the wheel's near horizon (about 1ms), so that with
// GOEXPERIMENT=timerwheel too the timers are in the heap.
func TestTimerSlackResetEarlier(t *testing.T) {
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=100us")
	const us = int64(time.Microsecond)
	m := NewTimerModel(2)
	m.Reset(0, 900*us, 0, 1) // deadline 1000us
	m.Reset(1, 500*us, 0, 1) // deadline 600us
	m.Reset(0, 490*us, 0, 1) // deadline 590us, but its heap entry says 1000us
	m.Verify()
	if _, wheel := m.Len(); wheel != 0 {
		t.Fatalf("%d timers in the wheel, want all in the heap", wheel)
	}
	fired := m.Check(510 * us) // both windows open, neither deadline passed
	if len(fired) != 2 || fired[0].ID != 0 || fired[1].ID != 1 {
		t.Errorf("at 510us fired %v, want timer 0 (deadline 590us), then timer 1 (deadline 600us)", fired)
	}
}

// TestTimerSlackArmedFrom checks that a relative slack is a share of the
// delay from the time the caller computed when from, which package time
// passes down so that arming a timer reads no clock: a timer due 10s from
// now whose when was computed from a time 20s before it has a 20s delay.
// A time of 0 means the caller has none: a timer entering a heap gets the
// delay from the clock, as does one whose when a concurrent Reset set
// between the modify that computed it and the add to a heap, and a timer
// already in a heap gets no relative slack.
func TestTimerSlackArmedFrom(t *testing.T) {
	const policy, s = "10%", int64(time.Second)
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack="+policy)
	spec, ok := ParseTimerSlack(policy)
	if !ok {
		t.Fatalf("policy %q does not parse", policy)
	}
	when, when2 := Nanotime()+10*s, Nanotime()+11*s
	got, got2 := TimerSlackArmedFrom(when, when-20*s, when2, when2-30*s)
	if want := TimerSlackHard(spec, when, when-20*s); got != want {
		t.Errorf("timer due at when, armed from when-20s: deadline when+%v, want when+%v",
			time.Duration(got-when), time.Duration(want-when))
	}
	if want := TimerSlackHard(spec, when2, when2-30*s); got2 != want {
		t.Errorf("reset due at when2, armed from when2-30s: deadline when2+%v, want when2+%v",
			time.Duration(got2-when2), time.Duration(want-when2))
	}
	if got, want := TimerSlackAddedAs(when, when, when-20*s), TimerSlackHard(spec, when, when-20*s); got != want {
		t.Errorf("timer added as set, armed from when-20s: deadline when+%v, want when+%v",
			time.Duration(got-when), time.Duration(want-when))
	}

	before := Nanotime()
	got, got2 = TimerSlackArmedFrom(when, 0, when2, 0)
	raced := TimerSlackAddedAs(when, when2, when2-30*s)
	after := Nanotime()
	lo, hi := TimerSlackHard(spec, when, after), TimerSlackHard(spec, when, before)
	if got < lo || got > hi {
		t.Errorf("timer armed from no time: deadline when+%v, want the clock's when+[%v, %v]",
			time.Duration(got-when), time.Duration(lo-when), time.Duration(hi-when))
	}
	if raced < lo || raced > hi {
		t.Errorf("timer whose when changed before its add: deadline when+%v, want the clock's when+[%v, %v]",
			time.Duration(raced-when), time.Duration(lo-when), time.Duration(hi-when))
	}
	if got2 != when2 {
		// A timer in a heap armed with no time gets no slack that depends
		// on its delay: the callers that have none read slackClock.
		t.Errorf("reset armed from no time: deadline when2+%v, want when2",
			time.Duration(got2-when2))
	}
}

// TestTimerSlackFixedNeedsNoTime checks that a policy whose slack does not
// depend on the delay (no PCT, or an ABS that reaches the cap) gives it to
// a timer armed with no reading, new or reset in its heap, without one.
func TestTimerSlackFixedNeedsNoTime(t *testing.T) {
	for _, policy := range []string{"1ms", "5ms+10%:1ms"} {
		t.Setenv("GODEBUG", "timerslackdefer=1,timerslack="+policy)
		s := int64(time.Second)
		when, when2 := Nanotime()+10*s, Nanotime()+11*s
		got, got2 := TimerSlackArmedFrom(when, 0, when2, 0)
		if got-when != 1e6 || got2-when2 != 1e6 {
			t.Errorf("%s: armed with no reading: slack %v, reset %v, want 1ms both",
				policy, time.Duration(got-when), time.Duration(got2-when2))
		}
	}
}

// TestTimerSlackSleepHandOff checks that a Sleep hands the clock reading
// its end was computed from to its timer's arming only on the M where it
// recorded it, for the same goroutine and end: a goroutine that parks on
// another M must not take another sleep's reading.
func TestTimerSlackSleepHandOff(t *testing.T) {
	now := Nanotime()
	when := now + int64(time.Second)
	same, otherG, otherWhen := TimerSlackSleepHandOff(when, now)
	if same != now {
		t.Errorf("the sleep's own reading: got %d, want %d", same, now)
	}
	if otherG != 0 || otherWhen != 0 {
		t.Errorf("another goroutine's or another end's reading: got %d and %d, want 0 (none)", otherG, otherWhen)
	}
}

// TestTimerSlackPeriodic checks that a periodic timer gets at most half its
// period of slack, and that a tick run at its hard deadline, as on an idle
// P, leaves the next tick its own instant: a Ticker keeps its rate under
// any policy. Without the cap a 1ms slack on a 1ms Ticker ran every other
// tick: the re-arm skips to the first instant of the period after the run.
func TestTimerSlackPeriodic(t *testing.T) {
	const ms = int64(time.Millisecond)
	for _, c := range []struct {
		policy        string
		period, slack int64
	}{
		{"1ms", ms, ms / 2},
		{"100%", 2 * ms, ms},
		{"1ms", 10 * ms, ms},
	} {
		t.Setenv("GODEBUG", "timerslackdefer=1,timerslack="+c.policy)
		m := NewTimerModel(1)
		start := int64(1 << 40)
		when := start + c.period
		m.Reset(0, when, c.period, start)
		for tick := range 10 {
			deadline := m.Deadline(0)
			if deadline-when != c.slack {
				t.Fatalf("policy %s, period %v: tick %d due at when+%v, want when+%v",
					c.policy, time.Duration(c.period), tick, time.Duration(deadline-when), time.Duration(c.slack))
			}
			if fired := m.Check(deadline); len(fired) != 1 || fired[0].Delay != deadline-when {
				t.Fatalf("policy %s, period %v: tick %d at its deadline fired %v, want one run %v late",
					c.policy, time.Duration(c.period), tick, fired, time.Duration(deadline-when))
			}
			when += c.period
		}
		m.Stop(0)
	}
}

// TestTimerSlackWriters sets the policy from several goroutines at once,
// as os.Setenv("GODEBUG", ...) may on Windows, where package syscall takes
// no lock, while others read it: every read, and the policy left at the
// end, must be one of the policies set, never a mix of two.
func TestTimerSlackWriters(t *testing.T) {
	t.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0") // restores the policy from GODEBUG at the end
	policies := []string{"1ms", "50%:2ms"}
	var specs []TimerSlackSpec
	for _, p := range policies {
		spec, ok := ParseTimerSlack(p)
		if !ok {
			t.Fatalf("policy %q does not parse", p)
		}
		specs = append(specs, spec)
	}
	valid := func(got TimerSlackSpec) bool { return got == specs[0] || got == specs[1] }
	SetTimerSlack(policies[0])
	// More Ps than cores, so that the OS preempts writers between their
	// stores and readers run meanwhile.
	defer GOMAXPROCS(GOMAXPROCS(8))
	n := 1000000
	if testing.Short() {
		n = 200000
	}
	var wg sync.WaitGroup
	var mixed sync.Map
	start := make(chan struct{})
	for w := range 4 {
		wg.Go(func() {
			<-start
			for i := range n {
				SetTimerSlack(policies[(w+i)%2])
			}
		})
		wg.Go(func() {
			<-start
			for range n {
				if got := TimerSlackPolicy(); !valid(got) {
					mixed.Store(got, true)
				}
			}
		})
	}
	close(start)
	wg.Wait()
	mixed.Range(func(got, _ any) bool {
		t.Errorf("read a policy that was never set: %+v", got)
		return true
	})
	if got := TimerSlackPolicy(); !valid(got) {
		t.Errorf("policy left after the writers: %+v, want %+v or %+v", got, specs[0], specs[1])
	}
}

// TestTimerSlackCgocheck2 checks that a program built with
// GOEXPERIMENT=cgocheck2 starts. The first parse of GODEBUG sets the
// slack policy in schedinit, before mallocinit: a pointer stored there
// with a write barrier has cgocheck2 look up the heap's metadata, which
// does not exist yet, and every such program crashed at start
// (cmd/cgo/internal/testerrors' TestPointerChecks, in go tool dist test).
func TestTimerSlackCgocheck2(t *testing.T) {
	testenv.MustHaveGoBuild(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() { println(\"started\") }\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	experiments := "timerslack,cgocheck2"
	if goexperiment.TimerWheel {
		experiments = "timerwheel," + experiments
	}
	exe := filepath.Join(dir, "cgocheck2.exe")
	build := testenv.CleanCmdEnv(exec.Command(testenv.GoToolPath(t), "build", "-o", exe, src))
	build.Dir = dir
	build.Env = append(build.Env, "GOEXPERIMENT="+experiments, "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", build, err, out)
	}
	for _, godebug := range []string{"", "timerslack=0", "timerslack=25%:1ms"} {
		run := testenv.CleanCmdEnv(exec.Command(exe))
		run.Env = append(run.Env, "GODEBUG="+godebug)
		if out, err := run.CombinedOutput(); err != nil || string(out) != "started\n" {
			t.Errorf("GOEXPERIMENT=%s GODEBUG=%s: %v, output %q", experiments, godebug, err, out)
		}
	}
}
