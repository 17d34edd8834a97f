package profiles

import (
	"bytes"
	"math"
	"testing"

	"github.com/google/pprof/profile"
)

// synthetic builds a CPU profile from stacks (leaf first, "function@file"), each 10 ms.
func synthetic(stacks ...[]string) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	fns := map[string]*profile.Function{}
	for _, stack := range stacks {
		s := &profile.Sample{Value: []int64{1, 10e6}}
		for _, frame := range stack {
			fn := fns[frame]
			if fn == nil {
				name, file := split(frame)
				fn = &profile.Function{ID: uint64(len(fns) + 1), Name: name, Filename: file}
				fns[frame] = fn
				p.Function = append(p.Function, fn)
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn}}}
			p.Location = append(p.Location, loc)
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

func split(frame string) (string, string) {
	for i := range frame {
		if frame[i] == '@' {
			return frame[:i], frame[i+1:]
		}
	}
	return frame, ""
}

func TestAnalyze(t *testing.T) {
	p := synthetic(
		// a lock taken by timer code counts as timer time
		[]string{"runtime.lock2@/go/src/runtime/lock_futex.go", "runtime.(*timers).adjust@/go/src/runtime/time.go", "time.Sleep@/go/src/time/sleep.go"},
		// a variant's own timer file
		[]string{"runtime.(*wheel).add@/go/src/runtime/timewheel.go", "main.f@/x/main.go"},
		// netpoll waits
		[]string{"internal/runtime/syscall/linux.EpollWait@/go/src/internal/runtime/syscall/linux/defs.go", "runtime.netpoll@/go/src/runtime/netpoll_epoll.go", "runtime.findRunnable@/go/src/runtime/proc.go"},
		// user code called from a timer callback is not timer time
		[]string{"main.work@/x/main.go", "runtime.(*timer).unlockAndRun@/go/src/runtime/time.go"},
		// a clock read is a clock read, even from timer code
		[]string{"runtime.nanotime1@/go/src/runtime/sys_linux_amd64.s", "runtime.nanotime@/go/src/runtime/time_nofake.go", "runtime.(*timers).check@/go/src/runtime/time.go"},
	)
	a := Analyze(p)
	if a.TotalNanos != 50e6 || a.Timer != 0.4 || a.Clock != 0.2 || a.Netpoll != 0.2 {
		t.Errorf("Analyze = total %d timer %v clock %v netpoll %v, want 50ms 0.4 0.2 0.2", a.TotalNanos, a.Timer, a.Clock, a.Netpoll)
	}
	if a.Flat["main.work"] != 0.2 {
		t.Errorf("flat share of main.work = %v", a.Flat["main.work"])
	}
}

func TestIsTimerFile(t *testing.T) {
	for file, want := range map[string]bool{
		"/go/src/runtime/time.go": true, "/go/src/runtime/timewheel.go": true,
		"/go/src/time/sleep.go": false, "/go/src/runtime/proc.go": false, "/go/src/runtime/race/time.go": false,
	} {
		if IsTimerFile(file) != want {
			t.Errorf("IsTimerFile(%s) = %v", file, !want)
		}
	}
}

func TestTopDiffs(t *testing.T) {
	// 1000 samples each: b's 10% against 40% and c's 20% against none differ most; d's none
	// against 5% differs by 5 points, beyond 3.29 standard errors (2.3 points); a's 50% against
	// 45% does not (7.3 points), nor does e's 1.0% against 1.5% (1.7 points).
	base := Analysis{Samples: 1000, Flat: map[string]float64{"a": 0.5, "b": 0.1, "c": 0.2, "e": 0.010}}
	other := Analysis{Samples: 1000, Flat: map[string]float64{"a": 0.45, "b": 0.4, "d": 0.05, "e": 0.015}}
	diffs := TopDiffs([]Analysis{base, other}, 3)
	if len(diffs) != 3 || diffs[0].Function != "b" || diffs[1].Function != "c" || diffs[2].Function != "d" {
		t.Fatalf("TopDiffs = %+v, want b, c, d", diffs)
	}
	if math.Abs(diffs[0].Shares[1]-0.4) > 1e-9 || !diffs[0].Differs[1] || diffs[0].Differs[0] {
		t.Errorf("b: shares %v, differs %v", diffs[0].Shares, diffs[0].Differs)
	}
	all := TopDiffs([]Analysis{base, other}, 10)
	for _, d := range all {
		if d.Function == "e" || d.Function == "a" {
			t.Errorf("%s listed: its shares differ by less than the interval", d.Function)
		}
	}
	if len(all) != 3 { // b, c, d
		t.Errorf("TopDiffs lists %d functions, want 3: %+v", len(all), all)
	}
	// The same shares on 50 samples each are not supported: nothing is listed.
	base.Samples, other.Samples = 50, 50
	if d := TopDiffs([]Analysis{base, other}, 10); len(d) != 0 {
		t.Errorf("TopDiffs on %d samples = %+v, want none", base.Samples, d)
	}
}

