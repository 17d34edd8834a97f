#!/bin/bash
cd /tmp/exp
for r in $(seq 1 $1); do
  for v in base new; do
    GOMAXPROCS=2 ./wk-$v -test.run '^$' -test.bench 'StaggeredTickers$' -test.benchtime 1s -test.count 1 2>&1 | grep -E '^BenchmarkStaggered' | sed "s/^/$v /"
  done
done
