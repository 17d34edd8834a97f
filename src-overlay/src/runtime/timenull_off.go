// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !goexperiment.timernull

// Without GOEXPERIMENT=timernull every timer that needs a set enters one;
// the hook in needsAdd compiles away. See timenull.go.

package runtime

func timerNullSkips(t *timer) bool { return false }
