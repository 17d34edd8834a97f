// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build linux && !goexperiment.timerslack

package runtime

import "internal/runtime/syscall/linux"

// netpollWait waits on epfd as upstream: for waitms milliseconds.
// See timeslack_epoll.go.
func netpollWait(events []linux.EpollEvent, delay int64, waitms int32) (int32, uintptr) {
	return linux.EpollWait(epfd, events, int32(len(events)), waitms)
}
