// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerwheel

// Hierarchical timing wheel for the per-P timers (GOEXPERIMENT=timerwheel).
//
// Each timers set keeps upstream's 4-ary heap for the near future. It adds a
// hierarchical wheel for later timers that the heap would sift up. A later
// timer that the heap appends in place stays in the heap (heapSifts). The
// heap stays exact: a timer runs only from the heap, in when order. So the
// wheel never quantises when a timer fires. It only decides when a far
// timer moves into the heap.
//
// The wheel has wheelLevels levels of wheelSlots slots. A slot of level k
// spans 1<<wheelShift(k) nanoseconds. Level 0 slots span 2^20 ns, about
// 1.05 ms. Each level is 64 times coarser. Level 7 spans 2^62 ns, so the
// levels cover every positive int64. The cursor is the time up to which
// the wheel has been processed. A timer with when w goes, relative to the
// cursor c:
//
//   - to the heap if w>>wheelTickShift <= c>>wheelTickShift, that is, if w
//     is not later than the cursor's level-0 slot (the near horizon);
//   - else to level k = (msb(w^c) - wheelTickShift) / wheelSlotBits, the
//     level of the highest bit where w and c differ, in slot (w>>shift(k))&63.
//
// Wheel invariant. Every timer in slot s of level k agrees with the cursor
// on all bits at and above wheelShift(k+1). And s is after the cursor's slot
// at level k. So every slot of level k starts after the cursor and before
// any slot of level k+1. The earliest timer lies in the lowest occupied
// slot of the lowest non-empty level. One count-trailing-zeros of that
// level's occupancy bitmap finds it.
//
// Placement invariant. The slot of a timer starts at or before its when.
// A timer moved later may stay in its old, earlier slot, with timerModified
// set. It is re-placed when that slot cascades. A timer moved earlier is
// re-placed at once (wheelFix). The exception is a when that stays within
// the level-0 tick of the old one ("Earlier in place", below).
//
// Stopped timers. A stopped timer in the heap is a zombie, as upstream's.
// gcStart takes the heaps' zombies out before it marks (wheelDropZombies).
// A stopped timer in the wheel leaves sooner. A Stop on the P that holds
// the timer removes it at once, under that P's timers lock (wheelLockOwn,
// wheelStop). It does not when the set is busy or its lock held (below).
// A Stop on another P marks the timer a zombie under the timer's lock
// only, as upstream marks a heap timer. It takes no timers lock, so it
// never waits behind the owner's cascade. It also lists the timer in its
// set's stopped ring (wheelStopped).
// Every holder of the timers lock drains the ring, unlinking each listed
// zombie in O(1):
//
//   - maybeAdd drains as it locks (wheelDrainAdd). Its critical section
//     takes no timer out of the wheel.
//   - A Stop that holds the lock drains only if it emptied the set
//     (unlockStopped).
//   - Every other holder drains as it unlocks (wheelDrain, from
//     timers.unlock).
//
// A non-empty ring makes check lock the set though no timer is due
// (wheelDrainDue). So a stopped timer's function and argument stay
// reachable only until the owner's next add or check, or another P's
// check of the set. The exception is a Stop that overflowed (below).
// Draining at unlock, not at lock, leaves no entry behind a holder that
// drops a listed timer itself, in a cascade or a sweep. A holder that does
// not drain as it unlocks leaves the set with a timer. Its wake time is
// then not 0, and a later check drains the entries. A drain that sweeps
// drains again after the sweep, for the entries listed during it.
//
// Stopped-ring invariant. Every zombie that a Stop made or stopped in a
// slot of ts's wheel is named in ts's ring, or carries timerWheelFix, until
// a holder of ts's lock removes it. The mark lasts while that Stop has yet
// to remove the timer. If the Stop overflowed, it lasts until the slot
// cascades or a sweep drops the timer. A Stop lists the timer in the same
// critical section, under the timer's lock, that marks it. A Stop that
// finds the ring full marks the timer timerWheelFix instead. Once it has
// dropped the timer's lock, it removes the timer under the timers lock, if
// it can take that lock at once (wheelStopped, wheelStopFix). If the set is
// busy or its lock held, it overflows (wheelOverflow).
//
// An entry may be stale. The timer may have been revived by a Reset,
// dropped by a cascade, or moved since. So the drain removes only a timer
// that is, under its lock, a zombie in a slot of the draining set. A zombie
// waiting in its slot still counts in the slot's slotMin. A P that no other
// P checks may then wake once for a slot that holds only zombies, and drain
// it. A channel timer that nothing waits on still becomes a zombie, as
// upstream, when its last waiter leaves (unblockTimerChan). That is not a
// Stop, and lists nothing. A Stop of it lists it later, as any zombie with
// a when. Until then a cascade or wheelSweep drops it.
//
// Busy sets. A cascade of a full slot moves up to 2^23 timers under the
// timers lock: milliseconds of work. A Stop must not wait for it, as it
// waits for no heap operation upstream. So the holder marks the set busy
// while it cascades (wheelAdvance) and while its drain sweeps. A Stop looks
// before it takes the lock:
//
//   - A Stop on the owner's P lists its timer if the set is busy or its
//     lock held (wheelLockOwn). Another P's check may be cascading the
//     set.
//   - A Stop that finds the ring full while the set is busy or its lock
//     held overflows. It leaves its zombie unlisted, marked timerWheelFix,
//     and sets wheelOverflowed in nstopped (wheelOverflow, wheelListLate).
//
// The holder's drain runs once busy is clear. If zombies exceed a quarter
// of the set's timers, it sweeps every zombie out of the wheel
// (wheelSweepDue). That is upstream's rule for its heap's zombies. Below
// it, the unlisted zombies wait for their slots' cascades or a later sweep,
// as upstream's do. A Stop that overflows during the sweep sets the bit
// again. The next holder's drain looks again, and check locks for the bit
// as for a non-empty ring. A sweep walks the whole wheel, O(n). The quarter
// rule makes it O(1) amortised per zombie. No Stop and no timer start waits
// for it.
//
// Stops never wait. A holder takes the lock before it knows it will
// cascade. It may itself wait for the lock while Stops come and go. So a
// Stop takes the timers lock only if it is free (wheelTryLock). A Stop on
// the owner's P that finds it held lists its timer in the ring. A Stop that
// finds the ring full and the lock held overflows, as when the set is busy.
// A Stop that takes the lock holds it for its own timer alone.
//
// Earlier in place. A deadline set again and again to about the same
// instant moves the timer earlier half the time. SetReadDeadline with one
// deadline does that: package net and the runtime read the clock apart. The
// timer's slot still starts at or before the new when if the new when lies
// in the old one's level-0 tick, or a later one. The old when was at or
// after the slot's start, and every slot starts on a tick boundary. So such
// a move leaves the timer where it is, as a later move does. It needs no
// timers lock. Only its slot's slotMin may now lie above its deadline.
//
//   - modify marks the slot in lowered. It then lowers minWhenModified to
//     the deadline, as it does for every timer moved earlier.
//   - adjust clears minWhenModified and then collects the marks
//     (wheelLowerSlots). It lowers each marked slot's slotMin to the slot's
//     start, which bounds every timer in it. It does so before anything may
//     raise the wake time.
//
// So the deadline is always bounded. A mark collected by that adjust has
// its slot lowered for good, until the timer leaves it. A mark set after
// the collection was set after the clearing. Then modify's later read sees
// the bound cleared, or lowered again since, and lowers it to the deadline.
// The next adjust, which clears that bound, collects the mark. Lowering
// slotMin to the cleared bound, rather than the slot's start, would be
// wrong. The mark may fall between the clearing and the collection, and the
// cleared bound may be later than the deadline.
//
// Cascades. When the clock passes a slot's start (wheelAdvance, from check),
// the slot cascades. Each timer is re-placed relative to the new cursor,
// into a lower level or into the heap. A timer cascades at most wheelLevels
// times.
//
// Wake bound. A P wakes for the wheel at minWhen: the least deadline linked
// into any slot. A timer's deadline (t.deadline()) is its when. With
// GOEXPERIMENT=timerslack it is its hard deadline, when+slack, by which the
// heap is keyed too (timeslack.go). Without slack the earliest slot holds
// the least, so a lone far timer costs one wakeup, not two. With slack,
// timers sit in the wheel by their when. A wakeup then cascades into the
// heap every slot whose windows may have opened, and the heap runs the open
// ones. The P sleeps until the earliest hard deadline, which may lie in any
// slot.
//
// Timers on fake time (synctest bubbles) always go into the heap. A bubble
// advances its clock straight to wakeTime. Waking at a bound that is no
// timer's when, a stale slotMin, would show as a jump of fake time with
// nothing to run.

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

	// wheelStoppedMax is the size of a set's stopped ring. A Stop that finds
	// it full removes its own timer (wheelStopped, wheelStopFix).
	wheelStoppedMax = 512

	// verifyWheel checks the wheel's invariants after every operation.
	verifyWheel = false
)

