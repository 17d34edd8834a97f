// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux && !goexperiment.timerslack

package runtime

import "internal/runtime/syscall/linux"

// Pwait2Timeout is the timeout GODEBUG=epollpwait2=1 waits for delay.
func Pwait2Timeout(delay int64) int64 { return pwait2Timeout(delay) }

// SetEpollPwait2 sets the GODEBUG epollpwait2 setting, and forgets that
// epoll_pwait2 went missing, and returns the setting as it was.
func SetEpollPwait2(on bool) bool {
	old := debug.epollpwait2 != 0
	debug.epollpwait2 = int32(bool2int(on))
	epollPwait2Missing.Store(false)
	return old
}

// Pwait2WaitIdle waits delay nanoseconds as netpoll does, on an epoll
// instance of its own with nothing registered, so that it returns at the
// timeout. It reports epoll's results and whether it used epoll_pwait2.
func Pwait2WaitIdle(delay int64) (n int32, errno uintptr, precise bool) {
	fd, errno := linux.EpollCreate1(linux.EPOLL_CLOEXEC)
	if errno != 0 {
		return 0, errno, false
	}
	defer closefd(fd)
	var events [1]linux.EpollEvent
	return epollWaitPwait2(fd, events[:], delay, int32((delay+999999)/1e6))
}
