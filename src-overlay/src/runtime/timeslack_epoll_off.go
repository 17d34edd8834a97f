// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux && !goexperiment.timerslack

package runtime

import "internal/runtime/syscall/linux"

// netpollWait waits on epfd as upstream, for waitms milliseconds; with
// GODEBUG=epollpwait2=1, for delay rounded up to its bucket, with
// epoll_pwait2 (see netpoll_pwait2_linux.go), where the kernel has it.
func netpollWait(events []linux.EpollEvent, delay int64, waitms int32) (int32, uintptr) {
	n, errno, _ := epollWaitPwait2(epfd, events, delay, waitms)
	return n, errno
}

// epollWaitPwait2 is netpollWait on the epoll instance fd. It also reports
// whether it waited with epoll_pwait2. Android never uses it: see
// timeslack_epoll.go.
func epollWaitPwait2(fd int32, events []linux.EpollEvent, delay int64, waitms int32) (n int32, errno uintptr, precise bool) {
	if debug.epollpwait2 != 0 && GOOS != "android" && delay > 0 && delay < 1e15 && !epollPwait2Missing.Load() {
		n, errno := epollPwait2(fd, events, pwait2Timeout(delay))
		if errno == 0 || errno == _EINTR {
			return n, errno, true
		}
		epollPwait2Missing.Store(true)
	}
	n, errno = linux.EpollWait(fd, events, int32(len(events)), waitms)
	return n, errno, false
}
