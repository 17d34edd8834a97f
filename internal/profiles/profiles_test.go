package profiles

import (
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
	base := Analysis{Flat: map[string]float64{"a": 0.5, "b": 0.1, "c": 0.2}}
	other := Analysis{Flat: map[string]float64{"a": 0.45, "b": 0.4, "d": 0.05}}
	diffs := TopDiffs([]Analysis{base, other}, 2)
	if len(diffs) != 2 || diffs[0].Function != "b" || diffs[1].Function != "c" {
		t.Fatalf("TopDiffs = %+v, want b then c", diffs)
	}
	if math.Abs(diffs[0].Shares[1]-0.4) > 1e-9 {
		t.Errorf("b's shares %v", diffs[0].Shares)
	}
}
