#!/bin/sh
# mkobs.sh SRC DST: copies the wheel toolchain SRC (a GOROOT) to DST and adds
# the diagnostic counters (timerlab_obs.go.in, obs.patch) to DST's runtime.
# go build then compiles that runtime from source; SRC is left alone.
set -eu
[ $# -eq 2 ] || { echo "usage: mkobs.sh SRC-GOROOT DST" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$1/bin/go" ] || { echo "mkobs.sh: no toolchain at $1" >&2; exit 1; }
[ ! -e "$2" ] || { echo "mkobs.sh: $2 exists" >&2; exit 1; }
cp -a "$1" "$2.tmp"
cp "$here/timerlab_obs.go.in" "$2.tmp/src/runtime/timerlab_obs.go"
(cd "$2.tmp" && patch -s -p1 < "$here/obs.patch") || { rm -rf "$2.tmp"; echo "mkobs.sh: obs.patch does not apply to $1" >&2; exit 1; }
mv "$2.tmp" "$2"
