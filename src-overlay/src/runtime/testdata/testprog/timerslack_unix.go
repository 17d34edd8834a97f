// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build unix

package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime/metrics"
	"sync"
	"syscall"
	"time"
)

func init() {
	register("TimerSlackDeferrals", TimerSlackDeferrals)
}

// TimerSlackDeferrals runs tickers whose goroutines a P running their
// timers may keep for itself (a deferred wakeup, under GOEXPERIMENT=timerslack),
// and prints how many wakeups the Ps deferred. With TIMERSLACK_IGNORE_URG
// set it first ignores SIGURG, the signal of a deferral's guard.
func TimerSlackDeferrals() {
	if os.Getenv("TIMERSLACK_IGNORE_URG") != "" {
		signal.Ignore(syscall.SIGURG)
	}
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := time.NewTicker(time.Duration(1000+7*i) * time.Microsecond)
			defer tk.Stop()
			for range 100 {
				<-tk.C
			}
		}()
	}
	wg.Wait()
	s := []metrics.Sample{{Name: "/sched/timers/wake-deferrals:events"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		fmt.Println("no metric /sched/timers/wake-deferrals:events")
		return
	}
	fmt.Printf("deferrals: %d\n", s[0].Value.Uint64())
}