// timerWheeled is set in timer.state when the timer is in a wheel slot
// rather than in the heap. It is set only with timerHeaped.
const timerWheeled = timerZombie << 1

// timerWheelFix is set in timer.state, with timerWheeled, while a fix of
// the timer is due. It is set when modify moved the timer earlier out of
// its slot's span or revived it from a zombie. It is also set when stop
// found the stopped ring full. Whoever sets it calls wheelFix or
// wheelStopFix once it has dropped the timer's lock (wheelFixDue). Every
// step that takes the timer out of its slot or re-places it clears it
// (wheelUnlink, a cascade, wheelTake, a fresh placement by wheelAdd), and
// so does wheelListLate, which lists it. After an overflow it stays until
// the timer's slot cascades or a sweep drops it. Until then the timer may
// lie in a slot that starts after its when, or be a zombie in no ring.
// wheelVerify allows that only for such a timer.
const timerWheelFix = timerWheeled << 1

// wheelShift returns log2 of the span of a slot of level.
func wheelShift(level int) uint {
	return wheelTickShift + uint(level)*wheelSlotBits
}

// A slot holds its timers in chunks of wheelChunk, in no order. Each timer
// records its index there (timer.wheelPos). A timer is added by appending
// it, and removed by moving the slot's last timer into its place: O(1).
//
// Arrays keep the wheel out of the garbage collector's way. A timer holds
// no pointer to another timer. So marking the wheel is scanning arrays, as
// marking the heap is. It is not a chain of dependent loads through
// millions of timers. And a timer has no link fields, so time.Timer keeps
// upstream's size.
//
// Chunks of one size let every slot reuse the storage any slot gave up.
// A chunk that empties goes to the wheel's free chunks. A chunk is
// allocated only when none is free. So the wheel allocates chunks only to
// hold more timers at once than it ever has, as the heap grows its array.
// A burst of timers through many slots allocates no chunk after the first
// burst like it.

// A timerWheelPos is where a timer is in its wheel. The low
// wheelSlotIDBits bits hold the slot's number, level*wheelSlots+s. The bits
// above hold the timer's index in the slot. It means something only while
// the timer is in a wheel (timerWheeled). The lock of the timers holding
// the timer protects it, not the timer's lock. Moving another timer into a
// freed place rewrites that timer's position.
type timerWheelPos uint32

const (
	wheelSlotIDBits = 9 // log2(wheelLevels * wheelSlots)

	// A chunk holds wheelChunk timers of a slot. That is 256 bytes on 64-bit
	// ports, so a slot of one timer costs no more than that.
	wheelChunkBits = 5
	wheelChunk     = 1 << wheelChunkBits

	// wheelListKeep is the longest list of chunks (timerSlot.chunks) that
	// a slot always keeps when it empties: room for 256 timers. A slot keeps a
	// longer list while the lists of empty slots hold at most wheelListRatio
	// entries per chunk of the wheel (keepList).
	wheelListKeep  = 8
	wheelListRatio = 4
)

// A timerChunk holds up to wheelChunk timers of a slot.
type timerChunk [wheelChunk]*timer

// A timerSlot holds the timers of one slot of a wheel. Timer i is
// chunks[i>>wheelChunkBits][i&(wheelChunk-1)], for i below n. Entries at
// and above n are nil. chunks has the fewest chunks that hold n timers, and
// none if n is 0. The timers lock protects it.
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

