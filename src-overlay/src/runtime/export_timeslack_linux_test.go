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

// TimerSlackPollDeadlines opens a poll descriptor on a pipe, sets its
// deadlines as internal/poll does, each a delay in nanoseconds (<= 0 for
// none or past) for mode 'r', 'w' or 'r'+'w', and returns the slack its
// read and its write timer were armed with (0 for a timer not armed).
func TimerSlackPollDeadlines(delays []int64, modes []int) (read, write int64) {
	poll_runtime_pollServerInit()
	r, w, errno := pipe2(_O_NONBLOCK | _O_CLOEXEC)
	if errno != 0 {
		panic("TimerSlackPollDeadlines: pipe2 failed")
	}
	defer closefd(r)
	defer closefd(w)
	pd, e := poll_runtime_pollOpen(uintptr(r))
	if e != 0 {
		panic("TimerSlackPollDeadlines: pollOpen failed")
	}
	for i, d := range delays {
		poll_runtime_pollSetDeadline(pd, d, modes[i])
	}
	armed := func(t *timer) int64 {
		t.lock()
		defer t.unlock()
		if t.when <= 0 {
			return 0
		}
		return int64(t.slack.off)
	}
	read, write = armed(&pd.rt), armed(&pd.wt)
	poll_runtime_pollUnblock(pd)
	poll_runtime_pollClose(pd)
	return read, write
}
