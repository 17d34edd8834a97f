// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build goexperiment.timerslack

// Timer slack (GOEXPERIMENT=timerslack).
//
// A timer due at when may fire at any time in its window [when, hard]. Its
// hard deadline is hard = when + slack, and the slack comes from a run-time
// policy (GODEBUG timerslack=, below). The runtime uses that freedom to
// serve many timers with one wakeup, as Linux hrtimers do with their
// [soft, hard] expiry ranges. A timer never fires before when: slack only
// ever delays.
//
// The policy. GODEBUG=timerslack=SPEC, where SPEC is
//
//	[ABS][+PCT%][:CAP]
//
// with at least one of ABS and PCT. ABS and CAP are durations with a unit
// of ns, us (or µs), ms or s. A decimal fraction is allowed: 1.5ms. PCT is
// a decimal percentage, from 0 to 100, of the timer's delay: when minus the
// time it was armed. A timer armed at now gets slack = min(ABS +
// PCT*(when-now), CAP, maxTimerSlack). A slack never exceeds 4.29s, which
// lets it fill the padding of a timer. Examples: 50us, 12.5%, 20us+10%,
// 12.5%:1ms.
//
// A SPEC of 0 gives upstream's behaviour, epoll_wait's milliseconds
// included. So does a SPEC that does not parse, without a crash. Unset, the
// policy is defaultTimerSlack. A program sets its own default with
// //go:debug timerslack=SPEC (or a godebug line in go.mod). GODEBUG
// overrides it, as for any setting. Changing GODEBUG with os.Setenv changes
// the policy for timers armed from then on.
//
// Timers on fake time get no slack. Those are the timers of testing/synctest
// bubbles, and every timer of a faketime build (the playground's). Such a
// clock jumps straight to the next wake time. A bubble's order of equal
// whens is part of its promise.
//
// Invariants, on top of time.go's:
//
//   - t.when + t.slack.off, saturated at maxWhen, is t's hard deadline
//     (t.deadline()). t.slack.off is set with t.when under t's lock whenever
//     t is armed (slackArm). modify arms it, maybeAdd arms it as it enters
//     a heap, and so does the re-arm of a periodic timer. stop, and the
//     firing of a timer that is not periodic, set when to 0. They leave off
//     as it is, which then means nothing: t is a zombie or in no heap, and
//     is armed again before it is due.
//   - The heap is keyed on the hard deadline. Heap entries hold
//     when = t.deadline() and soft.when = t.when as of the last update. So
//     wakeTime, minWhenModified and every pollUntil are hard deadlines. A P,
//     or the netpoller, sleeps until the earliest hard deadline of all its
//     timers. No timer fires after hard for want of a wakeup, beyond the
//     poller's own granularity. That is the kernel's timer slack, and where
//     epoll_pwait2 is missing, epoll_wait's millisecond, by which upstream
//     fires late too.
//   - A wakeup runs timers from the top of the heap while their soft
//     when <= now: the Linux hrtimer expiry rule. A wakeup is any check, on
//     this P or by a P stealing from it. With equal slacks, heap order is
//     soft order, so every open window is served. With mixed slacks, a timer
//     whose window is open may sit below one whose window is not. It waits
//     for a later wakeup, never beyond its own hard deadline.
//   - ts.open holds heap[0]'s soft when. So check runs the open windows of
//     any P it looks at, its own or another's, before their deadlines. One
//     wakeup serves every timer whose window has opened.
//   - ts.open also holds a lower bound on the when of every timer with
//     slack in ts's heap moved earlier (marked timerModified) since the last
//     adjust. Such a timer's heap entry is stale: it sits by its old
//     deadline. A timer moved later needs no bound, since its window opens
//     after its stale entry's. check adjusts once that bound is <= now, as
//     upstream adjusts once minWhenModified is. So a stale entry whose
//     window has opened is re-sorted before any timer runs. The wakeup then
//     serves that timer as it would an unmodified timer in its place. A
//     timer in a wheel has no heap entry: the wheel re-places it.
//   - A periodic timer's next when is computed from its when, as upstream,
//     not from when it ran. Its period holds on average, with no drift. Its
//     slack is at most half its period (capPeriodic). So a tick fired late
//     within its window does not skip the next tick.
//   - Timers whose windows overlap may fire out of when order. A timer armed
//     long ago with a large relative slack may fire after one due a little
//     later but armed with less. Each still fires in its window.

