// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerslack

// Export guts of the timer slack policy for tests.

package runtime

const (
	TimerSlackOne     = timerSlackOne
	MaxTimerSlack     = maxTimerSlack
	DefaultTimerSlack = defaultTimerSlack
)

// A TimerSlackSpec is a parsed timerslack policy: see timeslack.go.
type TimerSlackSpec struct {
	Abs, Rel, Max int64
}

func ParseTimerSlack(s string) (TimerSlackSpec, bool) {
	spec, ok := parseTimerSlack(s)
	return TimerSlackSpec{spec.abs, spec.rel, spec.max}, ok
}

// TimerSlackHard returns the hard deadline spec gives a timer due at when,
// armed at now.
func TimerSlackHard(spec TimerSlackSpec, when, now int64) int64 {
	t := &timer{when: when}
	t.slack.off = uint32(timerSlackSpec{spec.Abs, spec.Rel, spec.Max}.slack(when, now))
	return t.deadline()
}

// TimerSlackPolicy returns the policy in force.
func TimerSlackPolicy() TimerSlackSpec {
	spec := loadTimerSlack()
	return TimerSlackSpec{spec.abs, spec.rel, spec.max}
}

// SetTimerSlack sets the policy as GODEBUG=timerslack=value would.
func SetTimerSlack(value string) {
	setTimerSlack(value)
}