// A timerWheel holds the far timers of a timers set. The timers lock
// protects every field but the atomic ones.
type timerWheel struct {
	// cursor is the time up to which the wheel has been processed. It never
	// decreases. See the wheel invariant above.
	cursor int64

	// n is the number of timers in the slots.
	n int

	// minWhen is the wake bound, wakeBound(). It is a lower bound on the
	// deadline of every timer in the wheel, or 0 if the wheel is empty. A timer
	// moved earlier in place is the exception while its slot is marked. The
	// bound is exact except inside wheelAdvance, where it may be lower. It is
	// written with the timers lock held and read without it by wakeTime.
	minWhen atomic.Int64

	// occupied[k] has bit s set if and only if slots[k][s] is not empty.
	occupied [wheelLevels]uint64

	// slots[k][s] holds the timers of slot s of level k, in no order.
	// The timer slots[k][s].at(i) has wheelPos makeWheelPos(k, s, i).
	slots [wheelLevels][wheelSlots]timerSlot

	// moves counts the moves of timers from the wheel into the heap. It is odd
	// while one is under way, and even otherwise. Only the holder of the timers
	// lock changes it. wakeTime reads the bounds without that lock. It loads
	// moves first and last, to learn whether a move came between its loads
	// (wheelMinWhen).
	moves atomic.Uint32

	// open is, with slack, the start of the earliest occupied slot, or 0 if
	// the wheel is empty. Without slack it stays 0.
	//
	// Timers are placed by when, so every live timer in the wheel has a when at
	// or after open. The exception is a timer that modify moved earlier and
	// wheelFix has not re-placed yet. Its hard deadline is in minWhenModified.
	//
	// A timer's window opens at its when, before the deadline that minWhen
	// bounds. So slackOpen reads open to learn when a check may find a window
	// open in the wheel. From then on a check of this set locks it. That is the
	// P's own check, or another P's stealing pass. wheelAdvance then cascades
	// the slot. At level 0 it goes into the heap, where slackUpdateOpen tracks
	// the exact when. At a coarser level it goes into a finer one, which sets
	// open to that slot.
	//
	// Like minWhen, open is written with the timers lock held and read without
	// it. wheelAdd lowers it, wheelRaiseMin sets it, and wheelTake zeroes it.
	// It is exact where minWhen is. A reader that sees it low takes a needless
	// lock. One that sees it high serves a window at its hard deadline, as
	// without it. Neither fires a timer early.
	open atomic.Int64

	// slotMin[k][s] is the least deadline linked into slots[k][s] since the
	// slot was last empty, or 0 if it is empty. It is a lower bound on the
	// deadlines of the slot's timers, since removals leave it low. It is at or
	// after the slot's start. The exception is a timer moved earlier in place:
	// minWhenModified bounds its deadline while lowered marks its slot, until
	// adjust lowers slotMin to the slot's start. Waking at slotMin rather than
	// at the slot's start saves the early wakeups of a lone timer, such as a
	// Ticker's.
	slotMin [wheelLevels][wheelSlots]int64

	// lowered[k] has bit s set if a timer in slots[k][s] was moved earlier in
	// place since the last adjust. The slot's slotMin may then lie above that
	// timer's deadline ("Earlier in place"). modify sets bits holding only the
	// timer's lock. adjust clears them. The type is atomic.Uint64, not uint64,
	// so that each word is 8-byte aligned on 32-bit ports too. 64-bit atomic
	// operations need that, and the runtime's TestAtomicAlignment checks it.
	lowered [wheelLevels]atomic.Uint64

	// free holds the chunks that no slot uses, every entry nil. A chunk is
	// allocated only when free is empty (addChunk). So the nchunks chunks in
	// slots and in free number the most that slots have used at once. The heap
	// keeps its array at the size of the most timers it has held. Likewise a P
	// keeps the chunks of its largest burst: at most 8 bytes per timer, and a
	// chunk per slot then occupied. wheelTake drops them with the P's timers.
	free    []*timerChunk
	nchunks int

	// keptCap is the sum of the capacities of the lists of chunks that empty
	// slots keep (keepList). A slot filling again then need not grow its list
	// again. The lists hold at most wheelListRatio entries per chunk (1 byte per
	// timer of the largest burst), or wheelListKeep a slot. A slot's list in use
	// does not shrink. It keeps room for the most chunks the slot has held
	// since it was last empty, 8 bytes each.
	keptCap int

	// stopped is the stopped ring ("Stopped timers" above). It holds the
	// timers that a Stop made zombies in this wheel, each in stopped[i] for an
	// i below nstopped and wheelStoppedMax.
	//
	//   - A Stop holds only the timer's lock. It reserves i by incrementing
	//     nstopped, and then stores the timer.
	//   - The drain holds the timers lock. It takes the entries, waiting for any
	//     reserved and not yet stored, and clears them. It then resets nstopped
	//     by a compare-and-swap with the count it drained, so that no
	//     reservation is lost.
	//
	// Stores and loads are atomic, with write barriers. A dropped timer may be
	// reachable only from here until the drain.
	//
	// nstopped's top bit, wheelOverflowed, is set by a Stop that found the ring
	// full while the set was busy or its lock held. That Stop left its zombie
	// unlisted, marked timerWheelFix, for a sweep ("Busy sets"). A drain's
	// compare-and-swap clears the bit with the count. The drain then sweeps if
	// the quarter rule asks (wheelSweepDue). The second drain after a sweep
	// keeps the bit, for a Stop that overflowed during the sweep
	// (wheelDrainStopped).
	stopped  [wheelStoppedMax]atomic.Pointer[timer]
	nstopped atomic.Uint32

	// busy is 1 while the holder of the timers lock does work that may take
	// milliseconds, which a Stop must not wait for. That is wheelAdvance's
	// cascades and a drain's sweep ("Busy sets"). It is written with the timers
	// lock held, and read without it by stop.
	busy atomic.Uint32
}

// wheelOverflowed is the bit of nstopped that tells the drain that a Stop
// left a zombie unlisted, for a sweep.
const wheelOverflowed = 1 << 31

// level returns the level at which a timer with this when belongs, or -1
// if it belongs in the heap.
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

// slotStart returns the time at which slot s of level starts. By the
// wheel invariant it is after the cursor.
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

// wakeBound returns the least slotMin of the occupied slots, or 0 if the
// wheel is empty. It bounds the deadline of every timer in the wheel. The
// exception is a timer moved earlier in place whose slot lowered still
// marks: minWhenModified bounds that one. Every timer in a slot is due at
// or after the slot's start. Slots are visited in time order. So the search
// stops at the first slot that starts at or after the least slotMin seen.
// Without slack, deadlines are whens, and that is the earliest slot. The
// bound is then its slotMin.
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

// wheelOpen returns the wheel's open, for slackOpen. It is 0 if the wheel
// is empty.
func (ts *timers) wheelOpen() int64 {
	return ts.wheel.open.Load()
}

// wheelLen returns the number of timers in ts's wheel.
func (ts *timers) wheelLen() int {
	return ts.wheel.n
}

// wheelMoves returns the count of moves from the wheel into the heap. It
// is for wakeTime, which loads it first and passes it to wheelMinWhen.
//
//go:nowritebarrierrec
func (ts *timers) wheelMoves() uint32 {
	return ts.wheel.moves.Load()
}

