//go:build cascadeobs

package main

import (
	"sync/atomic"
	_ "unsafe" // go:linkname
)

// timerlabObs is the diagnostic build's counters (see ../timerlab_obs.go).
//
//go:linkname timerlabObs runtime.timerlabObs
var timerlabObs [16]uint64

func readObs() []uint64 {
	o := make([]uint64, len(timerlabObs))
	for i := range o {
		o[i] = atomic.LoadUint64(&timerlabObs[i])
	}
	return o
}
