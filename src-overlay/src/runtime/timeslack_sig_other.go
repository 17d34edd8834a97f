// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build unix && !(linux && goexperiment.timerslack)

package runtime

// slackSigPreempt is the preemption signal's hook for the guard of a
// deferred wakeup, which only Linux has (timeslack_guard_linux.go).
func slackSigPreempt(gp *g, c *sigctxt) {}