// wheelMinWhen returns the earlier of when (0 meaning none) and the
// wheel's bound. wakeTime computed when from minWhenModified and
// minWhenHeap. If moves is no longer seq, or seq was odd, it returns 1
// instead: a time already past.
//
// Wake-bound invariant. wakeTime, read with no lock, is never later than
// the deadline of any timer that is in the set throughout the read. One
// timer is the exception: one that modify moved earlier out of its slot,
// that wheelFix has yet to re-place, after an adjust cleared
// minWhenModified. wheelFix wakes the netpoller for that one.
//
// Each bound covers the timers of its part of the set. A timer moving
// between the heap and the wheel leaves one part's bound and enters the
// other's. wakeTime loads the heap's bound, then the wheel's.
//
//   - A move from the heap into the wheel (wheelMoveMin) links the timer
//     before it deletes it from the heap. Linking lowers wheel.minWhen. A
//     reader that loads the heap's bound after the delete loads the wheel's
//     after the link.
//   - A move from the wheel into the heap (a cascade, wheelReplace) cannot
//     be ordered so. It lowers minWhenHeap and then raises wheel.minWhen. A
//     reader that loaded the heap's bound before the move and the wheel's
//     after it misses the moved timers. Any order of loads misses a timer
//     cascaded, run and re-armed into the wheel between two loads of one
//     bound.
//
// So every move from the wheel into the heap counts itself in moves, odd
// while it runs (wheelMoveStart, wheelMoveEnd). wakeTime loads moves before
// the bounds and again after them. If a move came between, it answers 1,
// due at once. Its caller's check then locks the set and reads it exactly.
// Moves within the wheel need no count: a cascade to a lower level never
// raises the bound above a timer still in a slot. Removals need none
// either: a removed timer is no longer in the set.
//
//go:nowritebarrierrec
func (ts *timers) wheelMinWhen(when int64, seq uint32) int64 {
	return ts.wheelSettled(ts.wheelBound(when), seq)
}

// wheelBound returns the earlier of when (0 meaning none) and
// wheel.minWhen.
//
//go:nowritebarrierrec
func (ts *timers) wheelBound(when int64) int64 {
	if w := ts.wheel.minWhen.Load(); w != 0 && (when == 0 || w < when) {
		return w
	}
	return when
}

// wheelSettled returns when if no move from the wheel into the heap ran
// since moves was seq. Otherwise it returns 1. See wheelMinWhen.
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

// heapSifts reports whether the heap would sift t up if t were appended.
// addHeap offers t to the wheel only then (wheelAddNew), and else appends
// it without a sift.
//
// Heap-first rule. A timer goes into the heap if the heap is empty, or if
// its parent there, were it appended, is due no later than it. Such an
// add is an append and one comparison. The timer's stop marks it in
// place, and cleanHead takes it off the tail. So the heap is as cheap as
// the wheel, and the timer meets no wheel hook but a test of the wheel
// bit. Only a timer that the heap would sift up goes to the wheel, if it
// is beyond the near horizon (wheelAdd). There a start and a stop cost
// O(1), where the heap costs O(log n) to sift it up and its zombie out.
//
// So a fixed timeout on an otherwise quiet P stays in the heap: each is
// due after the ones started before it. A timeout in front of many later
// timers goes to the wheel. So do timers started in the order they are
// due behind a later timer at the top of the heap. A zombie left in the
// heap keeps what its function holds until a collection starts
// (wheelDropZombies), not until its when.
//
// A timer on fake time sifts by its random order too (timerWhen.less), so
// it is never appended without a sift. The test is inlined into addHeap.
// The caller holds ts's lock (or the world is stopped) and t's lock.
func (ts *timers) heapSifts(t *timer) bool {
	h := ts.heap
	return len(h) != 0 && h[uint(len(h)-1)/timerHeapN].when > t.deadline() || t.isFake || !wheelHeapFirst
}

// wheelHeapFirst turns the heap-first rule on. Only tests turn it off, to
// put every far timer in the wheel (export_timewheel_test.go).
var wheelHeapFirst = true

// wheelAddNew is wheelAdd for addHeap, for a timer that the heap would
// sift up (heapSifts). If the heap is empty, which it is only in the
// wheel's own tests (wheelHeapFirst), it also makes the heap's bound exact
// (wheelHeapEmptied).
func (ts *timers) wheelAddNew(t *timer) bool {
	if !ts.wheelAdd(t) {
		return false
	}
	ts.wheelHeapEmptied()
	return true
}

// wheelAdd puts t into the wheel if it belongs there and its slot is not
// full, and reports whether it did. addHeap has just given t to ts. A timer
// due within the near horizon belongs in the heap. So does one on fake time
// (see the package comment). Linking t lowers its slot's slotMin and minWhen
// to t's deadline if it is earlier. That keeps minWhen equal to wakeBound.
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

// wheelUnlink takes t out of its slot in O(1), moving the slot's last timer
// into t's place. It reports whether the slot became empty. It leaves
// minWhen alone: the caller raises it (wheelRaiseMin) once t is wherever it
// goes. The caller holds ts's and t's locks.
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

// emptySlot marks slot s of level, which holds no timer, empty. The caller
// holds ts's lock.
func (w *timerWheel) emptySlot(level, s int) {
	w.occupied[level] &^= 1 << s
	w.slotMin[level][s] = 0
}

// keepList gives sl, an empty slot, its emptied list of chunks to keep.
// The list goes to the garbage collector instead if it is longer than
// wheelListKeep and the wheel's lists hold more than wheelListRatio entries
// per chunk. The caller holds ts's lock.
func (w *timerWheel) keepList(sl *timerSlot, list []*timerChunk) {
	if c := cap(list); c <= wheelListKeep || w.keptCap+c <= wheelListRatio*w.nchunks {
		w.keptCap += c
		sl.chunks = list[:0]
		return
	}
	sl.chunks = nil
}

// addChunk gives sl, whose chunks are full, one more. It is a free chunk,
// or a new one if none is free. The caller holds ts's lock.
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
// chunks into a new array one by one, rather than with copy or append.
// Those tell the race detector that the caller wrote the new array and
// read a. A slot's list passes between goroutines under the timers lock,
// which the race detector does not see. So a program built with -race would
// report a race between two growths of a list. The caller holds ts's lock.
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

// wheelHeapEmptied makes minWhenHeap exact if the heap is empty and the
// wheel is not. cleanHead may have taken the heap's last timer, a zombie,
// off its tail. Upstream leaves the bound stale then, until addHeap puts a
// timer at the top. That is harmless while len is 0: the P's timerpMask
// bit is cleared, and nothing reads the bound. With timers in the wheel,
// len stays above 0. A stale bound in the past would then have the
// scheduler poll for this P's timers again and again, spinning, until the
// next timer enters the heap.
//
// maybeAdd calls it when it adds no timer, and wheelAddNew when it adds one
// to the wheel. When maybeAdd adds one to an empty heap, addHeap sets the
// bound, as upstream's does. So a timer started and stopped in turn with
// no other timer live wakes no other P, as upstream's does not: the wake
// test reads the stale bound, not an empty set's 0. The caller holds ts's
// lock.
func (ts *timers) wheelHeapEmptied() {
	if len(ts.heap) == 0 && ts.wheel.n != 0 {
		ts.updateMinWhenHeap()
	}
}