package runtime

import (
	"internal/bytealg"
	"internal/goarch"
	"internal/goexperiment"
	"internal/runtime/atomic"
	"unsafe"
)

// defaultTimerSlack is the policy when GODEBUG sets none. It was chosen
// by measurement: see docs/slack.md in timerlab.
const defaultTimerSlack = "25%:1ms"

// timerSlackOne is the fixed-point unit of a relative slack: 100%.
const timerSlackOne = 1 << 16

// maxTimerSlack is the largest slack a timer can get, about 4.29s.
const maxTimerSlack = 1<<32 - 1

// A timerSlackSpec is a parsed policy. It also holds what arming a timer
// needs of it, worked out in advance (see compile).
type timerSlackSpec struct {
	abs int64 // nanoseconds every timer gets
	rel int64 // fraction of the delay, in units of 1/timerSlackOne
	max int64 // cap on the total, maxWhen if none

	on    bool  // the policy grants some slack
	capAt int64 // every delay >= capAt gets fixed, with no multiply
	fixed int64 // min(max, maxTimerSlack), or without rel min(abs, that)

	next timerSlackSpecPtr // the policy set before, in timerSlackSpecs
}

// A timerSlackSpecPtr is a *timerSlackSpec held as a uintptr. Specs are
// never in the heap (see timerSlackSpecs). So the garbage collector need not
// see these pointers, and storing one needs no write barrier. The first
// stores run at the first parse of GODEBUG, before mallocinit. There a write
// barrier's check under GOEXPERIMENT=cgocheck2 would read the heap's
// metadata before it exists.
type timerSlackSpecPtr uintptr

func (p timerSlackSpecPtr) ptr() *timerSlackSpec { return (*timerSlackSpec)(unsafe.Pointer(p)) }

// timerSlackPolicy points to the policy in force if it grants slack. It is
// nil for a policy that grants none, and until the runtime's GODEBUG
// settings are parsed, before any timer is armed. A published spec never
// changes. So arming a timer reads the policy with one atomic load and one
// test.
var timerSlackPolicy atomic.Pointer[timerSlackSpec]

// timerSlackArming is timerHeaped if timerSlackPolicy is not nil, and 0 if
// it is. It is stored after the pointer. slackArm inlines a test of it into
// every timer's path. One AND with the timer's state tests both the policy
// and whether the timer is in a heap. Only a timer in a heap gets slack. It
// is a byte read with atomic.Load8 because that costs the least of the
// inliner's budget. With atomic.Uint32's method, or a separate test of the
// state, slackArm would not inline. A reader that sees it set with the
// pointer nil, or 0 with the pointer set, races with a change of policy. It
// arms the timer with no slack. Accessed atomically.
var timerSlackArming uint8

// timerSlackSpecs holds every policy set so far, once each, newest first.
// setTimerSlack publishes the one that equals the policy set, or adds it.
// Its memory is not in the heap, which does not exist yet at the first parse
// of GODEBUG. The first specs are in static storage, the rest from
// persistentalloc, never freed. A program that sets GODEBUG again and again
// keeps one spec (56 bytes) per distinct policy. Writers exclude each other
// with a spin lock. GODEBUG may be set by several goroutines at once:
// package syscall serializes Setenv on Unix, not on Windows. And the first
// writers run before the runtime's locks can.
var timerSlackSpecs struct {
	locked atomic.Uint32
	list   timerSlackSpecPtr
	used   int
	static [4]timerSlackSpec // enough for the parses before mallocinit
}

// timerSlack is the slack of a timer. Protected by the timer's lock.
type timerSlack struct {
	off uint32 // hard deadline - when, in nanoseconds; see the invariants above
}

// timerWhenSoft is the soft part of a heap entry: the timer's when.
type timerWhenSoft struct {
	when int64
}

