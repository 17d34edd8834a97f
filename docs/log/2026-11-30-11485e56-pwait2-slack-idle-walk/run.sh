#!/usr/bin/env bash
# run.sh OUT: bench/wakeups with pwait2-slack's toolchain as built (base) and with walk.diff over its
# time.go and proc.go (proto: check walks a busy P's windows only once their bound comes due, and
# a P walks its own as it goes idle), timerslack=1, R interleaved rounds (default 8) into
# OUT/base.txt and OUT/proto.txt. Run from the checkout with build/toolchains/pwait2-slack built;
# about 4 minutes on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(git -C "$here" rev-parse --show-toplevel)
g=$root/build/toolchains/pwait2-slack; w=$(mktemp -d); R=${R:-8}; out=${1:?usage: run.sh OUT}
trap 'rm -rf "$w"' EXIT
export GOTOOLCHAIN=local GOFLAGS= GOWORK=off
mkdir -p $w/src/runtime
cp "$g/src/runtime/time.go" "$g/src/runtime/proc.go" $w/src/runtime/
(cd $w && patch -s -p1 < "$here/walk.diff")
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
