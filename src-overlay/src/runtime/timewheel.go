// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerwheel

// Hierarchical timing wheel for the per-P timers (GOEXPERIMENT=timerwheel).
//
// Each timers set keeps upstream's 4-ary heap for the near future and adds
// a hierarchical wheel for everything later. The heap stays exact: a timer
// runs only from the heap, in when order, so the wheel never quantises when
// a timer fires; it only decides when a far timer moves into the heap.
//
// The wheel has wheelLevels levels of wheelSlots slots. A slot of level k
// spans 1<<wheelShift(k) nanoseconds (level 0: 2^20 ns, about 1.05 ms; each
// level 64x coarser; level 7 spans 2^62 ns, so the levels cover every
// positive int64). The cursor is the time up to which the wheel has been
// processed. A timer with when w is placed relative to the cursor c:
//
//   - in the heap if w>>wheelTickShift <= c>>wheelTickShift, that is, if w is
//     not later than the cursor's level-0 slot (the near horizon);
//   - otherwise at level k = (msb(w^c) - wheelTickShift) / wheelSlotBits, the
//     level of the highest bit where w and c differ, in slot (w>>shift(k))&63.
//
// Wheel invariant: every timer in slot s of level k agrees with the cursor on
// all bits at and above wheelShift(k+1), and s > the cursor's slot at level k.
// So every slot of level k starts after the cursor and before any slot of
// level k+1: the earliest timer lies in the lowest occupied slot of the
// lowest non-empty level, found with one count-trailing-zeros of that level's
// occupancy bitmap.
//
// Placement invariant: the slot of a timer starts at or before its when.
// Moving a timer later (its when and its deadline, below, no earlier than
// before) may leave it in its old (earlier) slot with timerModified set; it is
// re-placed when that slot cascades. Moving it earlier re-places it at once
// (wheelFix), unless its when stays within the level-0 tick of its old
// when (see "Earlier in place" below).
//
// Stopped timers: a Stop on the P holding the timer removes it at once, under
// that P's timers lock (wheelLockOwn, wheelStop), as its other timers
// operations do, unless the set is busy or its lock held (below). A Stop on
// another P marks it a zombie, as upstream marks a heap timer, under the
// timer's lock only: it takes no timers lock, so it does not wait behind the
// owner's cascade. It also lists the timer in its set's stopped ring
// (wheelStopped), lock-free, and every holder of the timers lock drains the
// ring (maybeAdd as it locks, see below; a Stop that holds the lock only if
// it emptied the set, see unlockStopped; every other holder as it unlocks:
// wheelDrain, from timers.unlock), unlinking each listed zombie in O(1): the
// owner's next add or check, another P's check of this set, which locks for a
// non-empty ring though no timer is due (wheelDrainDue). So a stopped timer's
// function and argument stay reachable only until then, not until its slot
// cascades, unless its Stop overflowed (below). Draining at every unlock, not
// at every lock, leaves no entry behind a holder that drops the timer on its
// own (a cascade or a sweep of a timer listed meanwhile): a holder that does
// not drain as it unlocks leaves the set with a timer, so its wake time is
// not 0 and a later check drains the entries listed before or after.
// maybeAdd, on the path of every timer started, drains as it locks, since its
// critical section takes no timer out of the wheel (unlockAdded), and leaves
// an overflow's sweep to check (wheelDrainAdd); a Stop takes out its own
// timer alone (unlockStopped). A drain that sweeps (below) drains again after
// the sweep the entries listed during it.
//
// Stopped-ring invariant: every zombie that a Stop made or stopped in a
// slot of ts's wheel is named in ts's ring, or carries timerWheelFix
// (while that Stop has yet to remove it, or, if it overflowed, until its
// slot cascades or a sweep drops it), until a holder of ts's lock removes
// it. Stop lists the timer under its
// lock, in the same critical section that marks it; a Stop that finds the
// ring full marks the timer timerWheelFix instead and, once it has dropped
// the timer's lock, removes the timer under the timers lock if it can take
// it at once (wheelStopped, wheelStopFix), leaving the ring's entries to
// the next holder while the set keeps a timer; if the set is busy or its
// lock held, it overflows (wheelOverflow, below). A ring entry may
// be stale (the timer was revived by a Reset, dropped by a cascade, or
// moved since): the drain removes only a timer that is, under its lock, a
// zombie in a slot of the draining set. While a zombie waits in its slot
// the slot's slotMin still counts it, so a P that no other P checks may
// wake once for a slot that holds only zombies, then drain it. (A channel
// timer that nothing waits on still becomes a zombie, as upstream, when its
// last waiter leaves (unblockTimerChan): that is not a Stop, and lists
// nothing. A Stop of it then lists it, as it lists any zombie with a when;
// until then the cascade or wheelSweep drops it.)
//
// Busy sets: a cascade of a full slot moves up to 2^23 timers under the
// timers lock, milliseconds of work, and a Stop must not wait for it, as
// it waits for no heap operation upstream. So the holder marks the set
// busy while it cascades (wheelAdvance) and while its drain sweeps (below),
// and a Stop that would take the lock looks first: a Stop on the owner's
// P, whose set another P's check may be cascading, lists its timer
// instead of locking (lockOwnTimers); a Stop that finds the ring full
// overflows: it leaves its zombie unlisted, marked timerWheelFix, and sets
// wheelOverflowed in nstopped (wheelOverflow), and the holder's drain,
// which runs once busy is clear, sweeps every zombie from the wheel if
// zombies exceed a quarter of the set's timers (wheelSweepDue), upstream's
// rule for its heap's zombies; below that the unlisted ones wait for their
// slots' cascades or a later sweep, as upstream's wait, their functions
// reachable meanwhile. A Stop that overflows during that sweep sets the
// bit again, and the next holder's drain looks again: check locks for it
// as for a non-empty ring. The drain of check, or of any holder but
// maybeAdd and a Stop (which drains only a set it emptied, with no zombie
// left), may be the one that sweeps: the sweep walks the whole wheel,
// O(n), and the quarter rule makes it O(1) amortised per zombie however
// many Stops overflow; no Stop and no timer start waits for it.
//
// Stops never wait: busy narrows to a few instructions the window in which a
// Stop that found it clear could go on to wait behind a holder that sets it,
// but a holder takes the lock before it knows it will cascade, and may wait
// for the lock itself while Stops that load busy come and go. So a Stop takes
// the timers lock only if it is free (wheelTryLock): a Stop on the owner's P
// that finds it held lists its timer in the ring, and a Stop that finds the
// ring full and the lock held overflows, as when it finds the set busy. A
// Stop that takes the lock holds it for its own timer alone: it neither waits
// for a holder nor makes one wait long. (A Stop that waited behind a cascade
// of 100K timers, while Stops were asked for every 10 µs, made all those
// asked for meanwhile wait too: milliseconds for hundreds of them.)
//
// Earlier in place: a deadline set again and again to about the same
// instant (SetReadDeadline with one deadline: package net and the runtime
// read the clock apart, so the when moves by a few nanoseconds either way)
// moves the timer earlier half the time. Its slot still starts at or before
// the new when if the new when lies in the same level-0 tick (2^20 ns
// block) as the old, or a later one, because the old when was at or after
// the slot's start and every slot starts on a tick boundary. So such a move
// leaves the timer where it is, as a later move does, and needs no timers
// lock; only its slot's slotMin may now lie above its deadline. modify marks
// the slot in lowered, then lowers minWhenModified to the deadline as it
// does for every timer moved earlier, wheel or heap. adjust clears
// minWhenModified and then collects the marks (wheelLowerSlots), lowering
// the slotMin of each marked slot to the slot's start, which bounds every
// timer in it whatever its deadline, before anything may raise the wake
// time. So the deadline is always bounded: a mark collected by that adjust
// has its slot lowered for good (until the timer leaves it, re-placed
// exactly); a mark set after the collection was set after the clearing, so
// modify's later read sees the bound cleared, or lowered again since, and
// lowers it to the deadline, and the next adjust, which clears that bound,
// collects the mark. (Lowering to the bound adjust cleared instead of to the
// start fails when the mark falls between the clearing and the collection:
// the bound cleared may be later than the deadline, and the mark is gone.)
//
// When the clock passes a slot's start (wheelAdvance, from check), the slot
// cascades: each timer is re-placed relative to the new cursor, into a lower
// level or into the heap. Each timer cascades at most wheelLevels times.
// A P wakes for the wheel at its wake bound (minWhen): the least deadline
// linked into any slot, where a timer's deadline (t.deadline()) is its when,
// or with GOEXPERIMENT=timerslack its hard deadline when+slack, by which the
// heap is keyed too (see timeslack.go). Without slack the earliest slot
// holds the least, so a lone far timer costs one wakeup, not two. With
// slack, timers sit in the wheel by their when, so that a wakeup cascades
// every slot whose windows may have opened into the heap, which runs the
// open ones; and the P sleeps until the earliest hard deadline, which may
// lie in any slot.
//
// Timers using fake time (synctest bubbles) always go into the heap: a bubble
// advances its clock straight to wakeTime, so waking at a bound that is no
// timer's when (a stale slotMin) would be visible as a jump of fake time
// with nothing to run.

