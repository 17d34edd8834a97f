// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !linux && goexperiment.timerslack

// Only Linux guards a deferred wakeup. Elsewhere a P defers nothing: it
// wakes an idle P for each goroutine its timers ready, as upstream. See
// "The guard" in timeslack_wake.go.

package runtime

import "internal/runtime/atomic"

type slackGuard struct {
	armed int64 // always 0
}

func slackSysmonStart()                   {}
func slackSysmonSleep(usec uint32)        { usleep(usec) }
func (pp *p) slackGuardable() bool        { return false }
func (pp *p) slackGuardArm(at int64) bool { return false }
func (pp *p) slackGuardDisarm()           {}
func (pp *p) slackGuardDelete()           {}

// slackGuardKicks stays 0: see timeslack_guard_linux.go.
var slackGuardKicks atomic.Uint32
