// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux && goexperiment.timerslack

package runtime_test

import (
	"errors"
	"os"
	. "runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestTimerSlackEpollWait checks the netpoller's wait with epoll_pwait2 and
// with the epoll_wait fallback. On an epoll instance of its own, a timed wait
// must time out with no error and use epoll_pwait2 exactly when the kernel
// has it, it has not gone missing and the system is not Android (where
// even the probe would be killed by the seccomp filter). Then, in the whole
// process, sleeps end not early and a read deadline fires.
func TestTimerSlackEpollWait(t *testing.T) {
	defer os.Setenv("GODEBUG", os.Getenv("GODEBUG"))
	os.Setenv("GODEBUG", "timerslack=50us")
	defer SetEpollPwait2Missing(SetEpollPwait2Missing(false))
	have := GOOS != "android" && kernelHasEpollPwait2()
	for _, missing := range []bool{false, true} {
		SetEpollPwait2Missing(missing)
		n, errno, precise := epollWaitIdle(200 * time.Microsecond)
		if n != 0 || errno != 0 || precise != (have && !missing) {
			t.Errorf("epoll_pwait2 missing=%v (kernel has it: %v): idle wait returned %d events, errno %d, used epoll_pwait2: %v",
				missing, have, n, errno, precise)
		}
		if !missing && have && SetEpollPwait2Missing(false) {
			t.Errorf("netpoll gave up epoll_pwait2 on a kernel that has it")
		}
		SetEpollPwait2Missing(missing)
		for _, d := range []time.Duration{30 * time.Microsecond, 300 * time.Microsecond, 3 * time.Millisecond} {
			start := time.Now()
			time.Sleep(d)
			checkNotEarly(t, "50us", "Sleep", time.Since(start), d)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.SetReadDeadline(time.Now().Add(2 * time.Millisecond))
		if _, err := r.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("epoll_pwait2 missing=%v: read with a deadline: %v, want %v", missing, err, os.ErrDeadlineExceeded)
		}
		r.Close()
		w.Close()
	}
}

// epollWaitIdle is EpollWaitIdle, retried while a signal interrupts it.
func epollWaitIdle(d time.Duration) (n int32, errno uintptr, precise bool) {
	for range 100 {
		if n, errno, precise = EpollWaitIdle(int64(d)); errno != uintptr(syscall.EINTR) {
			break
		}
	}
	return n, errno, precise
}

// kernelHasEpollPwait2 probes for epoll_pwait2 with a bad descriptor and
// otherwise valid arguments: EBADF means the call exists.
func kernelHasEpollPwait2() bool {
	const sysEpollPwait2 = 441 // the same on every Linux architecture but mips
	var events [1][16]byte
	_, _, errno := syscall.Syscall6(sysEpollPwait2, ^uintptr(0), uintptr(unsafe.Pointer(&events)), 1, 0, 0, 0)
	return errno == syscall.EBADF
}

// TestTimerSlackPollRearm checks that the netpoller arms a deadline timer
// it re-arms without computing its deadline (the other mode's deadline
// cleared or past) from the clock, as its own delay: with no reading it
// would get no slack.
func TestTimerSlackPollRearm(t *testing.T) {
	const policy = "25%:1ms"
	t.Setenv("GODEBUG", "timerslack="+policy)
	s := int64(time.Second)
	// SetDeadline(10s), then SetWriteDeadline(time.Time{}): the read
	// timer changes from the combined deadline's function to its own.
	read, _ := TimerSlackPollDeadlines([]int64{10 * s, 0}, []int{'r' + 'w', 'w'})
	if read != 1e6 {
		t.Errorf("read deadline re-armed after the write deadline's clear: slack %v, want 1ms", time.Duration(read))
	}
	// SetDeadline(10s), then a read deadline in the past: the write timer
	// is armed from the deadline both had.
	_, write := TimerSlackPollDeadlines([]int64{10 * s, -1}, []int{'r' + 'w', 'r'})
	if write != 1e6 {
		t.Errorf("write deadline armed after a past read deadline: slack %v, want 1ms", time.Duration(write))
	}
	// The same after a write deadline of its own, whose timer the shared
	// deadline stopped but left in its heap: re-armed there, it gets its
	// slack only from the netpoller's reading.
	_, write = TimerSlackPollDeadlines([]int64{5 * s, 10 * s, -1}, []int{'w', 'r' + 'w', 'r'})
	if write != 1e6 {
		t.Errorf("write deadline re-armed in its heap after a past read deadline: slack %v, want 1ms", time.Duration(write))
	}
}