package runtime

import (
	"internal/goexperiment"
	"internal/runtime/atomic"
	"internal/runtime/sys"
	"unsafe"
)

const (
	wheelSlotBits  = 6
	wheelSlots     = 1 << wheelSlotBits
	wheelTickShift = 20 // level 0 slots span 2^20 ns, about 1.05 ms
	wheelLevels    = 8  // level 7 (shift 62) holds the top bit of a positive int64

	// wheelStoppedMax is the size of a set's stopped ring: a Stop that
	// finds it full removes its own timer (wheelStopped, wheelStopFix).
	wheelStoppedMax = 512

	// verifyWheel checks the wheel's invariants after every operation.
	verifyWheel = false
)

// timerWheeled is set in timer.state when the timer is in a wheel slot
// rather than in the heap. Only set when timerHeaped is also set.
const timerWheeled = timerZombie << 1

// timerWheelFix is set in timer.state, with timerWheeled, while a wheelFix
// of the timer is due: modify moved it earlier out of its slot's span, or
// revived it from a zombie, or stop found the stopped ring full, and has
// yet to call wheelFix or wheelStopFix, which clear it, as a fresh
// placement (wheelAdd) does; or a Stop overflowed, and it stays until the
// timer's slot cascades or a sweep drops it. Until then the timer may lie
// in a slot that starts after its when, or be a zombie in no ring;
// wheelVerify allows that only for it.
const timerWheelFix = timerWheeled << 1

// wheelShift returns log2 of the span of a slot of level.
func wheelShift(level int) uint {
	return wheelTickShift + uint(level)*wheelSlotBits
}

// A slot holds its timers in chunks of wheelChunk, in no order, and each
// timer records its index there (timer.wheelPos), so a timer is added by
// appending it and removed by moving the slot's last timer into its place:
// O(1). Arrays rather than a list threaded through the timers keep the
// wheel out of the garbage collector's way: a timer holds no pointer to
// another timer, so marking the wheel is scanning arrays, as marking the
// heap is, not chasing a chain of dependent loads through millions of
// timers; and a timer has no link fields, so time.Timer stays the size it
// is upstream.
//
// Chunks of one size rather than one growing array per slot let every
// slot reuse the storage any slot gave up: a chunk that empties goes to
// the wheel's free chunks, and a chunk is allocated only when none is
// free. So the wheel allocates chunks only to hold more timers at once
// than it ever has, as the heap grows its array only then, and a burst of
// timers through many slots, each filling and emptying, allocates no
// chunk after the first burst like it. (Arrays grown by doubling, kept
// for reuse by size, did not serve such bursts: slots of every size fill
// at once, and too few kept arrays were of the size a slot needed.)

// A timerWheelPos is where a timer is in its wheel: the slot's number,
// level*wheelSlots+s, in the low wheelSlotIDBits bits, and the timer's
// index in the slot's array above them. It means something only while the
// timer is in a wheel (timerWheeled), and it is protected by the lock of
// the timers holding the timer, not by the timer's lock: moving another
// timer into a freed place rewrites that timer's position.
type timerWheelPos uint32

const (
	wheelSlotIDBits = 9 // log2(wheelLevels * wheelSlots)

	// A chunk holds wheelChunk timers of a slot: 256 bytes on 64-bit
	// ports, so a slot of one timer costs no more than that.
	wheelChunkBits = 5
	wheelChunk     = 1 << wheelChunkBits

	// wheelListKeep is the longest list of chunks (timerSlot.chunks) that
	// a slot always keeps when it empties, for 256 timers; it keeps a
	// longer one while the lists that empty slots keep hold at most
	// wheelListRatio entries per chunk of the wheel (see keepList).
	wheelListKeep  = 8
	wheelListRatio = 4
)

// A timerChunk holds up to wheelChunk timers of a slot.
type timerChunk [wheelChunk]*timer

// A timerSlot holds the timers of one slot of a wheel: timer i is
// chunks[i>>wheelChunkBits][i&(wheelChunk-1)], for i below n; entries at
// and above n are nil, and chunks has the fewest chunks that hold n
// timers, none if n is 0. Protected by the timers lock.
type timerSlot struct {
	chunks []*timerChunk
	n      int
}

// at returns the timer at index i of sl, which is below sl.n.
func (sl *timerSlot) at(i int) *timer {
	return sl.chunks[i>>wheelChunkBits][i&(wheelChunk-1)]
}

// set stores t at index i of sl, which has a chunk for it.
func (sl *timerSlot) set(i int, t *timer) {
	sl.chunks[i>>wheelChunkBits][i&(wheelChunk-1)] = t
}

// wheelSlotMax is the most timers a slot holds, the most its index can
// count. A timer that belongs in a full slot goes to the heap instead.
// It is a variable so that tests can lower it.
var wheelSlotMax = 1 << (32 - wheelSlotIDBits)

func makeWheelPos(level, s, i int) timerWheelPos {
	return timerWheelPos(i<<wheelSlotIDBits | level*wheelSlots | s)
}

// get returns the level, slot and index of p.
func (p timerWheelPos) get() (level, s, i int) {
	return int(p>>wheelSlotBits) & (wheelLevels - 1), int(p) & (wheelSlots - 1), int(p >> wheelSlotIDBits)
}

