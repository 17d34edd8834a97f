#!/bin/bash
# count.sh: per-function instructions of a Reset and of a Sleep, before and after series be83f811,
# under cachegrind, with the binaries built as below into this script's directory, where it runs;
# writes cg.* there (not kept) and prints the tables of the entry.
#
#   before: the toolchains of series 108c1d05 (commit 4fecf4d); after: series be83f811.
#   for s in before after; do for v in heap slack; do
#     GO111MODULE=off GOTOOLCHAIN=local $TC_$s/$v/bin/go build -o reset.$v.$s reset.go   # reset.go.txt
#     GOTOOLCHAIN=local GOFLAGS= $TC_$s/$v/bin/go test -c -o time.$v.$s time
#   done; done
set -e
cd "$(dirname "$0")"
run() { # run TAG N ENV BIN ARGS...
	local tag=$1 n=$2 env=$3; shift 3
	env GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1,memprofilerate=0$env valgrind --tool=cachegrind \
		--cache-sim=no --cachegrind-out-file=cg.$tag.$n "$@" >/dev/null 2>&1
}
for s in before after; do
	for v in heap slack slack-0; do
		b=${v%-0}; env=; [ "$v" = slack-0 ] && env=,timerslack=0
		for n in 100000 300000; do
			run reset-func.$v.$s $n "$env" ./reset.$b.$s func $n
			run reset-chan.$v.$s $n "$env" ./reset.$b.$s chan $n
		done
		for n in 20 40; do
			run sleep.$v.$s $n "$env" ./time.$b.$s -test.run='^$' -test.cpu=1 -test.bench='^BenchmarkSleep1000$' -test.benchtime=${n}x
		done
	done
done
for k in reset-func reset-chan; do
	echo "### $k: instructions per Reset"
	python3 perfn.py 100000 300000 200000 $k.heap.before $k.slack.before $k.slack-0.before $k.heap.after $k.slack.after $k.slack-0.after
done
echo "### Sleep1000: instructions per sleep"
python3 perfn.py 20 40 20000 sleep.heap.before sleep.slack.before sleep.slack-0.before sleep.heap.after sleep.slack.after sleep.slack-0.after
