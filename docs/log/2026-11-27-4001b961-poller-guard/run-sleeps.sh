#!/bin/bash
# run.sh ROUNDS: interleaved SubMsSleep, base vs new
cd /tmp/exp
for r in $(seq 1 $1); do
  for v in base new; do
    GOMAXPROCS=2 ./wk-$v -test.run '^$' -test.bench 'SubMsSleep' -test.benchtime 100000x -test.count 1 2>&1 | grep -E '^BenchmarkSubMsSleep' | sed "s/^/$v /"
  done
done
