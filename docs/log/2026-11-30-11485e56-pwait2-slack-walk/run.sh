#!/usr/bin/env bash
# run.sh OUT: bench/wakeups with pwait2-slack's toolchain as built (base) and with a diff over its
# runtime's time.go and proc.go (proto: DIFF, by default this entry's walk.diff, check's walk
# bounded), timerslack=1, R interleaved rounds (default 8) into OUT/base.txt and OUT/proto.txt. Run
# from the checkout with build/toolchains/pwait2-slack built; about 3 minutes on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(git -C "$here" rev-parse --show-toplevel)
g=$root/build/toolchains/pwait2-slack; w=$(mktemp -d); R=${R:-8}; out=${1:?usage: run.sh OUT}
diff=${DIFF:-$here/walk.diff}
trap 'rm -rf "$w"' EXIT
export GOTOOLCHAIN=local GOFLAGS= GOWORK=off
mkdir -p $w/src/runtime
cp "$g/src/runtime/time.go" "$g/src/runtime/proc.go" $w/src/runtime/
(cd $w && patch -s -p1 < "$diff")
printf '{"Replace":{"%s/src/runtime/time.go":"%s","%s/src/runtime/proc.go":"%s"}}' \
	"$g" "$w/src/runtime/time.go" "$g" "$w/src/runtime/proc.go" > $w/proto.json
cd $root/bench/wakeups
GOROOT=$g "$g/bin/go" test -c -o $w/base.test .
GOROOT=$g "$g/bin/go" test -c -overlay=$w/proto.json -o $w/proto.test .
[ "${BUILD_ONLY:-}" ] && exit 0
mkdir -p "$out"; rm -f "$out/base.txt" "$out/proto.txt"
for r in $(seq $R); do for v in base proto; do
  GODEBUG=timerslack=1 $w/$v.test -test.run '^$' -test.bench '^Benchmark(StaggeredTickers|SubMsSleep|SpreadSubMsSleep|CoarseTimeouts)$' -test.benchtime 1s >> "$out/$v.txt"
done; done
