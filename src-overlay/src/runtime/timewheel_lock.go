// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerwheel && !wasm

package runtime

import "internal/runtime/atomic"

// wheelTryLock2 is lock2's grab without the wait: it takes l if l is free
// and reports whether it did. It keeps l's other bits, mutexSleeping
// among them, so that its unlock2 wakes a waiter that came meanwhile, as
// lock2's own grab does.
func wheelTryLock2(l *mutex) bool {
	gp := getg()
	gp.m.locks += mutexMLocksDelta
	if v := atomic.Loaduintptr(&l.key); v&mutexLocked == 0 && atomic.Casuintptr(&l.key, v, v|mutexLocked) {
		return true
	}
	gp.m.locks -= mutexMLocksDelta
	return false
}
