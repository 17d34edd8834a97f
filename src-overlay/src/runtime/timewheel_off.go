// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build !goexperiment.timerwheel

// Without GOEXPERIMENT=timerwheel the timers have no wheel: these are the
// neutral hooks that time.go calls, so the heap build behaves as upstream.
// See timewheel.go.

package runtime

type timerWheelPos struct{}

type timerWheel struct{}

func (ts *timers) wheelLen() int                             { return 0 }
func (ts *timers) wheelMoves() uint32                        { return 0 }
func (ts *timers) wheelMinWhen(when int64, seq uint32) int64 { return when }
func (ts *timers) wheelOpen() int64                          { return 0 }
func (ts *timers) wheelNext(pollUntil int64) int64           { return pollUntil }
func (ts *timers) heapSifts(t *timer) bool                   { return true }
func (ts *timers) wheelAddNew(t *timer) bool                 { return false }
func (ts *timers) wheelMoveMin(t *timer) bool                { return false }
func (t *timer) wheelModified(oldWhen, oldDeadline int64)    {}
func (t *timer) wheelFixDue() bool                           { return false }
func (t *timer) wheelFix()                                   {}
func (t *timer) wheelStopFix()                               {}
func (ts *timers) wheelDrainAdd()                            {}
func (ts *timers) wheelAdvance(now int64)                    {}
func (ts *timers) wheelHeapEmptied()                         {}
func (ts *timers) wheelLowerSlots()                          {}
func (ts *timers) wheelSweep()                               {}
func (ts *timers) wheelTake(src *timers)                     {}
func (t *timer) wheelLockOwn() *timers                       { return nil }
func (t *timer) wheelStop(locked *timers)                    {}
func (ts *timers) wheelUnlock()                              {}
func (ts *timers) wheelDrainDue() bool                       { return false }
func (ts *timers) wheelDrain()                               {}
func (ts *timers) unlockAdded()                              { ts.unlock() }
func (ts *timers) wakeTimeLocked() int64                     { return ts.wakeTime() }
func (ts *timers) wheelWakes(when int64) bool                { return true }
func (ts *timers) wheelVerify()                              {}
func (t *timer) wheeled() bool                               { return false }
func wheelDropZombies()                                      {}