// wheelRaiseMin sets minWhen to wakeBound after timers left the wheel.
// Raising it is safe only once those timers are gone, or in the heap with
// minWhenHeap updated. For a move to the heap it must come before the
// move's wheelMoveEnd. See the wake-bound invariant at wheelMinWhen.
//
// If they left the set empty, it also clears minWhenModified. A wheel timer
// reset later sets that bound. If it is then stopped, it is gone at once.
// With no timer left, check never adjusts, so a bound left set would keep
// wakeTime in the past for good. Upstream's heap keeps a stopped timer until
// adjust or deleteMin clears the bound. No modify can race with the store:
// a timer in no set updates no set's bound.
func (ts *timers) wheelRaiseMin() {
	ts.wheel.minWhen.Store(ts.wheel.wakeBound())
	ts.wheel.raiseOpen()
	if ts.wheel.n == 0 && len(ts.heap) == 0 {
		ts.minWhenModified.Store(0)
	}
}

// raiseOpen sets open to the start of the earliest occupied slot, with
// slack. The caller holds ts's lock.
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

// wheelPlace re-places t, just unlinked from ts's wheel, by its current
// when. It drops t if t is a zombie. The caller holds ts's and t's locks.
func (ts *timers) wheelPlace(t *timer) {
	if t.state&timerZombie != 0 {
		ts.wheelDrop(t)
		return
	}
	t.state &^= timerModified
	t.ts = nil
	ts.addHeap(t)
}

// wheelDropZombies takes the zombies out of every P's heap, for gcStart,
// before marking begins. The heap-first rule (heapSifts) leaves a stopped
// timer in the heap, as upstream does, where it keeps its function and
// argument reachable. So the first collection that starts after the Stop
// frees such a timer and what it holds, as the wheel's prompt removal frees
// a timer in a slot. gcStart holds worldsema, which keeps allp from
// changing.
func wheelDropZombies() {
	for _, pp := range allp {
		pp.timers.dropHeapZombies()
	}
}

// dropHeapZombies takes the zombies out of ts's heap, for wheelDropZombies.
// The wheel's zombies are not its: a Stop removes or lists them at once. A
// set with a zombie costs a pass over its heap, and a rebuild if the pass
// took one out, once per collection. That is less than marking the heap.
// A channel timer that nothing waits on is a zombie too (unblockTimerChan),
// so most sets with channel timers pay it. The caller holds no lock.
func (ts *timers) dropHeapZombies() {
	if ts.zombies.Load() == 0 {
		return
	}
	ts.lock()
	dropped := false
	for i := 0; i < len(ts.heap); i++ {
		t := ts.heap[i].timer
		if t.astate.Load()&timerZombie == 0 {
			continue
		}
		t.lock()
		if t.state&timerZombie != 0 {
			// As adjust drops a zombie.
			ts.zombies.Add(-1)
			t.state &^= timerHeaped | timerZombie | timerModified
			t.ts = nil
			n := len(ts.heap)
			ts.heap[i] = ts.heap[n-1]
			ts.heap[n-1] = timerWhen{}
			ts.heap = ts.heap[:n-1]
			i--
			dropped = true
		}
		t.unlock()
	}
	if dropped {
		// Raising the bound is safe: the timers dropped are in no set.
		ts.initHeap()
		ts.updateMinWhenHeap()
		if len(ts.heap) == 0 && ts.wheel.n == 0 {
			// As deleteMin and wheelRaiseMin clear it: with no timer left,
			// check never adjusts, and a bound left set would keep the wake
			// time in the past for good. No modify can race with the store: a
			// timer in no set updates no set's bound.
			ts.minWhenModified.Store(0)
		}
	}
	ts.unlock()
}

// wheeled reports whether t is in a wheel slot rather than in the heap.
// The caller holds t's lock.
func (t *timer) wheeled() bool {
	return t.state&timerWheeled != 0
}

// wheelLockOwn locks and returns the timers of the caller's P if t is in
// its wheel. Then stop can remove t at once, as the P's own timer
// operations do. It returns nil if the set is busy: another P's stealing
// check may be cascading it ("Busy sets"). A Stop of a timer in another P's
// wheel, or in a busy set, takes no timers lock. It lists t in that set's
// stopped ring instead (wheelStopped).
//
// The timers lock ranks before t's, so it is taken first. t.ts is read
// without t's lock, after the atomic load of t.astate that published it.
// wheelStop checks it again under both locks. The test is inlined into
// stop, so a timer in no wheel pays for a load and a branch. The caller
// holds no lock, except a channel timer's sendLock, which ranks before the
// timers lock.
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
// did. It never waits ("Stops never wait"). It records the lock for lock
// ranking as lock does, without the rank check. A lock taken only when free
// cannot deadlock.
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

// wheelUnlock unlocks ts, the result of wheelLockOwn, if it is not nil. It
// unlocks as a Stop does (unlockStopped).
func (ts *timers) wheelUnlock() {
	if ts != nil {
		if verifyWheel {
			ts.wheelVerify()
		}
		ts.unlockStopped()
	}
}

// unlockStopped is timers.unlock for a Stop that holds ts's lock. That is
// a Stop on the owner's P, or one that found the ring full (wheelStopFix).
// While ts keeps a timer, it leaves the ring's entries and an overflow's
// sweep to the next holder. So a Stop holds the lock for its own timer
// alone, not for 512 entries or a sweep of the wheel.
//
// Its critical section takes only its own timer out of the wheel. An entry
// may name that timer: another Stop listed it, and this Stop stopped it
// again. Such an entry names a timer in no set until the next drain. That
// drain comes. Every unlock that does not drain (maybeAdd's, a Stop's)
// leaves ts with a timer, so its wake time is not 0. On the owner's P, the
// next scheduling pass checks ts, and check locks for a non-empty ring
// (wheelDrainDue). A Stop that empties ts drains: no check would come. The
// caller holds ts's lock.
func (ts *timers) unlockStopped() {
	if len(ts.heap)+ts.wheel.n == 0 {
		ts.unlock()
	} else {
		ts.unlockAdded()
	}
}

// wheelStop is stop's hook for a timer in a wheel. It removes t from its
// wheel if locked, from wheelLockOwn, holds t. Otherwise it marks t a
// zombie and lists it (wheelStopped). It is a test of the wheel bit
// inlined into stop, and a call only for a timer in a wheel. The caller
// holds t's lock.
func (t *timer) wheelStop(locked *timers) {
	if t.state&timerWheeled != 0 {
		t.wheelStopped(locked)
	}
}