// A timerWheel holds the far timers of a timers set. All fields but minWhen
// are protected by the timers lock.
type timerWheel struct {
	// cursor is the time up to which the wheel has been processed; it never
	// decreases. See the wheel invariant above.
	cursor int64

	// n is the number of timers in the slots.
	n int

	// minWhen is the wake bound, wakeBound(): a lower bound on the
	// deadline of every timer in the wheel (but one moved earlier in place,
	// while its slot is marked), or 0 if the wheel is empty.
	// It is exact except inside wheelAdvance, where it may be lower.
	// It is written with the timers lock held and read without it by wakeTime.
	minWhen atomic.Int64

	// occupied[k] has bit s set if and only if slots[k][s] is not empty.
	occupied [wheelLevels]uint64

	// slots[k][s] holds the timers of slot s of level k, in no order:
	// slots[k][s].at(i) has wheelPos makeWheelPos(k, s, i).
	slots [wheelLevels][wheelSlots]timerSlot

	// moves counts the moves of timers from the wheel into the heap: it
	// is odd while one is under way, and even otherwise. Only the
	// holder of the timers lock changes it, and wakeTime, which reads the
	// bounds without that lock, loads it first and last, to learn whether
	// a move came between its loads (see wheelMinWhen).
	moves atomic.Uint32

	// open is, with slack, the start of the earliest occupied slot, or 0
	// if the wheel is empty. Timers are placed by when, so every live
	// timer in the wheel has a when at or after it, except one that
	// modify moved earlier and wheelFix has not re-placed yet (its hard
	// deadline is in minWhenModified). A timer's window opens at its
	// when, before the deadline that minWhen bounds, so slackOpen reads
	// open to learn when a check may find a window open in the wheel:
	// from then on a check of this set (the P's own, or another P's
	// stealing pass) locks it, and wheelAdvance cascades the slot, into
	// the heap at level 0 (where slackUpdateOpen tracks the exact when)
	// or into a finer level, which sets open to that level's slot.
	// Like minWhen it is written with the timers lock held and read
	// without it: lowered by wheelAdd, set by wheelRaiseMin, zeroed by
	// wheelTake, and exact where minWhen is. A reader that sees it low
	// takes a needless lock; one that sees it high serves a window at its
	// hard deadline, as without it; neither fires a timer early. Without
	// slack it stays 0.
	open atomic.Int64

	// slotMin[k][s] is the least deadline linked into slots[k][s] since
	// the slot was last empty, or 0 if it is empty: a lower bound on the
	// deadlines of its timers (removals leave it low), at or after the
	// slot's start; except for a timer moved earlier in place, whose
	// deadline minWhenModified bounds while lowered marks its slot, until
	// adjust lowers slotMin to the slot's start.
	// Waking at slotMin rather than at the slot's start saves the early
	// wakeups of a lone timer, such as a Ticker's.
	slotMin [wheelLevels][wheelSlots]int64

	// lowered[k] has bit s set if a timer in slots[k][s] was moved
	// earlier in place since the last adjust, so that the slot's slotMin
	// may lie above its deadline (see "Earlier in place" above). modify
	// sets bits holding only the timer's lock; adjust clears them.
	// atomic.Uint64, not uint64, so that each word is 8-byte aligned on
	// 32-bit ports too, as 64-bit atomic operations need (the runtime's
	// TestAtomicAlignment checks every uint64 they touch).
	lowered [wheelLevels]atomic.Uint64

	// free holds the chunks that no slot uses, every entry nil. A chunk
	// is allocated only when free is empty (addChunk), so the chunks in
	// slots and in free, nchunks of them, number the most that slots have
	// used at once: as the heap keeps its array at the size of the most
	// timers it has held, a P keeps the chunks of its largest burst, at
	// most 8 bytes per timer and a chunk per slot then occupied
	// (wheelTake drops them with the P's timers).
	free    []*timerChunk
	nchunks int

	// keptCap is the sum of the capacities of the lists of chunks that
	// empty slots keep (keepList), so that a slot filling again does not
	// grow its list again: at most wheelListRatio entries per chunk, 1
	// byte per timer of the largest burst, or wheelListKeep a slot. A
	// slot's list in use does not shrink: it keeps room for the most
	// chunks the slot has held since it was last empty, 8 bytes each.
	keptCap int

	// stopped is the stopped ring (see "Stopped timers" above): timers
	// that a Stop made zombies in this wheel, each in stopped[i] for an
	// i below nstopped and wheelStoppedMax. A Stop, holding only the
	// timer's lock, reserves i by incrementing nstopped and then stores
	// the timer; the drain, holding the timers lock, takes the entries,
	// waiting for any reserved and not yet stored, clears them, and
	// resets nstopped by a compare-and-swap with the count it drained,
	// so that no reservation is lost. Stores and loads are atomic, with
	// write barriers: a dropped timer may be reachable only from here
	// until the drain.
	//
	// nstopped's top bit, wheelOverflowed, is set by a Stop that found
	// the ring full while the set was busy or its lock held: it left its
	// zombie unlisted, marked timerWheelFix, for a sweep (see "Busy
	// sets"). A drain's compare-and-swap clears it with the count, and
	// the drain sweeps if the quarter rule asks (wheelSweepDue); that of
	// the second drain, after a sweep (see wheelDrainStopped), keeps it,
	// for a Stop that overflowed during the sweep.
	stopped  [wheelStoppedMax]atomic.Pointer[timer]
	nstopped atomic.Uint32

	// busy is 1 while the holder of the timers lock does work that may
	// take milliseconds, which a Stop must not wait for: wheelAdvance's
	// cascades and the drain's sweep of an overflow (see "Busy sets").
	// Written with the timers lock held; read without it by stop.
	busy atomic.Uint32
}

// wheelOverflowed is the bit of nstopped that tells the drain that a Stop
// left a zombie unlisted, for a sweep.
const wheelOverflowed = 1 << 31

// level returns the level at which a timer with this when belongs,
// or -1 if it belongs in the heap.
func (w *timerWheel) level(when int64) int {
	if when>>wheelTickShift <= w.cursor>>wheelTickShift {
		return -1
	}
	msb := sys.Len64(uint64(when^w.cursor)) - 1 // >= wheelTickShift, by the test above
	return int(uint(msb-wheelTickShift) / wheelSlotBits)
}

// slotIndex returns the slot of level in which a timer with this when belongs.
func slotIndex(when int64, level int) int {
	return int(uint64(when)>>wheelShift(level)) & (wheelSlots - 1)
}

// slotStart returns the time at which slot s of level starts.
// By the wheel invariant it is after the cursor.
func (w *timerWheel) slotStart(level, s int) int64 {
	block := w.cursor &^ (int64(1)<<wheelShift(level+1) - 1)
	return block | int64(s)<<wheelShift(level)
}

// first returns the earliest occupied slot, or level -1 if the wheel is empty.
func (w *timerWheel) first() (level, s int) {
	for level, bits := range w.occupied {
		if bits != 0 {
			return level, sys.TrailingZeros64(bits)
		}
	}
	return -1, 0
}

// firstStart returns the start of the earliest occupied slot, or 0 if the
// wheel is empty.
func (w *timerWheel) firstStart() int64 {
	level, s := w.first()
	if level < 0 {
		return 0
	}
	return w.slotStart(level, s)
}

// wakeBound returns the least slotMin of the occupied slots, a lower bound
// on every timer's deadline in the wheel but a timer moved earlier in place
// whose slot lowered still marks (minWhenModified bounds that one), or 0 if
// the wheel is empty. Every timer
// in a slot is due at or after the slot's start, and slots are visited in
// time order, so the search stops at the first slot that starts at or after
// the least slotMin seen. Without slack, deadlines are whens and that is
// the earliest slot: the bound is its slotMin.
func (w *timerWheel) wakeBound() int64 {
	if !goexperiment.TimerSlack {
		level, s := w.first()
		if level < 0 {
			return 0
		}
		return w.slotMin[level][s]
	}
	bound := int64(0)
	for level, bits := range w.occupied {
		for ; bits != 0; bits &= bits - 1 {
			s := sys.TrailingZeros64(bits)
			if bound != 0 && w.slotStart(level, s) >= bound {
				return bound
			}
			if m := w.slotMin[level][s]; bound == 0 || m < bound {
				bound = m
			}
		}
	}
	return bound
}

// wheelOpen returns the wheel's open, for slackOpen: 0 if the wheel is empty.
func (ts *timers) wheelOpen() int64 {
	return ts.wheel.open.Load()
}

// wheelLen returns the number of timers in ts's wheel.
func (ts *timers) wheelLen() int {
	return ts.wheel.n
}

// wheelMoves returns the count of moves from the wheel into the heap,
// for wakeTime to pass to wheelMinWhen. wakeTime loads it first.
//
//go:nowritebarrierrec
func (ts *timers) wheelMoves() uint32 {
	return ts.wheel.moves.Load()
}

// wheelMinWhen returns the earlier of when (0 meaning none), which wakeTime
// computed from minWhenModified and minWhenHeap, and the wheel's bound;
// or, if moves is no longer seq (or was odd), 1: a time already past.
//
// Wake-bound invariant: wakeTime, read with no lock, is never later than
// the deadline of any timer that is in the set throughout the read, but
// for a timer that modify moved earlier out of its slot and wheelFix has
// yet to re-place, after an adjust cleared minWhenModified: wheelFix wakes
// the netpoller for that one (see wheelFix). Each bound covers the timers
// of its part of the set, and a timer moving between the heap and the
// wheel leaves one part's bound and enters the other's. wakeTime loads the
// heap's bound, then the wheel's. A move from the heap into the wheel
// (wheelMoveMin) links the timer, lowering wheel.minWhen, before it
// deletes it from the heap: a reader that loads the heap's bound after the
// delete loads the wheel's after the link. A move from the wheel into the
// heap (a cascade, wheelReplace) cannot be ordered so: it lowers
// minWhenHeap and then raises wheel.minWhen, and a reader that loaded the
// heap's bound before the move and the wheel's after it misses the moved
// timers, as it does, in any order of loads, a timer cascaded, run and
// re-armed into the wheel between two loads of one bound. So every move
// from the wheel into the heap counts itself in moves, odd while it runs
// (wheelMoveStart, wheelMoveEnd), and wakeTime loads moves before the
// bounds and again after them: if such a move came between, it answers 1,
// due at once, and its caller's check locks the set and reads it exactly.
// Moves within the wheel (a cascade to a lower level) and removals (the
// drain of stopped timers, the sweep of zombies) need no count: the first
// never raises the wheel's bound above a timer still in a slot, and a
// removed timer is no longer in the set.
//
//go:nowritebarrierrec
func (ts *timers) wheelMinWhen(when int64, seq uint32) int64 {
	return ts.wheelSettled(ts.wheelBound(when), seq)
}

