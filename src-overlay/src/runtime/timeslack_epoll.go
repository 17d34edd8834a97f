// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux && goexperiment.timerslack

package runtime

import "internal/runtime/syscall/linux"

// netpollWait waits on epfd for up to delay nanoseconds (< 0: no limit).
// It returns what epoll returned.
//
// With a slack policy in force it waits with epoll_pwait2's nanosecond
// timeout. A timer with little slack then fires close to its when, rather
// than at epoll_wait's next millisecond. Precision is set by the slack, and
// the policy keeps staggered timers sharing wakeups. Without slack it waits
// as upstream, for waitms milliseconds. It does the same where epoll_pwait2
// is missing. The kernel adds its own timer slack to either wait (the
// thread's timerslack_ns, 50us by default), on top of the policy's.
//
// Android never uses epoll_pwait2. Its apps' seccomp filter answers a
// system call it does not allow with SIGSYS, not an error. Releases whose
// filter lacks epoll_pwait2 would kill the process on its first precise
// wait. Package syscall never tries faccessat2 there, for the same reason.
// Elsewhere, a seccomp filter that kills a process for an unknown system
// call, rather than failing it, kills this one too. Run such programs with
// GODEBUG=timerslack=0.
func netpollWait(events []linux.EpollEvent, delay int64, waitms int32) (int32, uintptr) {
	n, errno, _ := epollWait(epfd, events, delay, waitms)
	return n, errno
}

// epollWait is netpollWait on the epoll instance fd. It also reports
// whether it waited with epoll_pwait2.
func epollWait(fd int32, events []linux.EpollEvent, delay int64, waitms int32) (n int32, errno uintptr, precise bool) {
	if GOOS != "android" && delay > 0 && delay < 1e15 && !epollPwait2Missing.Load() && loadTimerSlack().on {
		n, errno := epollPwait2(fd, events, delay)
		if errno == 0 || errno == _EINTR {
			return n, errno, true
		}
		epollPwait2Missing.Store(true)
	}
	n, errno = linux.EpollWait(fd, events, int32(len(events)), waitms)
	return n, errno, false
}
