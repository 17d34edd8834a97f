// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timernull

// The null floor (GOEXPERIMENT=timernull) is a measuring instrument, not a
// timer set. It answers what AfterFunc+Stop costs when no timer set does
// any work. That is the floor under every variant's CostVsN and TimeoutVsN.
//
// Invariant: a timer whose argument is a func never enters a P's timer set.
// That is what time.AfterFunc passes. needsAdd answers false for it, so
// maybeAdd never runs for it. It takes no P's timers lock, wakes no
// netpoller and never fires. Its allocation, its own lock (t.mu), modify
// and stop are the heap's. Sleeps, channel timers, netpoll deadlines and
// the runtime's own timers are untouched. Every user of AfterFunc is not:
// context deadlines, a test binary's -test.timeout alarm. So only
// benchmarks that need no AfterFunc timer to fire can run with it.

package runtime

import "internal/abi"

// timerNullSkips reports whether t stays out of every timer set: its
// argument is a func. modify sets t.arg under t.mu, which needsAdd's caller
// holds.
func timerNullSkips(t *timer) bool {
	e := efaceOf(&t.arg)
	return e._type != nil && e._type.Kind() == abi.Func
}