// timersSlackOpen holds the times from which check has work in a timers set.
type timersSlackOpen struct {
	// when is heap[0]'s soft when, or 0 if the heap is empty.
	// Written with the timers lock held, read without it by check.
	when atomic.Int64

	// modified is a lower bound on the when of every timer with slack in the
	// heap moved earlier (marked timerModified) since the last adjust. It is 0
	// if there is none. modify lowers it without the timers lock. adjust clears
	// it as it clears minWhenModified. Elsewhere it may be left low, which
	// costs at most one needless adjust.
	modified atomic.Int64
}

// setTimerSlack sets the policy from a GODEBUG value, "" meaning the
// default. A value that does not parse turns slack off.
func setTimerSlack(value string) {
	if value == "" {
		value = defaultTimerSlack
	}
	spec, ok := parseTimerSlack(value)
	if !ok {
		spec = timerSlackSpec{max: maxWhen}
	}
	spec.compile()
	l := &timerSlackSpecs
	for !l.locked.CompareAndSwap(0, 1) {
		osyield()
	}
	e := l.list.ptr()
	for e != nil && (e.abs != spec.abs || e.rel != spec.rel || e.max != spec.max) {
		e = e.next.ptr()
	}
	if e == nil {
		if l.used < len(l.static) {
			e = &l.static[l.used]
			l.used++
		} else {
			e = (*timerSlackSpec)(persistentalloc(unsafe.Sizeof(spec), goarch.PtrSize, &memstats.other_sys))
		}
		spec.next = l.list
		*e = spec // no pointer in it: a plain copy, with no write barrier
		l.list = timerSlackSpecPtr(unsafe.Pointer(e))
	}
	if !e.on || faketime != 0 {
		e = nil // no slack, nor any test of faketime at arming
	}
	timerSlackPolicy.StoreNoWB(e) // e is not in the heap
	if e != nil {
		atomic.Store8(&timerSlackArming, timerHeaped)
	} else {
		atomic.Store8(&timerSlackArming, 0)
	}
	l.locked.Store(0)
}

// loadTimerSlack returns the policy in force, timerSlackOff for none.
func loadTimerSlack() *timerSlackSpec {
	if s := timerSlackPolicy.Load(); s != nil {
		return s
	}
	return &timerSlackOff
}

// timerSlackOff is the policy that grants no slack.
var timerSlackOff = timerSlackSpec{max: maxWhen, capAt: minCapAt}

// compile works out on, fixed and capAt from abs, rel and max. Every delay
// from capAt on gets fixed, the cap. slackFor then returns it with no
// multiply: for 25%:1ms, every delay of 4ms or more. Every delay below
// capAt gets less than the cap. A policy that gives every delay the same
// slack has capAt minCapAt, below every delay. That is a policy with no rel,
// or with an abs that reaches the cap.
func (s *timerSlackSpec) compile() {
	s.on = (s.abs != 0 || s.rel != 0) && s.max != 0
	limit := min(s.max, maxTimerSlack)
	if s.rel == 0 {
		s.fixed, s.capAt = max(min(s.abs, limit), 0), minCapAt
		return
	}
	s.fixed = limit
	if s.abs >= limit {
		s.capAt = minCapAt
		return
	}
	// The least d with abs + mulFrac(d, rel) >= limit. mulFrac is monotone
	// in d, and within a few units of d*rel/timerSlackOne.
	d := (limit - s.abs) * timerSlackOne / s.rel
	for s.abs+mulFrac(d, s.rel) < limit {
		d++
	}
	for d > 0 && s.abs+mulFrac(d-1, s.rel) >= limit {
		d--
	}
	s.capAt = d
}

// minCapAt is the capAt of a policy that gives every delay its cap.
const minCapAt = -1 << 63

// slackFor returns the slack the policy gives a timer due delay
// nanoseconds after it was armed (<= 0: due already). That is min(abs +
// rel*max(delay, 0), max, maxTimerSlack), for 0 <= abs. Below capAt, abs +
// rel*delay is less than the cap (see compile). So it needs neither the min
// nor a test of overflow.
func (s *timerSlackSpec) slackFor(delay int64) int64 {
	if delay >= s.capAt {
		return s.fixed
	}
	return s.abs + mulFrac(max(delay, 0), s.rel)
}

// mulFrac returns d*frac/timerSlackOne for d >= 0 and 0 <= frac <=
// timerSlackOne, without overflow. The result is at most d.
func mulFrac(d, frac int64) int64 {
	return (d>>16)*frac + (d&(1<<16-1))*frac>>16
}

