#!/usr/bin/env bash
# gcphase.sh OUT ROUNDS: TimeoutVsN at 4M live timers under heap and wheel, a fresh process per
# round and toolchain, interleaved, at the timers set's -test.benchtime 1s, with GODEBUG=gctrace=1.
# For each run it prints the ns/op, the iterations, and the collections that began after the
# benchmark's forced one (those of the timed loop) with their CPU time. Writes OUT/runs.tsv.
# About 4 s a run on 2 cores: 2 min 11 s for 8 rounds (32 runs).
source "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)/scripts/lib.sh"
out=${1:?usage: gcphase.sh OUT ROUNDS}; rounds=${2:?usage: gcphase.sh OUT ROUNDS}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export GOTOOLCHAIN=local GOFLAGS= GOWORK=off
for n in heap wheel; do
	require_toolchain "$n"
	toolchain_current "$n" || die "the toolchain of $n is stale: run scripts/build-toolchain.sh $n"
	g=$(toolchain_dir "$n")
	(cd "$TL_ROOT/bench/timers" && GOROOT=$g "$g/bin/go" test -c -o "$work/$n.test" .)
done
mkdir -p "$out"
printf 'round\tvariant\tbench\titers\tns/op\tloop_gcs\tloop_gc_cpu_ms\n' > "$out/runs.tsv"
for r in $(seq "$rounds"); do
	for n in heap wheel; do
		for b in TimeoutVsN TimeoutVsNGCOff; do
			GODEBUG=gctrace=1 "$work/$n.test" -test.run '^$' -test.bench "^Benchmark$b\$/^N=4M\$" \
				-test.benchtime 1s >"$work/o" 2>"$work/e"
			line=$(grep "^Benchmark$b/N=4M" "$work/o")
			iters=$(awk '{print $2}' <<<"$line"); ns=$(awk '{print $3}' <<<"$line")
			# the collections after the last forced one: with the collector on, those of the timed
			# loop; with it off, none (gcOff's cleanup forces one after the loop)
			read -r gcs cpu < <(awk '/\(forced\)/{c=0;s=0;next} /^gc [0-9]+ @/{c++; split($0,a,"ms cpu"); n=split(a[1],f,", "); split(f[n],p,"+"); split(p[2],q,"/"); s+=p[1]+q[1]+q[2]+q[3]+p[3]} END{print c+0, s+0}' "$work/e")
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$n" "$b" "$iters" "$ns" "$gcs" "$cpu" | tee -a "$out/runs.tsv"
		done
	done
done
