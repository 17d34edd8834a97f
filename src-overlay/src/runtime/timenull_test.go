// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timernull

package runtime_test

import (
	. "runtime"
	"testing"
)

// TestTimerNull checks the null floor's one change: a timer whose
// argument is a func (time.AfterFunc's) enters no timer set, and any
// other timer enters one as with the heap.
func TestTimerNull(t *testing.T) {
	if TimerNullEntersSet(func() {}) {
		t.Error("a timer whose argument is a func entered a timer set")
	}
	if !TimerNullEntersSet(new(int)) {
		t.Error("a timer whose argument is not a func entered no timer set")
	}
}