// addSat returns a+b for a, b >= 0, or maxWhen if that overflows.
func addSat(a, b int64) int64 {
	if a > maxWhen-b {
		return maxWhen
	}
	return a + b
}

// slackArm sets t's slack for its current when, armed at now. It returns
// t's hard deadline. The caller holds t's lock.
//
// now is the time t's when was computed from. Package time and the
// netpoller pass it down, so that a relative slack costs no clock read.
// Arming never reads the clock. A caller that has no reading takes
// slackClock's. Those callers are maybeAdd, the runtime's reset, and the
// netpoller when clearing one of a shared read and write deadline, or
// setting it in the past, re-arms the other. A now of 0 gives no slack
// under a policy whose slack depends on the delay. It comes only from
// slackClock racing with a change of policy, or from a Sleep that hands its
// timer none (which maybeAdd then arms).
//
// Only a timer in a heap gets slack. Nothing wakes for the others: a
// channel timer that nothing is blocked on runs when its channel is read.
// maybeAdd arms a timer as it enters a heap. So a Reset of such a timer
// reads no clock. A relative slack is a share of the delay the timer was
// set for. For a channel timer that enters a heap when a goroutine blocks
// on it, it is a share of the delay left then.
//
// Arming is on every timer's path, so it does the least it can. Inlined
// into the caller, it loads a flag and ANDs it with t's state. It calls
// slackArmOn only if the policy grants slack and t is in a heap. That
// function tests for a bubble, loads the policy once, multiplies only for a
// delay below the policy's cap (slackFor), and stores once. It calls no
// function, so it needs no frame. The metrics count the slack when the
// timer fires (slackFiring), not here. A faketime build never publishes a
// policy (setTimerSlack), so arming tests nothing for it.
func (t *timer) slackArm(now int64) int64 {
	if atomic.Load8(&timerSlackArming)&t.state != 0 {
		return t.slackArmOn(now)
	}
	t.slack.off = 0
	return t.when
}

// slackArmOn is slackArm for a timer in a heap, under a policy that grants
// slack. A policy with capAt minCapAt gives every delay fixed. So it needs
// no now.
func (t *timer) slackArmOn(now int64) int64 {
	spec := timerSlackPolicy.Load()
	if spec == nil || t.isFake || now == 0 && spec.capAt != minCapAt {
		t.slack.off = 0
		return t.when
	}
	slack := t.capPeriodic(spec.slackFor(t.when - now))
	t.slack.off = uint32(slack)
	return deadlineOf(t.when, slack)
}

// slackClock returns the time for a caller about to arm a timer that has
// no reading of its own. It returns it only if the policy's slack depends
// on the delay, and 0 if not. With slack off, or a slack that is the same
// for every delay, arming reads no clock.
func slackClock() int64 {
	if s := timerSlackPolicy.Load(); s != nil && s.capAt != minCapAt {
		return nanotime()
	}
	return 0
}

// capPeriodic returns slack, capped at half of t's period if t is
// periodic. A periodic timer re-arms from its when, to the first instant of
// its period after the run (see unlockAndRun). A tick late by a whole
// period would skip the next one. So a slack of a period or more (1ms on a
// 1ms Ticker) would drop ticks. Half the period leaves the other half for
// the wakeup's own lateness. The caller holds t's lock.
func (t *timer) capPeriodic(slack int64) int64 {
	if t.period > 0 {
		return min(slack, t.period/2)
	}
	return slack
}

// deadline returns t's hard deadline. The caller holds t's lock.
func (t *timer) deadline() int64 {
	return deadlineOf(t.when, int64(t.slack.off))
}

// deadlineOf returns when+slack, saturated at maxWhen, for 0 <= when <=
// maxWhen and 0 <= slack <= maxTimerSlack. Such a sum overflows at most
// into the negative numbers. So one test of its sign finds the overflow.
func deadlineOf(when, slack int64) int64 {
	if d := when + slack; d >= 0 {
		return d
	}
	return maxWhen
}

