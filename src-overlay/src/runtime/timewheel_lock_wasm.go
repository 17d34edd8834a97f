// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerwheel && wasm

package runtime

// wheelTryLock2 is lock2's grab without the wait. wasm has one thread: a
// held l is held by the caller's own M, which lock2 would throw for.
func wheelTryLock2(l *mutex) bool {
	if l.key == mutex_locked {
		return false
	}
	lock2(l)
	return true
}
