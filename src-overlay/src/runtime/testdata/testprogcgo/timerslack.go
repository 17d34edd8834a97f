// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux

package main

/*
#include <unistd.h>

static void timerSlackBlock(int fd) {
	char b;
	read(fd, &b, 1);
}
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync/atomic"
	"syscall"
	"time"
)

func init() {
	register("TimerSlackDeferralCgo", TimerSlackDeferralCgo)
}

// TimerSlackDeferralCgo runs rounds in which a P running timers defers the
// start of two goroutines (under GOEXPERIMENT=timerslack), and the first
// to start blocks its thread in a cgo call until the other starts. It
// prints how late past its timer's hard deadline the other started, the
// median of the rounds that counted a deferral, and how many did.
//
// The timers have 1ms of slack. A read deadline with none, due just after
// them, makes the pass that fires them come early in their windows, so
// that it may defer their goroutines. Each round starts with a spin that
// lets sysmon back off to its longest sleep.
func TimerSlackDeferralCgo() {
	runtime.GOMAXPROCS(2)
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		panic(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	defer r.Close()
	defer w.Close()
	deferrals := []metrics.Sample{{Name: "/sched/timers/wake-deferrals:events"}}
	var late []time.Duration
	for round := 0; len(late) < 7 && round < 40; round++ {
		// Spin long enough for sysmon to sleep its longest, so that its
		// regular looks do not end the deferral in the guard's place.
		for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		}
		var first atomic.Bool
		started := make(chan time.Time, 1)
		done := make(chan bool, 2)
		f := func() {
			if first.CompareAndSwap(false, true) {
				C.timerSlackBlock(C.int(fds[0]))
			} else {
				started <- time.Now()
				syscall.Write(fds[1], []byte{0})
			}
			done <- true
		}
		metrics.Read(deferrals)
		before := deferrals[0].Value.Uint64()
		const d = 4 * time.Millisecond
		due := time.Now().Add(d)
		os.Setenv("GODEBUG", "timerslackdefer=1,timerslack=1ms")
		time.AfterFunc(d, f)
		time.AfterFunc(d, f)
		// The pass that fires them early in their windows: a read
		// deadline with no slack due just after them, which readies no
		// goroutine, since nothing reads.
		os.Setenv("GODEBUG", "timerslackdefer=1,timerslack=0")
		r.SetReadDeadline(time.Now().Add(d))
		at := <-started
		<-done
		<-done
		if metrics.Read(deferrals); deferrals[0].Value.Uint64() != before {
			late = append(late, at.Sub(due.Add(time.Millisecond)))
		}
	}
	if len(late) == 0 {
		fmt.Println("no deferral")
		return
	}
	slices.Sort(late)
	fmt.Printf("late %d in %d rounds\n", late[len(late)/2].Nanoseconds(), len(late))
}
