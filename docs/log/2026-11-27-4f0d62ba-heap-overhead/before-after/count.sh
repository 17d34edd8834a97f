#!/bin/bash
# count.sh: instructions per op, (Ir(2N) - Ir(N)) / N, of each benchmark of plan.txt for each binary,
# under the environment of timerlab instr. One round each.
cd "$(dirname "$0")"
while read -r name n; do
  pat=$(echo "$name" | sed 's#^\([^/]*\)$#^\1$#; s#^\([^/]*\)/\(.*\)$#^\1$/^\2$#')
  line="$name"
  for b in upstream heap.cdaa heap.4001 heap.4f0d; do
    ir=()
    for k in $n $((2*n)); do
      GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1,memprofilerate=0 valgrind --tool=cachegrind --cache-sim=no \
        --cachegrind-out-file=cg.out ./$b.test -test.run '^$' -test.bench "$pat" -test.cpu 1 -test.benchtime ${k}x >/dev/null 2>&1
      ir+=($(awk '/^summary/{print $2}' cg.out))
    done
    line="$line $(python3 -c "print(round(($((ir[1])) - $((ir[0]))) / $n, 2))")"
  done
  echo "$line"
done < plan.txt