// A slackSleep is what timeSleep records on its M for resetForSleep, the
// unlock function of its gopark. It is the time the sleep's when was
// computed from, so that arming the sleep's timer reads no clock.
// resetForSleep runs on the same M, unless the goroutine moved on its way
// to park.
type slackSleep struct {
	gp   guintptr // the goroutine that began the sleep
	when int64    // its when
	now  int64    // the time when was computed from
}

// slackSleepFrom records that gp, running on mp, computed when, the end
// of its sleep, from now. It is nosplit so that gp cannot be preempted
// between the caller's read of gp.m and the stores. A preempted gp could
// move to another M, should the call not be inlined.
//
//go:nosplit
func (mp *m) slackSleepFrom(gp *g, when, now int64) {
	mp.slackSleep = slackSleep{guintptr(unsafe.Pointer(gp)), when, now}
}

// slackSleepNow returns the time that the sleep of gp until when was
// computed from, if gp recorded it on mp, and else 0. A goroutine
// preempted on its way to park may park on another M, whose record is
// another sleep's. The sleep's timer is in no heap: it fired, and left it.
// So with a 0, maybeAdd reads the clock as the timer enters one.
func (mp *m) slackSleepNow(gp *g, when int64) int64 {
	if s := &mp.slackSleep; s.gp == guintptr(unsafe.Pointer(gp)) && s.when == when {
		return s.now
	}
	return 0
}

// coalescedAt reports whether a firing at now comes before t's hard
// deadline. Then a wakeup or a scheduler pass that came for something else
// serves it. The caller holds t's lock and has not re-armed t yet.
func (t *timer) coalescedAt(now int64) bool {
	return now < t.deadline()
}

// heapEntry returns t's heap entry. It is keyed on t's hard deadline, with
// t's when as the soft part. The caller holds t's lock.
func (t *timer) heapEntry() timerWhen {
	return timerWhen{timer: t, soft: timerWhenSoft{t.when}, when: t.deadline()}
}

// setWhen updates tw, the entry of t, to t's when and hard deadline.
// The caller holds t's lock.
func (tw *timerWhen) setWhen(t *timer) {
	tw.when = t.deadline()
	tw.soft.when = t.when
}

// softWhen returns the when of the entry's timer as of the last update.
func (tw timerWhen) softWhen() int64 {
	return tw.soft.when
}

// slackUpdateOpen sets ts.open to heap[0]'s soft when.
// The caller must have locked ts or the world must be stopped.
func (ts *timers) slackUpdateOpen() {
	if len(ts.heap) == 0 {
		ts.open.when.Store(0)
	} else {
		ts.open.when.Store(ts.heap[0].soft.when)
	}
}

// slackOpen returns the time from which check has a timer to run or to
// re-sort. That is the earliest of next, ts's wake time, the time the
// window of ts's first timer opens, and the time the window of a modified
// timer may open. With the wheel, it is also the time the window of a timer
// in its earliest slot may open. Without the wheel it is inlined into
// check, which every scheduler pass calls. The test of the experiment costs
// the inliner nothing.
func (ts *timers) slackOpen(next int64) int64 {
	open := minNonZero(minNonZero(next, ts.open.when.Load()), ts.open.modified.Load())
	if goexperiment.TimerWheel {
		open = minNonZero(open, ts.wheelOpen())
	}
	return open
}

// slackModified lowers ts.open.modified to the when of t if t has slack, a
// heap entry, and a when earlier than before. t is a timer in ts that
// modify has just marked timerModified, moving its when from oldWhen. Its
// window opens before the hard deadline that minWhenModified records, and
// before the soft when of its stale entry. A timer moved later, the common
// Reset, needs nothing. Its window opens after its entry's, as for a timer
// not modified at all. The caller holds t's lock. The test is inlined into
// modify.
func (ts *timers) slackModified(t *timer, oldWhen int64) {
	if t.when < oldWhen && t.slack.off != 0 {
		ts.slackModifiedEarlier(t)
	}
}

// slackModifiedEarlier is slackModified for a timer with slack moved
// earlier.
func (ts *timers) slackModifiedEarlier(t *timer) {
	if t.wheeled() {
		return
	}
	// Publish timerModified before reading the bound. Then an adjust either
	// sees t as modified in its scan, or clears the bound before the read
	// below, and t lowers it again.
	t.astate.Store(t.state)
	for {
		old := ts.open.modified.Load()
		if old != 0 && old <= t.when {
			return
		}
		if ts.open.modified.CompareAndSwap(old, t.when) {
			return
		}
	}
}