// wheelBound returns the earlier of when (0 meaning none) and wheel.minWhen.
//
//go:nowritebarrierrec
func (ts *timers) wheelBound(when int64) int64 {
	if w := ts.wheel.minWhen.Load(); w != 0 && (when == 0 || w < when) {
		return w
	}
	return when
}

// wheelSettled returns when if no move from the wheel into the heap ran
// since moves was seq, else 1. See wheelMinWhen.
//
//go:nowritebarrierrec
func (ts *timers) wheelSettled(when int64, seq uint32) int64 {
	if seq&1 != 0 || ts.wheel.moves.Load() != seq {
		return 1
	}
	return when
}

// wheelMoveStart and wheelMoveEnd bracket a move of timers from the wheel
// into the heap (see wheelMinWhen). The caller holds ts's lock.
func (ts *timers) wheelMoveStart() { ts.wheel.moves.Add(1) }
func (ts *timers) wheelMoveEnd()   { ts.wheel.moves.Add(1) }

// wheelAdd puts t, which addHeap has just given to ts, into the wheel if it
// belongs there and its slot is not full, and reports whether it did. A
// timer due within the near horizon, or one using fake time (see the
// package comment above), belongs in the heap. Linking t lowers its slot's
// slotMin and minWhen to t's deadline if it is earlier, which keeps minWhen
// equal to wakeBound.
// The caller must hold ts's lock (or the world is stopped) and t's lock.
func (ts *timers) wheelAdd(t *timer) bool {
	w := &ts.wheel
	level := w.level(t.when)
	if level < 0 || t.isFake {
		return false
	}
	s := slotIndex(t.when, level)
	sl := &w.slots[level][s]
	if sl.n >= wheelSlotMax {
		return false
	}
	key := t.deadline()
	t.wheelPos = makeWheelPos(level, s, sl.n)
	if sl.n == len(sl.chunks)<<wheelChunkBits {
		w.addChunk(sl)
	}
	sl.set(sl.n, t)
	sl.n++
	w.occupied[level] |= 1 << s
	w.n++
	t.state = t.state&^timerWheelFix | timerWheeled
	if m := &w.slotMin[level][s]; *m == 0 || key < *m {
		*m = key
	}
	if m := w.minWhen.Load(); m == 0 || key < m {
		w.minWhen.Store(key)
	}
	if goexperiment.TimerSlack {
		if start, o := w.slotStart(level, s), w.open.Load(); o == 0 || start < o {
			w.open.Store(start)
		}
	}
	return true
}

// wheelUnlink takes t out of its slot in O(1), moving the slot's last
// timer into t's place, and reports whether the slot became empty. It
// leaves minWhen alone: the caller raises it (wheelRaiseMin) once t is
// wherever it goes. The caller holds ts's and t's locks.
func (ts *timers) wheelUnlink(t *timer) (emptied bool) {
	w := &ts.wheel
	level, s, i := t.wheelPos.get()
	sl := &w.slots[level][s]
	last := sl.n - 1
	if i != last {
		moved := sl.at(last)
		sl.set(i, moved)
		moved.wheelPos = makeWheelPos(level, s, i)
	}
	sl.set(last, nil)
	sl.n = last
	if last&(wheelChunk-1) == 0 {
		// The last chunk is empty.
		n := len(sl.chunks) - 1
		w.putChunk(sl.chunks[n])
		sl.chunks[n] = nil
		sl.chunks = sl.chunks[:n]
	}
	if last == 0 {
		w.emptySlot(level, s)
		w.keepList(sl, sl.chunks)
	}
	t.state &^= timerWheeled | timerWheelFix
	w.n--
	return last == 0
}

// emptySlot marks slot s of level, which holds no timer, empty. The
// caller holds ts's lock.
func (w *timerWheel) emptySlot(level, s int) {
	w.occupied[level] &^= 1 << s
	w.slotMin[level][s] = 0
}

// keepList gives sl, an empty slot, list, its list of chunks, emptied, to
// keep, unless it is longer than wheelListKeep and the wheel's lists hold
// more than wheelListRatio entries per chunk: then list goes to the
// garbage collector. The caller holds ts's lock.
func (w *timerWheel) keepList(sl *timerSlot, list []*timerChunk) {
	if c := cap(list); c <= wheelListKeep || w.keptCap+c <= wheelListRatio*w.nchunks {
		w.keptCap += c
		sl.chunks = list[:0]
		return
	}
	sl.chunks = nil
}

// addChunk gives sl, whose chunks are full, one more: a free chunk, or a
// new one if none is free. The caller holds ts's lock.
func (w *timerWheel) addChunk(sl *timerSlot) {
	var c *timerChunk
	if n := len(w.free); n > 0 {
		c = w.free[n-1]
		w.free[n-1] = nil
		w.free = w.free[:n-1]
	} else {
		c = new(timerChunk)
		w.nchunks++
	}
	if sl.n == 0 {
		w.keptCap -= cap(sl.chunks) // the slot's list is in use again
	}
	sl.chunks = appendChunk(sl.chunks, c)
}

// putChunk adds c, a chunk that no slot uses, every entry nil, to the free
// chunks. The caller holds ts's lock.
func (w *timerWheel) putChunk(c *timerChunk) {
	w.free = appendChunk(w.free, c)
}

// appendChunk returns a with c appended. When a is full it moves a's
// chunks into a new array one by one rather than with copy or append:
// those tell the race detector that the calling goroutine wrote the new
// array and read a, and a slot's list passes between goroutines under
// the timers lock, which the race detector does not see, so a program
// built with -race would report a race between two growths of a list
// (time.TestStopResult did, when slots grew arrays of timers that way).
// The caller holds ts's lock.
func appendChunk(a []*timerChunk, c *timerChunk) []*timerChunk {
	n := len(a)
	if n == cap(a) {
		b := make([]*timerChunk, n, max(2*n, 1))
		for i, x := range a {
			b[i] = x
		}
		a = b
	}
	a = a[:n+1]
	a[n] = c
	return a
}

// wheelHeapEmptied keeps minWhenHeap exact when cleanHead has taken the
// heap's last timer off its tail. Upstream leaves the bound stale then,
// which is harmless while len is 0: the P's timerpMask bit is cleared and
// nothing reads it. With timers in the wheel len stays above 0, and a
// stale bound in the past would have the scheduler poll for this P's
// timers again and again, spinning, until the next timer enters the heap.
// The caller holds ts's lock.
func (ts *timers) wheelHeapEmptied() {
	if len(ts.heap) == 0 {
		ts.updateMinWhenHeap()
	}
}

// wheelRaiseMin sets minWhen to wakeBound after timers left the wheel.
// Raising it is safe only once those timers are gone or in the heap with
// minWhenHeap updated, and, for a move to the heap, before the move's
// wheelMoveEnd: see the wake-bound invariant at wheelMinWhen.
//
// If they left the set empty, it also clears minWhenModified: a wheel
// timer reset later (which sets the bound) and then stopped is gone at
// once, and with no timer left check never adjusts, so a bound left set
// would keep wakeTime in the past for good (upstream's heap keeps a
// stopped timer until adjust or deleteMin clears the bound). No modify
// can race with the store: a timer in no set updates no set's bound.
func (ts *timers) wheelRaiseMin() {
	ts.wheel.minWhen.Store(ts.wheel.wakeBound())
	ts.wheel.raiseOpen()
	if ts.wheel.n == 0 && len(ts.heap) == 0 {
		ts.minWhenModified.Store(0)
	}
}

// raiseOpen sets open to the start of the earliest occupied slot, with slack.
// The caller holds ts's lock.
func (w *timerWheel) raiseOpen() {
	if goexperiment.TimerSlack {
		w.open.Store(w.firstStart())
	}
}

// wheelDrop forgets the zombie t, just unlinked from ts's wheel.
func (ts *timers) wheelDrop(t *timer) {
	t.state &^= timerHeaped | timerZombie | timerModified
	ts.zombies.Add(-1)
	t.ts = nil
}

