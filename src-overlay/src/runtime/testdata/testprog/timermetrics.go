// Copyright 2026 The timerlab Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/metrics"
	"strconv"
	"time"
)

func init() {
	register("TimerMetricsSequence", TimerMetricsSequence)
}

// timerCounts are the counters golang/go#75956 proposes.
type timerCounts struct {
	total, expired, stopped, pending, resets int64
}

func readTimerCounts() timerCounts {
	s := []metrics.Sample{
		{Name: "/sched/timers/classes/total:timers"},
		{Name: "/sched/timers/classes/expired:timers"},
		{Name: "/sched/timers/classes/stopped:timers"},
		{Name: "/sched/timers/classes/pending:timers"},
		{Name: "/sched/timers/resets:resets"},
	}
	metrics.Read(s)
	var v [5]int64
	for i, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			fmt.Printf("metric %s is not supported\n", x.Name)
			os.Exit(0)
		}
		v[i] = int64(x.Value.Uint64())
	}
	return timerCounts{v[0], v[1], v[2], v[3], v[4]}
}

// A seqTimer is one timer of the sequence, with what the model knows of it.
type seqTimer struct {
	kind    int // 0 AfterFunc, 1 channel Timer, 2 Ticker
	t       *time.Timer
	tk      *time.Ticker
	fired   chan bool // AfterFunc: its function ran
	pending bool
	near    bool          // due soon: the sequence may wait for it to fire
	period  time.Duration // the duration it was last armed with
	due     time.Time     // no earlier than the runtime's when
}

// TimerMetricsSequence runs a random sequence (seeded by TIMER_SEQ_SEED) of
// AfterFunc, NewTimer, NewTicker, Stop, Reset of pending and of stopped or
// fired timers, and firings, on timers due in 100us-1ms or in an hour,
// and keeps the model of what the proposal's counters count. It prints
// the counters' deltas, then the model's, each as "total expired stopped
// pending resets". It uses no other timer: no Sleep.
func TimerMetricsSequence() {
	seed, _ := strconv.ParseUint(os.Getenv("TIMER_SEQ_SEED"), 10, 64)
	r := rand.New(rand.NewPCG(seed, 1))
	near := func() time.Duration { return time.Duration(100+r.IntN(900)) * time.Microsecond }
	var m timerCounts
	var timers []*seqTimer
	before := readTimerCounts()
	// firedAlone accounts for an AfterFunc timer due soon that fired by
	// itself before the sequence stopped or reset it, as Stop or Reset
	// reported (was): its function must have signalled.
	firedAlone := func(st *seqTimer, was bool) {
		if st.kind == 0 && st.pending && !was {
			<-st.fired
			m.expired++
			m.pending--
			st.pending = false
		}
	}
	arm := func(st *seqTimer, d time.Duration) {
		st.period = d
		st.due = time.Now().Add(d)
		if st.pending {
			m.resets++
		} else {
			m.total++
			m.pending++
		}
		st.pending = true
	}
	// fire waits until st, due soon, fires once, as a receiver or its
	// function sees it. A channel timer fires as its receiver finds it
	// due: the receiver waits for that without blocking on the channel.
	// A blocked receiver puts the timer in the heap, where a Ticker can
	// tick twice, into the channel's buffer, before the receiver leaves.
	fire := func(st *seqTimer) {
		if st.kind != 0 {
			for time.Now().Before(st.due) {
			}
		}
		switch st.kind {
		case 0:
			<-st.fired
		case 1:
			<-st.t.C
		case 2:
			<-st.tk.C
			st.due = time.Now().Add(st.period)
			m.total++ // the next tick is scheduled
			m.pending++
		}
		m.expired++
		m.pending--
		if st.kind != 2 {
			st.pending = false
		}
	}
	for range 400 {
		switch op := r.IntN(5); {
		case op == 0 || len(timers) == 0: // a new timer
			st := &seqTimer{kind: r.IntN(3), near: r.IntN(2) == 0}
			d := time.Hour
			if st.near {
				d = near()
			}
			switch st.kind {
			case 0:
				st.fired = make(chan bool, 1)
				st.t = time.AfterFunc(d, func() { st.fired <- true })
			case 1:
				st.t = time.NewTimer(d)
			case 2:
				st.tk = time.NewTicker(d)
			}
			arm(st, d)
			timers = append(timers, st)
		case op == 1: // Stop
			st := timers[r.IntN(len(timers))]
			var was bool
			if st.kind == 2 {
				st.tk.Stop()
				was = st.pending
			} else {
				was = st.t.Stop()
			}
			firedAlone(st, was)
			if was != st.pending {
				fmt.Printf("Stop reported %v for a timer the model has pending %v\n", was, st.pending)
				os.Exit(0)
			}
			if st.pending {
				m.stopped++
				m.pending--
			}
			st.pending = false
		case op == 2: // Reset
			st := timers[r.IntN(len(timers))]
			st.near = r.IntN(2) == 0
			d := time.Hour
			if st.near {
				d = near()
			}
			if st.kind == 2 {
				st.tk.Reset(d)
			} else {
				firedAlone(st, st.t.Reset(d))
			}
			arm(st, d)
		default: // a firing of a timer due soon
			for _, st := range timers {
				if st.pending && st.near {
					fire(st)
					break
				}
			}
		}
	}
	// The AfterFunc timers due soon fire by themselves: wait for them.
	for _, st := range timers {
		if st.kind == 0 && st.pending && st.near {
			fire(st)
		}
	}
	after := readTimerCounts()
	fmt.Printf("metrics %d %d %d %d %d\n", after.total-before.total, after.expired-before.expired,
		after.stopped-before.stopped, after.pending-before.pending, after.resets-before.resets)
	fmt.Printf("model %d %d %d %d %d\n", m.total, m.expired, m.stopped, m.pending, m.resets)
}