// slackModifiedOpen returns the earlier of first, ts's minWhenModified,
// and ts.open.modified. That is the time from which adjust has a modified
// timer that may run. 0 means none.
func (ts *timers) slackModifiedOpen(first int64) int64 {
	return minNonZero(first, ts.open.modified.Load())
}

// slackClearModified clears ts.open.modified, as adjust clears
// minWhenModified before it re-sorts every modified timer.
func (ts *timers) slackClearModified() {
	ts.open.modified.Store(0)
}

// minNonZero returns the lesser of a and b, where 0 means none.
func minNonZero(a, b int64) int64 {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

// parseTimerSlack parses a policy, [ABS][+PCT%][:CAP], and reports whether
// it is well formed. Either term may come first.
func parseTimerSlack(s string) (spec timerSlackSpec, ok bool) {
	spec.max = maxWhen
	if i := bytealg.IndexByteString(s, ':'); i >= 0 {
		if spec.max, ok = parseSlackDuration(s[i+1:]); !ok {
			return timerSlackSpec{}, false
		}
		s = s[:i]
	}
	haveAbs, haveRel := false, false
	for s != "" {
		term := s
		if i := bytealg.IndexByteString(s, '+'); i >= 0 {
			term, s = s[:i], s[i+1:]
			if s == "" {
				return timerSlackSpec{}, false
			}
		} else {
			s = ""
		}
		if n := len(term); n > 0 && term[n-1] == '%' {
			if haveRel {
				return timerSlackSpec{}, false
			}
			spec.rel, ok = parseSlackPercent(term[:n-1])
			haveRel = true
		} else {
			if haveAbs {
				return timerSlackSpec{}, false
			}
			spec.abs, ok = parseSlackDuration(term)
			haveAbs = true
		}
		if !ok {
			return timerSlackSpec{}, false
		}
	}
	return spec, haveAbs || haveRel
}

// parseSlackDuration parses a non-negative decimal duration with a unit of
// ns, us, ms or s, or a bare 0. It truncates to whole nanoseconds.
func parseSlackDuration(s string) (int64, bool) {
	if s == "0" {
		return 0, true
	}
	units := [...]struct {
		suffix string
		ns     int64
	}{{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}}
	for _, u := range units {
		if n := len(s) - len(u.suffix); n > 0 && s[n:] == u.suffix {
			return scaleDecimal(s[:n], u.ns)
		}
	}
	return 0, false
}

// parseSlackPercent parses a decimal percentage from 0 to 100 into units of
// 1/timerSlackOne.
func parseSlackPercent(s string) (int64, bool) {
	// A percentage is a decimal fraction of 100%: scale to 1e9 parts per 100.
	ppb, ok := scaleDecimal(s, 1e7)
	if !ok || ppb > 1e9 {
		return 0, false
	}
	return ppb * timerSlackOne / 1e9, true
}

// scaleDecimal returns the decimal number s times unit, truncated. s has
// digits and at most one '.'. It also reports whether s is well formed and
// the result fits in an int64.
func scaleDecimal(s string, unit int64) (int64, bool) {
	var whole, frac int64
	fracDigits, scale := 0, int64(1)
	seenDot, seenDigit := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !seenDot:
			seenDot = true
		case c >= '0' && c <= '9' && !seenDot:
			seenDigit = true
			if whole > (maxWhen-int64(c-'0'))/10 {
				return 0, false
			}
			whole = whole*10 + int64(c-'0')
		case c >= '0' && c <= '9':
			seenDigit = true
			if fracDigits < 18 { // further digits are below a nanosecond's worth
				frac = frac*10 + int64(c-'0')
				scale *= 10
				fracDigits++
			}
		default:
			return 0, false
		}
	}
	if !seenDigit || whole > maxWhen/unit {
		return 0, false
	}
	v := whole * unit
	if scale <= unit {
		return addSat(v, frac*(unit/scale)), true
	}
	return addSat(v, frac/(scale/unit)), true
}