// wheelPlace re-places t, just unlinked from ts's wheel, by its current when,
// or drops it if it is a zombie. The caller holds ts's and t's locks.
func (ts *timers) wheelPlace(t *timer) {
	if t.state&timerZombie != 0 {
		ts.wheelDrop(t)
		return
	}
	t.state &^= timerModified
	t.ts = nil
	ts.addHeap(t)
}

// wheeled reports whether t is in a wheel slot rather than in the heap.
// The caller holds t's lock.
func (t *timer) wheeled() bool {
	return t.state&timerWheeled != 0
}

// wheelLockOwn locks and returns the timers of the caller's P if t is in
// its wheel, so that stop can remove t at once, as the P's own timers
// operations do, unless the set is busy: another P's stealing check may
// be cascading it (see "Busy sets"). A Stop of a timer in another P's
// wheel, or in a busy set, takes no timers lock: it lists t in that
// set's stopped ring (wheelStopped). The timers lock ranks before t's,
// so it is taken first; t.ts is read without t's lock, after the atomic
// load of t.astate that published it, and wheelStop checks it again
// under both locks. The test is inlined
// into stop, so a timer in no wheel pays for a load and a branch.
// The caller holds no lock but, for a channel timer, its sendLock, which
// ranks before the timers lock.
func (t *timer) wheelLockOwn() *timers {
	if t.astate.Load()&timerWheeled == 0 {
		return nil
	}
	return t.lockOwnTimers()
}

// lockOwnTimers is wheelLockOwn for a timer in a wheel.
func (t *timer) lockOwnTimers() *timers {
	ts := t.ts
	if ts != &getg().m.p.ptr().timers || ts.wheel.busy.Load() != 0 || !ts.wheelTryLock() {
		return nil // not this P's set, or another P's check holds it
	}
	return ts
}

// wheelTryLock takes ts's lock if no one holds it, and reports whether it
// did; it never waits (see "Stops never wait"). It records the lock for
// lock ranking as lock does, without the rank check: a lock taken only
// when free cannot deadlock.
func (ts *timers) wheelTryLock() bool {
	l := &ts.mu
	if !wheelTryLock2(l) {
		return false
	}
	if staticLockRanking {
		gp := getg()
		systemstack(func() {
			i := gp.m.locksHeldLen
			if i >= len(gp.m.locksHeld) {
				throw("too many locks held concurrently for rank checking")
			}
			gp.m.locksHeld[i].rank = getLockRank(l)
			gp.m.locksHeld[i].lockAddr = uintptr(unsafe.Pointer(l))
			gp.m.locksHeldLen++
		})
	}
	return true
}

// wheelUnlock unlocks ts if it is not nil, the result of wheelLockOwn,
// as a Stop unlocks (unlockStopped).
func (ts *timers) wheelUnlock() {
	if ts != nil {
		if verifyWheel {
			ts.wheelVerify()
		}
		ts.unlockStopped()
	}
}

// unlockStopped is timers.unlock for a Stop that holds ts's lock (one on
// the owner's P, wheelLockOwn, or one that found the ring full,
// wheelStopFix): it leaves the ring's entries, and an overflow's sweep, to
// the next holder while ts keeps a timer, so that a Stop holds the lock
// for its own timer alone, not for 512 entries or a sweep of the wheel.
// Its critical section takes out of the wheel only its own timer, which an
// entry may name (another Stop listed it, and this Stop stopped it
// again). An entry left so names a timer in no set until the next drain;
// it comes, since every unlock that does not drain (maybeAdd's, a Stop's)
// leaves ts with a timer, so its wake time is not 0 (and, on the owner's
// P, its next scheduling pass checks ts: check locks for a non-empty ring,
// wheelDrainDue). A Stop that empties ts drains: no check would come.
// The caller holds ts's lock.
func (ts *timers) unlockStopped() {
	if len(ts.heap)+ts.wheel.n == 0 {
		ts.unlock()
	} else {
		ts.unlockAdded()
	}
}

// wheelStop removes t, which stop is stopping, from its wheel if locked,
// from wheelLockOwn, is the timers holding it, so that stop finds t in no
// timers set and marks nothing. If t has moved since, stop marks it a
// zombie and lists it (wheelStopped). Like wheelLockOwn, it is a test
// inlined into stop and a call only for a timer in a wheel.
// The caller holds t's lock.
func (t *timer) wheelStop(locked *timers) {
	if locked != nil && t.wheeled() && t.ts == locked {
		t.wheelRemove(locked)
	}
}

// wheelRemove is wheelStop for a timer in locked's wheel.
func (t *timer) wheelRemove(locked *timers) {
	if locked.wheelUnlink(t) {
		locked.wheelRaiseMin()
	}
	if t.state&timerZombie != 0 {
		locked.zombies.Add(-1)
	}
	t.state &^= timerHeaped | timerZombie | timerModified
	t.ts = nil
}

// wheelStopped lists t, which stop has just made a zombie, in its set's
// stopped ring if t is in a wheel and was armed (see "Stopped timers"): a
// channel timer that nothing waits on was a zombie already
// (unblockTimerChan), and is listed when stopped; one stopped before has a
// when of 0 and was listed then. If the ring is full it marks t timerWheelFix
// and returns t's set, for stop to pass t to wheelStopFix once it has dropped
// t's lock: wheelStopFix removes t at once, under the timers lock if it is
// free, as a Stop did before the ring. So a burst of Stops with no holder
// between them (a program stopping thousands of timers in a row on other Ps)
// takes the timers lock once per Stop after the first wheelStoppedMax. The
// test is inlined into stop, so a heap timer pays for a branch, not a call.
// The caller holds t's lock.
func (t *timer) wheelStopped() *timers {
	if t.state&timerWheeled != 0 && t.when != 0 && !t.ts.wheelList(t) {
		t.state |= timerWheelFix
		// Publish the zombie before the overflow: a sweep finds it by
		// its astate, and may run before this Stop unlocks t.
		t.astate.Store(t.state)
		return t.ts.wheelOverflow()
	}
	return nil
}

// wheelOverflow is for a Stop that found ts's stopped ring full: it
// returns ts, for the Stop to remove its timer under the timers lock
// (wheelStopFix), unless ts is busy; then it sets wheelOverflowed, for a
// drain to sweep the timer, and returns nil. A cascading holder clears
// busy before it unlocks, and its drain loads nstopped after that: a Stop
// that sets the bit and then still sees busy set is sure that the drain
// sees the bit (both are sequentially consistent atomics). If the busy it
// sees is a drain's own sweep, whose compare-and-swap came before the
// bit, the bit waits for the next holder's drain, which check's test of
// nstopped makes prompt, as for an entry listed after a drain. A Stop
// that sees busy clear the second time removes its timer itself, if the
// lock is free (else it sets the bit too); the bit may then cost a needless
// sweep. The caller holds t's lock, and has
// published t's state (the sweep reads astate).
func (ts *timers) wheelOverflow() *timers {
	w := &ts.wheel
	if w.busy.Load() != 0 {
		w.nstopped.Or(wheelOverflowed)
		if w.busy.Load() != 0 {
			return nil
		}
	}
	return ts
}

// wheelList puts t, a zombie in ts's wheel, in ts's stopped ring and
// reports whether there was room. The caller holds t's lock.
func (ts *timers) wheelList(t *timer) bool {
	w := &ts.wheel
	if i := (w.nstopped.Add(1) - 1) &^ wheelOverflowed; i < wheelStoppedMax {
		w.stopped[i].Store(t)
		return true
	}
	return false
}

// wheelDrainDue reports whether ts has stopped timers to drain, for check
// to lock ts for them though no timer is due.
//
//go:nowritebarrierrec
func (ts *timers) wheelDrainDue() bool {
	return ts.wheel.nstopped.Load() != 0
}

// wheelDrain removes from ts's wheel the zombies that Stops listed in its
// stopped ring, and raises minWhen if that emptied a slot. timers.unlock
// calls it, so every holder of the timers lock drains as it lets go, but
// maybeAdd, which drains as it locks (wheelDrainAdd, unlockAdded), and a
// Stop that holds the lock, which calls it only if it emptied the set
// (unlockStopped); the test is inlined there. If a Stop overflowed, it also
// sweeps the wheel once the quarter rule asks (wheelDrainStopped).
// The caller holds ts's lock and no timer's.
func (ts *timers) wheelDrain() {
	if ts.wheelDrainDue() {
		ts.wheelDrainStopped()
	}
}

