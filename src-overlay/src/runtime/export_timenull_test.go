// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timernull

// Export guts of the null floor for its tests.

package runtime

// TimerNullEntersSet arms a timer with arg as its argument, due in an
// hour, on the caller's P, reports whether it entered a timer set, and
// stops it.
func TimerNullEntersSet(arg any) bool {
	now := nanotime()
	t := newTimer(now+3600e9, 0, func(any, uintptr, int64) {}, arg, nil, now)
	t.lock()
	in := t.state&timerHeaped != 0
	t.unlock()
	t.stop()
	return in
}