// wheelStopped is wheelStop for a timer in a wheel ("Stopped timers").
//
//   - If locked holds t, it removes t. stop then finds t in no set, and
//     marks nothing.
//   - Otherwise it marks t a zombie, as stop marks a heap timer, and lists
//     it in its set's stopped ring if t was armed. A channel timer that
//     nothing waits on was a zombie already (unblockTimerChan). It is
//     listed when it is stopped. A timer stopped before has a when of 0,
//     and was listed then.
//   - If the ring is full, it marks t timerWheelFix. stop then removes t
//     once it has dropped t's lock, if it can take the timers lock at once
//     (wheelFixDue, wheelStopFix). So a burst of Stops with no holder
//     between them takes the timers lock once per Stop after the first
//     wheelStoppedMax.
//
// The caller holds t's lock.
func (t *timer) wheelStopped(locked *timers) {
	ts := t.ts
	if ts == locked {
		t.wheelRemove(locked)
		return
	}
	t.state |= timerModified
	if t.state&timerZombie == 0 {
		t.state |= timerZombie
		ts.zombies.Add(1)
	}
	if t.when != 0 && !ts.wheelList(t) {
		t.state |= timerWheelFix
		// Publish the zombie before the overflow. A sweep finds it by its
		// astate, and may run before this Stop unlocks t.
		t.astate.Store(t.state)
		ts.wheelOverflow()
	}
}

// wheelRemove takes t out of locked's wheel, for a Stop on the owner's P.
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

// wheelOverflow is for a Stop that found ts's stopped ring full. If ts is
// busy, it sets wheelOverflowed, for the busy holder's drain to sweep the
// timer. The Stop then tries to remove the timer itself, once it has
// dropped the timer's lock (wheelStopFix).
//
// A cascading holder clears busy before it unlocks. Its drain loads
// nstopped after that. Both are sequentially consistent atomics. So a Stop
// that sets the bit while busy is set is sure that the drain sees the bit.
// The busy it sees may be a drain's own sweep, whose compare-and-swap came
// before the bit. Then the bit waits for the next holder's drain. check's
// test of nstopped makes that drain prompt, as for an entry listed after a
// drain. The bit may cost a needless sweep. The caller holds t's lock, and
// has published t's state (the sweep reads astate).
func (ts *timers) wheelOverflow() {
	if w := &ts.wheel; w.busy.Load() != 0 {
		w.nstopped.Or(wheelOverflowed)
	}
}

// wheelList puts t, a zombie in ts's wheel, in ts's stopped ring. It
// reports whether there was room. The caller holds t's lock.
func (ts *timers) wheelList(t *timer) bool {
	w := &ts.wheel
	if i := (w.nstopped.Add(1) - 1) &^ wheelOverflowed; i < wheelStoppedMax {
		w.stopped[i].Store(t)
		return true
	}
	return false
}

// wheelDrainDue reports whether ts has stopped timers to drain. Then check
// locks ts for them though no timer is due.
//
//go:nowritebarrierrec
func (ts *timers) wheelDrainDue() bool {
	return ts.wheel.nstopped.Load() != 0
}

// wheelDrain removes from ts's wheel the zombies that Stops listed in its
// stopped ring. It raises minWhen if that emptied a slot. timers.unlock
// calls it, so every holder of the timers lock drains as it lets go. There
// are two exceptions. maybeAdd drains as it locks (wheelDrainAdd,
// unlockAdded). A Stop that holds the lock calls it only if it emptied the
// set (unlockStopped). If a Stop overflowed, wheelDrain also sweeps the
// wheel once the quarter rule asks (wheelDrainStopped). The test is
// inlined. The caller holds ts's lock and no timer's.
func (ts *timers) wheelDrain() {
	if ts.wheelDrainDue() {
		ts.wheelDrainStopped()
	}
}

// wheelDrainAdd is wheelDrain for maybeAdd, which calls it as it locks. It
// drains the ring's entries but leaves an overflow's sweep to check. check
// locks for the bit that wheelDrainAdd keeps (wheelDrainDue). So a timer
// start, for which upstream pays O(log n), never pays for a sweep of the
// wheel. The test is inlined into maybeAdd. The caller holds ts's lock and
// no timer's.
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
// ring as it locks ts rather than as it unlocks.
//
// Its critical section takes no timer out of the wheel, and each of its
// steps must go on not doing so. It adds one timer (addHeap). cleanHead
// removes zombies at the top and the tail of the heap. It may move the
// heap's first timer into the wheel (wheelMoveMin). So an entry listed
// while maybeAdd holds the lock names a zombie still in the wheel. A later
// check drains it, as it drains one listed after any unlock ("Stopped
// timers"). Without the drain's call, the unlock on the path of every timer
// started fits the inliner's budget, as upstream's does. A Stop unlocks
// with it too (unlockStopped). The caller holds ts's lock.
func (ts *timers) unlockAdded() {
	if verifyWheel && ts.wheel.nstopped.Load()&^wheelOverflowed != 0 && len(ts.heap)+ts.wheel.n == 0 {
		throw("timer wheel: a set left empty with stopped timers to drain")
	}
	ts.len.Store(uint32(len(ts.heap) + ts.wheel.n))
	unlock(&ts.mu)
}

// wakeTimeLocked is wakeTime for a holder of ts's lock, without the
// wheel's bound. maybeAdd uses it to ask whether the timer it adds comes
// first, and asks the wheel only if it does (wheelWakes). A timer started
// behind the heap's first then loads no bound of the wheel. Moves from the
// wheel into the heap run under that lock, so no move runs between the
// loads. The count of moves (wheelMinWhen) need not be read. Nor does the
// order of the loads matter. Without the lock, minWhenModified can only be
// lowered, by modify, which then wakes the netpoller itself. The clears
// that wakeTime's order guards against, by adjust, take the lock. The
// caller holds ts's lock.
func (ts *timers) wakeTimeLocked() int64 {
	when := ts.minWhenHeap.Load()
	if next := ts.minWhenModified.Load(); when == 0 || (next != 0 && next < when) {
		when = next
	}
	return when
}

// wheelWakes reports whether a timer due at when comes before every timer
// in ts's wheel. The caller holds ts's lock.
func (ts *timers) wheelWakes(when int64) bool {
	m := ts.wheel.minWhen.Load()
	return m == 0 || when < m
}