// wheelDrainAdd is wheelDrain for maybeAdd, which calls it as it locks: it
// drains the ring's entries but leaves an overflow's sweep to check, which
// locks for the bit it keeps (wheelDrainDue), so that a timer start, which
// upstream pays O(log n) for, never pays for a sweep of the wheel (18–21
// ms at 1M timers in a review's stress run, in the Reset after a Stop that
// left the drain to it). The test is inlined into maybeAdd.
// The caller holds ts's lock and no timer's.
func (ts *timers) wheelDrainAdd() {
	if ts.wheel.nstopped.Load()&^wheelOverflowed != 0 {
		ts.wheelDrainListed()
	}
}

// wheelDrainListed is wheelDrainAdd once it has entries to drain.
func (ts *timers) wheelDrainListed() {
	if emptied, _ := ts.wheelDrainEntries(wheelOverflowed); emptied {
		ts.wheelRaiseMin()
	}
}

// unlockAdded is timers.unlock for maybeAdd, which drains ts's stopped
// ring as it locks ts rather than as it unlocks. Its critical section takes
// no timer out of the wheel: it adds one (addHeap), and cleanHead removes
// zombies at the top and the tail of the heap and may move the heap's
// first timer into the wheel (wheelMoveMin), none of which takes a timer
// out of a wheel; each must go on not doing so. So an entry listed while
// maybeAdd holds the lock names a zombie still in the wheel, which a later
// check drains, as one listed after any unlock does (see "Stopped
// timers"). Without the drain's call, the unlock on the path of every
// timer started is within the inliner's budget, as upstream's is.
// A Stop unlocks with it too, for other reasons (unlockStopped).
// The caller holds ts's lock.
func (ts *timers) unlockAdded() {
	if verifyWheel && ts.wheel.nstopped.Load()&^wheelOverflowed != 0 && len(ts.heap)+ts.wheel.n == 0 {
		throw("timer wheel: a set left empty with stopped timers to drain")
	}
	ts.len.Store(uint32(len(ts.heap) + ts.wheel.n))
	unlock(&ts.mu)
}

// wakeTimeLocked is wakeTime for a holder of ts's lock, for maybeAdd to
// ask whether the timer it adds comes first: moves from the wheel into the
// heap run under that lock, so no move runs between the loads, and the
// count of moves (wheelMinWhen) need not be read. Nor does the order of the
// loads matter: without the lock, minWhenModified can only be lowered
// (modify, which then wakes the netpoller itself); the clears that
// wakeTime's order guards against (adjust) take the lock.
// The caller holds ts's lock.
func (ts *timers) wakeTimeLocked() int64 {
	when := ts.minWhenHeap.Load()
	if next := ts.minWhenModified.Load(); when == 0 || (next != 0 && next < when) {
		when = next
	}
	return ts.wheelBound(when)
}

// wheelDrainStopped is wheelDrain once it has something to drain.
func (ts *timers) wheelDrainStopped() {
	w := &ts.wheel
	emptied, n := ts.wheelDrainEntries(0)
	if n&wheelOverflowed != 0 && ts.wheelSweepDue() {
		// Some zombies are in no ring: sweep them all. A Stop that
		// overflows meanwhile sets the bit again, for the next drain.
		w.busy.Store(1)
		ts.wheelSweep() // raises minWhen
		w.busy.Store(0)
		// Stops during the sweep listed zombies that it may have dropped
		// since: drain those entries too, so that every entry left names
		// a zombie still in the wheel. A bit set again stays.
		if w.nstopped.Load()&^wheelOverflowed != 0 {
			if e, _ := ts.wheelDrainEntries(wheelOverflowed); e {
				ts.wheelRaiseMin()
			}
		}
	} else if emptied {
		ts.wheelRaiseMin()
	}
}

// wheelSweepDue reports whether zombies exceed a quarter of ts's timers,
// upstream's rule for clearing them out (check, adjust): a drain that finds
// the overflow bit sweeps only then, so that a sweep, O(n), comes at most
// once per n/4 zombies, however many Stops overflow (see "Stops never
// wait"). Below that, the zombies left unlisted wait, marked
// timerWheelFix, for their slots' cascades or a sweep, as upstream's heap
// zombies wait. The caller holds ts's lock.
func (ts *timers) wheelSweepDue() bool {
	return int(ts.zombies.Load()) > (len(ts.heap)+ts.wheel.n)/4
}

// wheelDrainEntries unlinks the zombies that the entries of ts's stopped
// ring name, and resets the ring's count to its bits in keep. It reports
// whether that emptied a slot, and the count it reset. The caller holds
// ts's lock and no timer's.
func (ts *timers) wheelDrainEntries(keep uint32) (emptied bool, n uint32) {
	w := &ts.wheel
	n, i := w.nstopped.Load(), uint32(0)
	for {
		for ; i < min(n&^wheelOverflowed, wheelStoppedMax); i++ {
			// A Stop that reserved entry i stores it at once, holding
			// its timer's lock, with nothing to wait for.
			t := w.stopped[i].Load()
			for spins := 0; t == nil; spins++ {
				if spins < 64 {
					procyield(10)
				} else {
					osyield()
				}
				t = w.stopped[i].Load()
			}
			w.stopped[i].Store(nil)
			t.lock()
			if t.ts == ts && t.state&(timerWheeled|timerZombie) == timerWheeled|timerZombie {
				emptied = ts.wheelUnlink(t) || emptied
				ts.wheelDrop(t)
			}
			t.unlock()
		}
		// Entries 0..n-1 are clear: later Stops may reuse them.
		if w.nstopped.CompareAndSwap(n, n&keep) {
			return emptied, n
		}
		n = w.nstopped.Load()
	}
}

// wheelNeedsFix reports, as the timers to pass to wheelFix or nil, whether t
// must be re-placed at once because it is in a wheel and is a zombie, or its
// when is now earlier than oldWhen or its deadline earlier than oldDeadline
// (its when and deadline as placed): a when earlier than the old one could
// break the placement invariant; a deadline earlier than the old one could
// lie below its slot's slotMin. A move later is left to the cascade, and
// so is a move that wheelInPlace then finds to keep its when in its old
// tick or later. (Comparing the new when with the old deadline instead
// would re-place, under slack, every timer reset by less than its slack
// later, as a repeated Reset(d) is.)
// The caller holds t's lock and calls it after setting t's when and slack.
// The move is tested before the wheel bit: a Reset later, the common case,
// costs one state test whether t is in a wheel or not.
func (t *timer) wheelNeedsFix(oldWhen, oldDeadline int64) *timers {
	if (t.when >= oldWhen && t.deadline() >= oldDeadline && t.state&timerZombie == 0) || !t.wheeled() {
		return nil
	}
	return t.ts
}

// wheelInPlace reports whether t, which wheelNeedsFix found in need of a
// fix, may stay in its slot after all because it is not a zombie and its
// when is not in an earlier level-0 tick than oldWhen; then it marks the
// slot in lowered (see "Earlier in place"); else it marks t timerWheelFix.
// The caller holds t's lock, not the timers lock, and calls it before
// modify lowers minWhenModified. t's slot does not change while t's lock is
// held, but its index does, when another timer's removal moves t into a
// freed place under the timers lock only, so t.wheelPos is loaded
// atomically: either value names t's slot.
func (t *timer) wheelInPlace(oldWhen int64) bool {
	if t.state&timerZombie != 0 || t.when>>wheelTickShift < oldWhen>>wheelTickShift {
		t.state |= timerWheelFix
		return false
	}
	slot := atomic.Load((*uint32)(&t.wheelPos)) % (wheelLevels * wheelSlots)
	// atomic.Uint64 has no Or; its value is its one field of non-zero
	// size, at offset 0.
	lowered := &t.ts.wheel.lowered[slot/wheelSlots]
	atomic.Or64((*uint64)(unsafe.Pointer(lowered)), 1<<(slot%wheelSlots))
	if h := wheelTestHooks.inPlace; h != nil {
		h(t)
	}
	return true
}

