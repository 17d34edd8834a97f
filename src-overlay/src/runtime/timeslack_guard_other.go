// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !linux && goexperiment.timerslack

// Elsewhere than on Linux a deferred wakeup has no guard, so a P defers
// none: it wakes an idle P at the end of each pass that readied
// goroutines, as upstream would at each ready. See "The guard" in
// timeslack_wake.go.

package runtime

import "internal/runtime/atomic"

type slackGuard struct {
	armed int64 // always 0
}

func (mp *m) slackGuardArm(at int64) bool { return false }
func (mp *m) slackGuardDisarm()           {}

// slackGuardPreempts stays 0: see timeslack_guard_linux.go.
var slackGuardPreempts atomic.Uint32
