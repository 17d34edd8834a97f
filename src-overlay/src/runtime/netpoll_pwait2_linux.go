// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux

// epoll_pwait2, for the netpoller's timed waits: the timer slack variant's
// (timeslack_epoll.go) and GODEBUG=epollpwait2=1's (timeslack_epoll_off.go).
//
// GODEBUG=epollpwait2=1 is timerlab's rendering of the change proposed for
// upstream in golang/go#53824 (open as of June 2026): with it, the
// netpoller waits for a timer with epoll_pwait2's nanosecond timeout, where
// epoll_wait takes milliseconds and so fires a timer due in 20us about 1ms
// late, with the timeout rounded up to a bucket (pwait2Timeout), so that
// timers due close together share a wakeup. Written from the proposal's
// description, not from its code.

package runtime

import (
	"internal/runtime/atomic"
	"internal/runtime/syscall/linux"
	"unsafe"
)

// epollPwait2Missing is set once epoll_pwait2 has failed with anything but
// EINTR: the kernel lacks it (ENOSYS before Linux 5.11) or a seccomp filter
// refuses it (EPERM). From then on netpollWait uses epoll_wait.
var epollPwait2Missing atomic.Bool

// kernelTimespec is the kernel's struct __kernel_timespec, which
// epoll_pwait2 reads: two 64-bit fields on every architecture. It is not
// the runtime's timespec, which is the same in this release but was two
// 32-bit fields on 386, arm and mips in earlier ones (today's timespec32).
// Given that, the kernel would read the nanoseconds into the seconds' high
// half and 8 bytes of the stack beyond it as nanoseconds: a wait of about
// 10^15 seconds, or EINVAL and the fallback to epoll_wait for good
// (TestTimerSlackEpollWait, which CI runs as a 386 binary too, hangs then).
type kernelTimespec struct {
	sec, nsec int64
}

// epollPwait2 waits on fd for up to delay nanoseconds, 0 < delay < 1e15,
// with epoll_pwait2, and returns what it returned.
func epollPwait2(fd int32, events []linux.EpollEvent, delay int64) (int32, uintptr) {
	timeout := kernelTimespec{sec: delay / 1e9, nsec: delay % 1e9}
	r, _, errno := linux.Syscall6(linux.SYS_EPOLL_PWAIT2, uintptr(fd),
		uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)),
		uintptr(unsafe.Pointer(&timeout)), 0, 0)
	return int32(r), errno
}

// pwait2Timeout rounds delay up to the bucket GODEBUG=epollpwait2=1 waits
// for: a multiple of 10us below 1ms, of 100us below 10ms, of 1ms above.
func pwait2Timeout(delay int64) int64 {
	var q int64
	switch {
	case delay < 1e6:
		q = 10e3
	case delay < 10e6:
		q = 100e3
	default:
		q = 1e6
	}
	return (delay + q - 1) / q * q
}