// wheelTestHooks are the points at which the wheel's tests run another
// P's step inside modify or a drain's sweep, to replay an interleaving
// with the code itself (export_timewheel_test.go). Each is nil but in
// those tests. Testing one costs a load of a global, on the paths of a
// timer moved earlier (in place or out of its tick), of the fix of a Reset
// (not of a Stop: wheelStopFix runs none), and of a sweep.
var wheelTestHooks struct {
	inPlace func(t *timer)               // wheelInPlace has marked t's slot; t's lock is held
	sweep   func()                       // wheelSweep is about to walk the wheel; the timers lock is held
	fix     func(t *timer)               // wheelFix is about to re-place t; no lock is held
	fixed   func(t *timer, earlier bool) // wheelFix re-placed t; earlier: it asks for a wakeup
}

// wheelLowerSlots lowers, for adjust, the slotMin of every slot marked in
// lowered to the slot's start, and then minWhen to the new wake bound if
// it is lower (see "Earlier in place"). adjust calls it right after it
// clears minWhenModified, before it raises minWhenHeap, so wakeTime never
// loses a deadline. The caller holds ts's lock.
func (ts *timers) wheelLowerSlots() {
	w := &ts.wheel
	for level := range w.lowered {
		if w.lowered[level].Load() == 0 {
			continue
		}
		// Bits of slots emptied since they were marked are dropped.
		bits := w.lowered[level].Swap(0) & w.occupied[level]
		for ; bits != 0; bits &= bits - 1 {
			s := sys.TrailingZeros64(bits)
			m := &w.slotMin[level][s]
			*m = min(*m, w.slotStart(level, s))
		}
	}
	if bound := w.wakeBound(); bound < w.minWhen.Load() {
		w.minWhen.Store(bound)
	}
}

// wheelFix re-places or removes t, which was in ts's wheel when
// wheelNeedsFix or wheelStopped was called, after a reset earlier or of a
// zombie, or a stop that found the stopped ring full. It runs on the P of
// the caller, which need not be ts's P: it locks ts, then t, in lock-rank
// order, and drains ts's stopped ring as it unlocks ts. If t is a zombie,
// it removes t.
// The caller must hold neither lock.
//
// If the re-placement lowered ts's wake time it wakes the netpoller for
// t's new deadline. modify's own wakeup is not enough for a wheel timer:
// modify skips it when minWhenModified is already at or before t's
// deadline, trusting the adjust of that wakeup to find t in the heap; but
// until this fix t is in the wheel, and an adjust that ran in between
// cleared the bound without seeing t, so the P may be asleep until a later
// time. And the fix may place t at a when set by another Reset since, or
// find it stopped since: the wakeup is for where t is now.
func (ts *timers) wheelFix(t *timer) {
	if h := wheelTestHooks.fix; h != nil {
		h(t)
	}
	deadline, earlier := ts.wheelReplace(t)
	if h := wheelTestHooks.fixed; h != nil {
		h(t, earlier)
	}
	if earlier {
		wakeNetPoller(deadline)
	}
}

// wheelStopFix is wheelFix for a Stop that found ts's stopped ring full
// (wheelStopped): it removes t at once only if it can take the timers lock
// at once, else t overflows: it sets wheelOverflowed and leaves t, marked
// timerWheelFix, to its slot's cascade or a sweep (see "Busy sets" and
// "Stops never wait"). Holding the lock, it unlocks as a Stop does
// (unlockStopped): it does not drain, for the Stops after it, hundreds of
// timers' work, while ts keeps a timer.
// The caller must hold neither lock.
func (ts *timers) wheelStopFix(t *timer) {
	if !ts.wheelTryLock() {
		ts.wheel.nstopped.Or(wheelOverflowed)
		return
	}
	deadline, earlier := ts.wheelReplaceLocked(t)
	ts.unlockStopped()
	if earlier {
		wakeNetPoller(deadline) // t was reset since: see wheelFix
	}
}

// wheelReplace is wheelFix without the wakeup: it re-places or removes t,
// and returns t's deadline and whether t is still in ts with that deadline
// earlier than ts's wake time was.
func (ts *timers) wheelReplace(t *timer) (deadline int64, earlier bool) {
	ts.lock()
	deadline, earlier = ts.wheelReplaceLocked(t)
	ts.unlock()
	return deadline, earlier
}

// wheelReplaceLocked is wheelReplace for a holder of ts's lock.
func (ts *timers) wheelReplaceLocked(t *timer) (deadline int64, earlier bool) {
	t.lock()
	if t.ts == ts {
		// A bit set for another set's fix is that fix's to clear.
		t.state &^= timerWheelFix
	}
	if t.ts == ts && t.wheeled() && t.state&(timerZombie|timerModified) != 0 {
		wake := ts.wakeTime()
		ts.wheelMoveStart()
		ts.wheelUnlink(t)
		ts.wheelPlace(t)
		ts.wheelRaiseMin()
		ts.wheelMoveEnd()
		deadline = t.deadline()
		earlier = t.state&timerHeaped != 0 && (wake == 0 || deadline < wake)
	}
	t.unlock()
	if verifyWheel {
		ts.wheelVerify()
	}
	return deadline, earlier
}

// wheelMoveMin moves ts.heap[0], the timer t just moved later by
// updateHeap, into the wheel if its new when is beyond the near horizon
// and its slot is not full, and reports whether it did. The caller holds
// ts's and t's locks.
func (ts *timers) wheelMoveMin(t *timer) bool {
	// Link first, then delete from the heap: a reader that loads the
	// heap's bound after the delete loads the wheel's after the link, so
	// this move needs no count (see wheelMinWhen).
	if !ts.wheelAdd(t) {
		return false
	}
	ts.deleteMin()
	t.ts = ts
	return true
}

// wheelAdvance moves the cursor to now, cascading every slot that starts at
// or before now, so that afterwards every timer with when <= now is in the
// heap and wheel.minWhen > now. The caller holds ts's lock.
//
// The cascade counts itself as one move (see the wake-bound invariant at
// wheelMinWhen), from before the first slot to after wheel.minWhen is
// raised to the new wake bound.
func (ts *timers) wheelAdvance(now int64) {
	w := &ts.wheel
	moved := false
	for {
		level, s := w.first()
		if level < 0 {
			break
		}
		start := w.slotStart(level, s)
		if start > now {
			break
		}
		if !moved {
			ts.wheelMoveStart()
			w.busy.Store(1)
			moved = true
		}
		w.cursor = start
		ts.wheelCascade(level, s)
	}
	w.cursor = max(w.cursor, now)
	if moved {
		ts.updateMinWhenHeap()
		ts.wheelRaiseMin()
		ts.wheelMoveEnd()
		w.busy.Store(0)
	}
	if verifyWheel {
		ts.wheelVerify()
	}
}

// wheelCascade empties slot s of level, which starts at the cursor,
// re-placing each of its timers below level or in the heap, and counts
// each as a cascade. No timer goes back into this slot: relative to the
// cursor, which is the slot's start, a timer's slot at this level would
// come after it. So the walk takes the slot's chunks out of it first and
// frees each chunk as soon as it has walked it, for the re-placed timers
// to fill. The caller holds ts's lock.
func (ts *timers) wheelCascade(level, s int) {
	w := &ts.wheel
	sl := &w.slots[level][s]
	chunks, n := sl.chunks, sl.n
	*sl = timerSlot{}
	w.emptySlot(level, s)
	for j, c := range chunks {
		for i := range min(n-j<<wheelChunkBits, wheelChunk) {
			t := c[i]
			c[i] = nil
			w.n--
			t.lock()
			t.state &^= timerWheeled | timerWheelFix
			ts.wheelPlace(t)
			t.unlock()
			timerStatsHere().cascades++
		}
		chunks[j] = nil
		w.putChunk(c)
	}
	if sl.n != 0 || sl.chunks != nil {
		throw("timer cascaded back into its own slot")
	}
	w.keepList(sl, chunks)
}

// wheelNext returns the earlier of pollUntil (0 meaning none) and the
// wheel's bound, for check. After wheelAdvance(now) the bound is after now.
// The caller holds ts's lock.
func (ts *timers) wheelNext(pollUntil int64) int64 {
	return ts.wheelBound(pollUntil)
}