// wheelDrainStopped is wheelDrain once it has something to drain.
func (ts *timers) wheelDrainStopped() {
	w := &ts.wheel
	emptied, n := ts.wheelDrainEntries(0)
	if n&wheelOverflowed != 0 && ts.wheelSweepDue() {
		// Some zombies are in no ring: sweep them all. A Stop that overflows
		// meanwhile sets the bit again, for the next drain.
		w.busy.Store(1)
		ts.wheelSweep() // raises minWhen
		w.busy.Store(0)
		// Stops during the sweep listed zombies that it may have dropped since.
		// Drain those entries too, so that every entry left names a zombie still
		// in the wheel. A bit set again stays.
		if w.nstopped.Load()&^wheelOverflowed != 0 {
			if e, _ := ts.wheelDrainEntries(wheelOverflowed); e {
				ts.wheelRaiseMin()
			}
		}
	} else if emptied {
		ts.wheelRaiseMin()
	}
}

// wheelSweepDue reports whether zombies exceed a quarter of ts's timers.
// That is upstream's rule for clearing them out (check, adjust). A drain
// that finds the overflow bit sweeps only then. So a sweep, O(n), comes at
// most once per n/4 zombies, however many Stops overflow. Below that, the
// zombies left unlisted wait, marked timerWheelFix, for their slots'
// cascades or a sweep, as upstream's heap zombies wait. The caller holds
// ts's lock.
func (ts *timers) wheelSweepDue() bool {
	return int(ts.zombies.Load()) > (len(ts.heap)+ts.wheel.n)/4
}