func TestRule(t *testing.T) {
	if a := (Analysis{Samples: MinSamples - 1}); a.Supported() {
		t.Errorf("%d samples supported", a.Samples)
	}
	if a := (Analysis{Samples: MinSamples}); !a.Supported() {
		t.Errorf("%d samples not supported", a.Samples)
	}
	// 10% of 100 samples: ±6.1 points (Agresti-Coull: 12 of 104).
	if h := HalfWidth(0.1, 100); math.Abs(h-0.0614) > 0.0005 {
		t.Errorf("HalfWidth(0.1, 100) = %v, want 0.0614", h)
	}
	// None of 300 samples is not known to be none: ±0.9 points.
	if h := HalfWidth(0, 300); h < 0.008 {
		t.Errorf("HalfWidth(0, 300) = %v, want about 0.009", h)
	}
	if Differs(0.1, 100, 0.15, 100) {
		t.Error("10% against 15% of 100 samples each differs")
	}
	if !Differs(0.1, 3000, 0.15, 3000) {
		t.Error("10% against 15% of 3000 samples each does not differ")
	}
	if Differs(0, 1000, 0, 1000) || Differs(0.1, 0, 0.5, 1000) {
		t.Error("a difference from nothing")
	}
}

func TestAnalyzeSamples(t *testing.T) {
	p := synthetic([]string{"main.f@/x/main.go"}, []string{"main.g@/x/main.go"}, []string{"main.f@/x/main.go"})
	if a := Analyze(p); a.Samples != 3 {
		t.Errorf("Samples = %d, want 3", a.Samples)
	}
	// Without a count value, the samples are the CPU time over the period.
	p.SampleType = p.SampleType[1:]
	for _, s := range p.Sample {
		s.Value = s.Value[1:]
	}
	p.Period = 10e6
	if a := Analyze(p); a.Samples != 3 {
		t.Errorf("Samples without a count value = %d, want 3", a.Samples)
	}
}

func TestWriteDiff(t *testing.T) {
	base := synthetic([]string{"main.f@/x/main.go"}, []string{"main.f@/x/main.go"}, []string{"main.g@/x/main.go"})
	p := synthetic([]string{"main.f@/x/main.go"}, []string{"main.g@/x/main.go"}, []string{"main.g@/x/main.go"}, []string{"main.g@/x/main.go"})
	var b bytes.Buffer
	if err := WriteDiff(&b, base, p); err != nil {
		t.Fatal(err)
	}
	d, err := profile.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	// f: 1 − 2 = −1 sample; g: 3 − 1 = +2; base samples carry pprof::base.
	net := map[string]int64{}
	baseSamples := 0
	for _, s := range d.Sample {
		net[s.Location[0].Line[0].Function.Name] += s.Value[0]
		if len(s.Label["pprof::base"]) > 0 {
			baseSamples++
			if s.Value[0] >= 0 {
				t.Errorf("a base sample of %d, want it negated", s.Value[0])
			}
		}
	}
	if net["main.f"] != -1 || net["main.g"] != 2 || baseSamples == 0 {
		t.Errorf("difference %v with %d base samples, want f −1, g +2 and base samples labelled", net, baseSamples)
	}
	// The inputs are left as they were.
	if base.Sample[0].Value[0] != 1 || base.Sample[0].Label != nil {
		t.Errorf("WriteDiff changed its base: %+v", base.Sample[0])
	}
}
