// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux && !goexperiment.timerslack

package runtime_test

import (
	. "runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestEpollPwait2Timeout checks the buckets GODEBUG=epollpwait2=1 rounds a
// timed wait up to: 10us below 1ms, 100us below 10ms, 1ms above.
func TestEpollPwait2Timeout(t *testing.T) {
	us, ms := int64(time.Microsecond), int64(time.Millisecond)
	for _, c := range []struct{ delay, want int64 }{
		{1, 10 * us}, {10 * us, 10 * us}, {10*us + 1, 20 * us}, {999 * us, ms}, {ms - 1, ms},
		{ms, ms}, {ms + 1, ms + 100*us}, {9950 * us, 10 * ms}, {10*ms - 1, 10 * ms},
		{10 * ms, 10 * ms}, {10*ms + 1, 11 * ms}, {int64(time.Hour), int64(time.Hour)},
	} {
		if got := Pwait2Timeout(c.delay); got != c.want {
			t.Errorf("timeout for %v: %v, want %v", time.Duration(c.delay), time.Duration(got), time.Duration(c.want))
		}
	}
}

// TestEpollPwait2Wait checks that the netpoller waits with epoll_pwait2
// exactly when GODEBUG=epollpwait2=1 and the kernel has the call, and
// returns at the timeout with no error either way; and that sleeps do not
// end early under the setting.
func TestEpollPwait2Wait(t *testing.T) {
	defer SetEpollPwait2(SetEpollPwait2(false))
	have := kernelHasEpollPwait2()
	for _, on := range []bool{false, true} {
		SetEpollPwait2(on)
		var n int32
		var errno uintptr
		var precise bool
		for range 100 {
			if n, errno, precise = Pwait2WaitIdle(int64(200 * time.Microsecond)); errno != uintptr(syscall.EINTR) {
				break
			}
		}
		if n != 0 || errno != 0 || precise != (on && have) {
			t.Errorf("epollpwait2=%v (kernel has it: %v): idle wait returned %d events, errno %d, used epoll_pwait2: %v",
				on, have, n, errno, precise)
		}
	}
	SetEpollPwait2(true)
	for _, d := range []time.Duration{30 * time.Microsecond, 300 * time.Microsecond, 3 * time.Millisecond} {
		start := time.Now()
		time.Sleep(d)
		if got := time.Since(start); got < d {
			t.Errorf("Sleep(%v) under epollpwait2=1 returned after %v", d, got)
		}
	}
}

// kernelHasEpollPwait2 probes for epoll_pwait2 with a bad descriptor and
// otherwise valid arguments: EBADF means the call exists.
func kernelHasEpollPwait2() bool {
	const sysEpollPwait2 = 441 // the same on every Linux architecture but mips
	var events [1][16]byte
	_, _, errno := syscall.Syscall6(sysEpollPwait2, ^uintptr(0), uintptr(unsafe.Pointer(&events)), 1, 0, 0, 0)
	return errno == syscall.EBADF
}
