#!/bin/bash
# Burst B/op, heap / wheel (chunks, series cdaa695a) / wheel-arrays (the series before, 31a84616, as an overlay), 6 interleaved rounds
# OLD.json: the overlay of the series before (31a84616) on the wheel toolchain, written by
# TIMERLAB_WORK=DIR scripts/overlay.sh wheel list runtime (build/overlay/wheel.json), DIR a work
# checkout of that series (a git worktree of build/work/go at its commit before ea404e2).
cd bench
B=$(cd ../build/toolchains && pwd)
for r in 1 2 3 4 5 6; do
  for v in heap wheel wheel-arrays; do
    tc=$v; ov=
    if [ $v = wheel-arrays ]; then tc=wheel; ov=-overlay=OLD.json; fi
    GOTOOLCHAIN=local GOROOT=$B/$tc $B/$tc/bin/go test $ov ./timers -run '^$' -bench 'Burst/timers=100K' -benchtime=20x -benchmem >> ../docs/log/2026-11-27-cdaa695a-chunks/burst/$v-100K.txt 2>&1
    GOTOOLCHAIN=local GOROOT=$B/$tc $B/$tc/bin/go test $ov ./timers -run '^$' -bench 'Burst/timers=1M' -benchtime=4x -benchmem >> ../docs/log/2026-11-27-cdaa695a-chunks/burst/$v-1M.txt 2>&1
  done
done
echo DONE
