// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux && goexperiment.timerslack

package runtime

import "internal/runtime/syscall/linux"

// SetEpollPwait2Missing makes netpoll believe epoll_pwait2 is missing, or
// no longer, and returns what it believed before.
func SetEpollPwait2Missing(missing bool) bool {
	old := epollPwait2Missing.Load()
	epollPwait2Missing.Store(missing)
	return old
}

// EpollWaitIdle waits delay nanoseconds as netpoll does, on an epoll
// instance of its own with nothing registered, so that it returns at the
// timeout. It reports epoll's results and whether it used epoll_pwait2.
func EpollWaitIdle(delay int64) (n int32, errno uintptr, precise bool) {
	fd, errno := linux.EpollCreate1(linux.EPOLL_CLOEXEC)
	if errno != 0 {
		return 0, errno, false
	}
	defer closefd(fd)
	var events [1]linux.EpollEvent
	return epollWait(fd, events[:], delay, int32((delay+999999)/1e6))
}