// wheelSweep removes the zombies from ts's wheel: channel timers that
// nothing is blocked on, and stopped timers not drained yet.
// check calls it, through adjust, when zombies exceed a quarter of the
// timers, so it costs O(1) amortised per zombie; and a drain calls it when
// a Stop overflowed and the same rule holds (wheelDrainStopped).
// The caller holds ts's lock.
func (ts *timers) wheelSweep() {
	w := &ts.wheel
	if h := wheelTestHooks.sweep; h != nil {
		h()
	}
	for level := range w.occupied {
		for bits := w.occupied[level]; bits != 0; bits &= bits - 1 {
			// Walk the slot from its end: unlinking the timer at i moves
			// one from a place already visited into i.
			sl := &w.slots[level][sys.TrailingZeros64(bits)]
			for i := sl.n - 1; i >= 0; i-- {
				t := sl.at(i)
				if t.astate.Load()&timerZombie != 0 {
					t.lock()
					if t.state&timerZombie != 0 {
						ts.wheelUnlink(t)
						ts.wheelDrop(t)
					}
					t.unlock()
				}
			}
		}
	}
	ts.wheelRaiseMin()
	if verifyWheel {
		ts.wheelVerify()
	}
}

// wheelTake moves the wheel timers of src, whose P is being destroyed,
// into ts, and empties src's wheel. The world is stopped.
func (ts *timers) wheelTake(src *timers) {
	w := &src.wheel
	for level := range w.occupied {
		for bits := w.occupied[level]; bits != 0; bits &= bits - 1 {
			s := sys.TrailingZeros64(bits)
			sl := &w.slots[level][s]
			for i := range sl.n {
				t := sl.at(i)
				t.state &^= timerWheeled | timerWheelFix
				if t.state&timerZombie != 0 {
					src.wheelDrop(t)
				} else {
					t.state &^= timerModified
					t.ts = nil
					ts.addHeap(t)
					timerStatsHere().moved++
				}
				// No unlock publishes the new state: wheelSweep reads
				// astate without t's lock.
				t.astate.Store(t.state)
			}
			w.slotMin[level][s] = 0
		}
		w.occupied[level] = 0
		w.lowered[level].Store(0)
	}
	// Every slot gives up its chunks and its list, an empty slot's kept
	// list too: src's chunks go with its timers.
	for level := range w.slots {
		for s := range w.slots[level] {
			w.slots[level][s] = timerSlot{}
		}
	}
	// The loop above dropped every zombie that src's stopped ring names;
	// a zombie a stale entry names in another set is listed there too
	// (by the Stop that made it a zombie there).
	for i := range min(w.nstopped.Load()&^wheelOverflowed, wheelStoppedMax) {
		w.stopped[i].Store(nil)
	}
	w.nstopped.Store(0)
	w.n = 0
	w.free, w.nchunks, w.keptCap = nil, 0, 0
	w.minWhen.Store(0)
	w.open.Store(0)
	src.minWhenModified.Store(0) // take clears it only if src's heap had timers
	src.len.Store(uint32(len(src.heap)))
	ts.len.Store(uint32(len(ts.heap) + ts.wheel.n))
}

// listed reports whether t, a zombie, is in w's stopped ring or carries
// timerWheelFix (the stopped-ring invariant), for wheelVerify.
// The caller holds the timers lock and t's lock, so the Stop that made t
// a zombie has stored t's entry.
func (w *timerWheel) listed(t *timer) bool {
	if t.state&timerWheelFix != 0 {
		return true
	}
	for i := range min(w.nstopped.Load()&^wheelOverflowed, wheelStoppedMax) {
		if w.stopped[i].Load() == t {
			return true
		}
	}
	return false
}

// wheelVerify checks the wheel's invariants. It is for debugging only
// (verifyWheel) and for tests. The caller holds ts's lock and no timer's.
func (ts *timers) wheelVerify() {
	w := &ts.wheel
	n := 0
	for level := range w.slots {
		for s := range w.slots[level] {
			sl := &w.slots[level][s]
			if (sl.n != 0) != (w.occupied[level]&(1<<s) != 0) {
				print("wheel level ", level, " slot ", s, ": occupied bit does not match its ", sl.n, " timers\n")
				throw("bad timer wheel")
			}
			if sl.n > wheelSlotMax || len(sl.chunks) != (sl.n+wheelChunk-1)>>wheelChunkBits {
				print("wheel level ", level, " slot ", s, ": ", sl.n, " timers in ", len(sl.chunks), " chunks\n")
				throw("bad timer wheel slot length")
			}
			for i := sl.n; i < len(sl.chunks)<<wheelChunkBits; i++ {
				if sl.at(i) != nil {
					throw("timer in a timer wheel slot past its length")
				}
			}
			start, slotMin := int64(0), w.slotMin[level][s]
			if sl.n != 0 {
				start = w.slotStart(level, s)
				if start <= w.cursor || slotMin < start {
					print("wheel level ", level, " slot ", s, " start ", start, " slotMin ", slotMin, " cursor ", w.cursor, "\n")
					throw("bad timer wheel slot start")
				}
			} else if slotMin != 0 {
				throw("bad timer wheel slotMin of an empty slot")
			}
			for i := range sl.n {
				t := sl.at(i)
				n++
				t.lock()
				if t.ts != ts || t.wheelPos != makeWheelPos(level, s, i) || t.state&(timerHeaped|timerWheeled) != timerHeaped|timerWheeled {
					throw("bad timer wheel position")
				}
				// A timer moved earlier in place may lie below slotMin
				// while minWhenModified bounds it.
				bound := slotMin
				modified := ts.minWhenModified.Load()
				if w.lowered[level].Load()&(1<<s) != 0 && t.state&timerModified != 0 && modified != 0 {
					bound = min(bound, modified)
				}
				if t.state&timerZombie != 0 && (!t.isChan || t.when == 0) && !w.listed(t) {
					// A zombie is a stopped timer, which its Stop lists
					// or removes, or a channel timer that nothing waits
					// on, which keeps its when (unblockTimerChan).
					throw("timer wheel zombie neither in the stopped ring nor waiting for its Stop's fix")
				}
				if t.state&(timerZombie|timerWheelFix) == 0 && (t.when < start || t.deadline() < bound) {
					print("wheel timer when ", t.when, " deadline ", t.deadline(), " before its slot's start ", start, " or bound ", bound, "\n")
					throw("bad timer wheel placement")
				}
				if t.state&(timerZombie|timerModified) == 0 && (w.level(t.when) != level || slotIndex(t.when, level) != s) {
					print("wheel timer when ", t.when, " in level ", level, " slot ", s, " cursor ", w.cursor, "\n")
					throw("bad timer wheel slot")
				}
				t.unlock()
			}
		}
	}
	nchunks, keptCap := len(w.free), 0
	for _, c := range w.free {
		if *c != (timerChunk{}) {
			throw("timer in a free timer wheel chunk")
		}
	}
	for _, c := range w.free[len(w.free):cap(w.free)] {
		if c != nil {
			throw("chunk past the end of the free chunks")
		}
	}
	for level := range w.slots {
		for s := range w.slots[level] {
			sl := &w.slots[level][s]
			nchunks += len(sl.chunks)
			if sl.n == 0 {
				keptCap += cap(sl.chunks)
			}
			for _, c := range sl.chunks[len(sl.chunks):cap(sl.chunks)] {
				if c != nil {
					throw("chunk past the end of a timer wheel slot's list")
				}
			}
		}
	}
	if nchunks != w.nchunks || keptCap != w.keptCap || keptCap > wheelListRatio*nchunks+wheelListKeep*wheelLevels*wheelSlots {
		print("timer wheel chunks ", nchunks, " counted ", w.nchunks, " kept lists ", keptCap, " counted ", w.keptCap, "\n")
		throw("bad timer wheel chunk count")
	}
	if n != w.n {
		println("timer wheel n", w.n, "counted", n)
		throw("bad timer wheel count")
	}
	if w.minWhen.Load() != w.wakeBound() {
		println("timer wheel minWhen", w.minWhen.Load(), "!= wake bound", w.wakeBound())
		throw("bad timer wheel minWhen")
	}
	if goexperiment.TimerSlack && w.open.Load() != w.firstStart() {
		println("timer wheel open", w.open.Load(), "!= first slot's start", w.firstStart())
		throw("bad timer wheel open")
	}
	for _, tw := range ts.heap {
		tw.timer.lock()
		if tw.timer.state&timerWheeled != 0 {
			throw("wheel timer in heap")
		}
		tw.timer.unlock()
	}
}