// wheelDrainEntries unlinks the zombies that the entries of ts's stopped
// ring name. It resets the ring's count to its bits in keep. It reports
// whether that emptied a slot, and the count it reset. The caller holds
// ts's lock and no timer's.
func (ts *timers) wheelDrainEntries(keep uint32) (emptied bool, n uint32) {
	w := &ts.wheel
	n, i := w.nstopped.Load(), uint32(0)
	for {
		for ; i < min(n&^wheelOverflowed, wheelStoppedMax); i++ {
			// A Stop that reserved entry i stores it at once, holding its timer's
			// lock, with nothing to wait for.
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

// wheelModified marks t timerWheelFix if t must be re-placed at once. Then
// modify calls wheelFix once it has dropped t's lock (wheelFixDue). t needs
// a fix if it is in a wheel and is a zombie, or if its when is now earlier
// than oldWhen, or its deadline earlier than oldDeadline. Those are its
// when and deadline as placed. A when earlier than the old one could break
// the placement invariant. A deadline earlier than the old one could lie
// below its slot's slotMin. A move later is left to the cascade. So is a
// move that wheelInPlace then finds to keep its when in its old tick or
// later. Comparing the new when with the old deadline would be wrong under
// slack: it would re-place every timer reset later by less than its slack,
// as a repeated Reset(d) is. The caller holds t's lock, and calls it after
// setting t's when and slack. It is a test of the wheel bit inlined into
// modify, and a call only for a timer in a wheel.
func (t *timer) wheelModified(oldWhen, oldDeadline int64) {
	if t.state&timerWheeled != 0 {
		t.wheelMoved(oldWhen, oldDeadline)
	}
}

// wheelMoved is wheelModified for a timer in a wheel.
func (t *timer) wheelMoved(oldWhen, oldDeadline int64) {
	if t.when >= oldWhen && t.deadline() >= oldDeadline && t.state&timerZombie == 0 {
		return
	}
	t.wheelInPlace(oldWhen)
}

// wheelFixDue reports whether a fix of t is due (timerWheelFix). modify
// and stop test it once they have dropped t's lock, and call wheelFix or
// wheelStopFix then. It loads t.astate, which t's unlock published. A fix
// that another goroutine made since has cleared the bit. One that another
// goroutine asked for since is due here too: the fix takes the locks and
// does what t needs then, or nothing. The test is inlined.
func (t *timer) wheelFixDue() bool {
	return t.astate.Load()&timerWheelFix != 0
}

// wheelInPlace leaves t in its slot if it may stay there after all.
// wheelMoved found t in need of a fix. t may stay if it is not a zombie and
// its when is not in an earlier level-0 tick than oldWhen. Then
// wheelInPlace marks the slot in lowered ("Earlier in place"). Otherwise it
// marks t timerWheelFix. The caller holds t's lock, not the timers lock.
// It calls it before modify lowers minWhenModified. t's slot does not
// change while t's lock is held. But its index does: another timer's
// removal may move t into a freed place under the timers lock only. So
// t.wheelPos is loaded atomically. Either value names t's slot.
func (t *timer) wheelInPlace(oldWhen int64) {
	if t.state&timerZombie != 0 || t.when>>wheelTickShift < oldWhen>>wheelTickShift {
		t.state |= timerWheelFix
		return
	}
	slot := atomic.Load((*uint32)(&t.wheelPos)) % (wheelLevels * wheelSlots)
	// atomic.Uint64 has no Or. Its value is its one field of non-zero size,
	// at offset 0.
	lowered := &t.ts.wheel.lowered[slot/wheelSlots]
	atomic.Or64((*uint64)(unsafe.Pointer(lowered)), 1<<(slot%wheelSlots))
	if h := wheelTestHooks.inPlace; h != nil {
		h(t)
	}
}

// wheelTestHooks are the points at which the wheel's tests run another P's
// step inside modify or a drain's sweep. The tests replay an interleaving
// with the code itself (export_timewheel_test.go). Each hook is nil but in
// those tests. Testing one costs a load of a global. That is on the paths
// of a timer moved earlier, in place or out of its tick, of the fix of a
// Reset (not of a Stop: wheelStopFix runs none), and of a sweep.
var wheelTestHooks struct {
	inPlace func(t *timer)               // wheelInPlace has marked t's slot; t's lock is held
	sweep   func()                       // wheelSweep is about to walk the wheel; the timers lock is held
	fix     func(t *timer)               // wheelFix is about to re-place t; no lock is held
	fixed   func(t *timer, earlier bool) // wheelFix re-placed t; earlier: it asks for a wakeup
}

// wheelLowerSlots lowers, for adjust, the slotMin of every slot marked in
// lowered to the slot's start. It then lowers minWhen to the new wake bound
// if that is lower ("Earlier in place"). adjust calls it right after it
// clears minWhenModified, before it raises minWhenHeap. So wakeTime never
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

// wheelFix re-places or removes t after a reset earlier or a reset of a
// zombie (wheelModified). It runs on the caller's P, which need not be the
// P of t's set ts. It locks ts, then t, in lock-rank order, and drains
// ts's stopped ring as it unlocks ts. If t is a zombie, it removes t. The
// caller must hold neither lock.
//
// If the re-placement lowered ts's wake time, wheelFix wakes the netpoller
// for t's new deadline. modify's own wakeup is not enough for a wheel
// timer. modify skips it when minWhenModified is already at or before t's
// deadline. It trusts the adjust of that wakeup to find t in the heap. But
// until this fix t is in the wheel. An adjust that ran in between cleared
// the bound without seeing t, so the P may sleep until a later time. The
// fix may also place t at a when set by another Reset since, or find it
// stopped since. The wakeup is for where t is now.
func (t *timer) wheelFix() {
	if h := wheelTestHooks.fix; h != nil {
		h(t)
	}
	// t.ts is read without t's lock, after the load of t.astate that
	// published it. The fix checks it again under both locks.
	ts := t.ts
	if ts == nil {
		return // dropped since
	}
	deadline, earlier := ts.wheelReplace(t)
	if h := wheelTestHooks.fixed; h != nil {
		h(t, earlier)
	}
	if earlier {
		wakeNetPoller(deadline)
	}
}

// wheelStopFix is wheelFix for a Stop that found the stopped ring of t's
// set ts full (wheelStopped). It removes t at once only if it can take the
// timers lock at once. Otherwise it lists t late, or t overflows
// (wheelListLate, "Busy sets", "Stops never wait"). Holding the lock, it
// unlocks as a Stop does (unlockStopped). While ts keeps a timer it does
// not drain, which would be hundreds of timers' work for the Stops after
// it. The caller must hold neither lock.
func (t *timer) wheelStopFix() {
	ts := t.ts // read as wheelFix reads it
	if ts == nil {
		return
	}
	if ts.wheel.busy.Load() != 0 || !ts.wheelTryLock() {
		ts.wheelListLate(t)
		return
	}
	// t may have been reset, moved or dropped since. wheelReplaceLocked
	// looks again under t's lock.
	deadline, earlier := ts.wheelReplaceLocked(t)
	ts.unlockStopped()
	if earlier {
		wakeNetPoller(deadline) // t was reset since: see wheelFix
	}
}

// wheelListLate is wheelStopFix for a Stop that found ts's lock held. If t
// is still a zombie in ts's wheel that no entry names, it lists t in ts's
// stopped ring. If the ring is full, t overflows: it stays marked
// timerWheelFix, and wheelListLate sets wheelOverflowed, for a sweep. The
// caller must hold neither lock.
func (ts *timers) wheelListLate(t *timer) {
	t.lock()
	const unlisted = timerWheeled | timerZombie | timerWheelFix
	if t.ts == ts && t.state&unlisted == unlisted {
		if ts.wheelList(t) {
			t.state &^= timerWheelFix
		} else {
			ts.wheel.nstopped.Or(wheelOverflowed)
		}
	}
	t.unlock()
}

// wheelReplace is wheelFix without the wakeup. It re-places or removes t.
// It returns t's deadline, and whether t is still in ts with that deadline
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

// wheelMoveMin moves ts.heap[0] into the wheel if its new when is beyond
// the near horizon and its slot is not full. It reports whether it did. t
// is that timer, which updateHeap just moved later. The caller holds ts's
// and t's locks.
func (ts *timers) wheelMoveMin(t *timer) bool {
	// Link first, then delete from the heap. A reader that loads the heap's
	// bound after the delete loads the wheel's after the link. So this move
	// needs no count (see wheelMinWhen).
	if !ts.wheelAdd(t) {
		return false
	}
	ts.deleteMin()
	t.ts = ts
	return true
}

// wheelAdvance moves the cursor to now, cascading every slot that starts at
// or before now. Afterwards every timer with when <= now is in the heap,
// and wheel.minWhen > now. The caller holds ts's lock.
//
// The cascade counts itself as one move (the wake-bound invariant at
// wheelMinWhen). The move lasts from before the first slot to after
// wheel.minWhen is raised to the new wake bound.
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

// wheelCascade empties slot s of level, which starts at the cursor. It
// re-places each of its timers below level or in the heap, and counts each
// as a cascade. No timer goes back into this slot. The cursor is the slot's
// start, and relative to it a timer's slot at this level would come after
// it. So the walk takes the slot's chunks out of it first. It frees each
// chunk as soon as it has walked it, for the re-placed timers to fill. The
// caller holds ts's lock.
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
// wheel's bound, for check. After wheelAdvance(now) the bound is after
// now. The caller holds ts's lock.
func (ts *timers) wheelNext(pollUntil int64) int64 {
	return ts.wheelBound(pollUntil)
}

// wheelSweep removes the zombies from ts's wheel. Those are channel timers
// that nothing is blocked on, and stopped timers not drained yet. check
// calls it, through adjust, when zombies exceed a quarter of the timers. So
// it costs O(1) amortised per zombie. A drain calls it when a Stop
// overflowed and the same rule holds (wheelDrainStopped). The caller holds
// ts's lock.
func (ts *timers) wheelSweep() {
	w := &ts.wheel
	if h := wheelTestHooks.sweep; h != nil {
		h()
	}
	for level := range w.occupied {
		for bits := w.occupied[level]; bits != 0; bits &= bits - 1 {
			// Walk the slot from its end. Unlinking the timer at i moves one from a
			// place already visited into i.
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
// into ts. It empties src's wheel. The world is stopped.
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
				// No unlock publishes the new state. wheelSweep reads astate without
				// t's lock.
				t.astate.Store(t.state)
			}
			w.slotMin[level][s] = 0
		}
		w.occupied[level] = 0
		w.lowered[level].Store(0)
	}
	// Every slot gives up its chunks and its list, an empty slot's kept list
	// too. src's chunks go with its timers.
	for level := range w.slots {
		for s := range w.slots[level] {
			w.slots[level][s] = timerSlot{}
		}
	}
	// The loop above dropped every zombie that src's stopped ring names. A
	// zombie that a stale entry names in another set is listed there too, by
	// the Stop that made it a zombie there.
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
// timerWheelFix (the stopped-ring invariant). It is for wheelVerify. The
// caller holds the timers lock and t's lock. So the Stop that made t a
// zombie has stored t's entry.
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
// (verifyWheel), and for tests. The caller holds ts's lock and no timer's.
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
				// A timer moved earlier in place may lie below slotMin while
				// minWhenModified bounds it.
				bound := slotMin
				modified := ts.minWhenModified.Load()
				if w.lowered[level].Load()&(1<<s) != 0 && t.state&timerModified != 0 && modified != 0 {
					bound = min(bound, modified)
				}
				if t.state&timerZombie != 0 && (!t.isChan || t.when == 0) && !w.listed(t) {
					// A zombie is a stopped timer, which its Stop lists or removes. Or it is
					// a channel timer that nothing waits on, which keeps its when
					// (unblockTimerChan).
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
