#!/usr/bin/env bash
# overlay.sh VARIANT GOCMD [ARGS...]: run `go GOCMD -overlay=... ARGS` with VARIANT's built toolchain,
# the overlay mapping every file of the work checkout's src/ that differs from the toolchain's (or that
# the toolchain lacks) onto it. This is the edit-test loop without make.bash:
#
#   scripts/apply-patches.sh                 # once: build/work/go
#   $EDITOR build/work/go/src/runtime/time.go
#   scripts/overlay.sh heap test -short -run 'Timer|Sleep' time runtime
#   GOEXPERIMENT=timerwheel scripts/overlay.sh heap test -short time   # another variant's code
#
# Only compiled packages see the overlay (not the already-built compiler and linker), and a file
# deleted in the work checkout is not deleted from the toolchain. When the change is right, commit it
# in the work checkout, run extract-patches.sh, and rebuild with build-toolchain.sh.
# The work checkout is TIMERLAB_WORK (default build/work/go).
source "$(dirname "$0")/lib.sh"

variant=${1:-}
require_variant "$variant"
[ $# -ge 2 ] || die "usage: overlay.sh VARIANT GOCMD [ARGS...]"
shift
tc=$(toolchain_dir "$variant")
work=${TIMERLAB_WORK:-$TL_BUILD/work/go}
[ -x "$tc/bin/go" ] || die "no toolchain for $variant at $tc: run scripts/build-toolchain.sh $variant"
[ -d "$work/src" ] || die "no work checkout at $work: run scripts/apply-patches.sh"
work=$(cd "$work" && pwd)

# changed_files prints the src/-relative paths that the work checkout has and the toolchain lacks or
# has with other contents.
changed_files() {
	diff -rq "$work/src" "$tc/src" 2>/dev/null | while read -r line; do
		case $line in
		"Files $work/src/"*" differ")
			line=${line#"Files $work/src/"}
			echo "${line%% and *}"
			;;
		"Only in $work/src"*)
			line=${line#"Only in $work/src"}
			line=${line#/}
			local dir=${line%%: *} name=${line#*: }
			(cd "$work/src" && find "${dir:+$dir/}$name" -type f)
			;;
		esac
	done
}

json="$TL_BUILD/overlay/$variant.json"
mkdir -p "$(dirname "$json")"
files=$(changed_files | LC_ALL=C sort)
{
	echo '{"Replace": {'
	printf '%s\n' "$files" | grep . | sed "s|.*|\"$tc/src/&\": \"$work/src/&\"|" | paste -sd, -
	echo '}}'
} >"$json.tmp"
mv "$json.tmp" "$json"
step "$(printf '%s\n' "$files" | grep -c .) file(s) from ${work#"$TL_ROOT"/} over $variant: $(printf '%s\n' "$files" | grep . | paste -sd ' ' -)"

export GOROOT=$tc PATH="$tc/bin:$PATH" GOTOOLCHAIN=local GOFLAGS=
cmd=$1
shift
cd "$tc/src"
exec go "$cmd" -overlay="$json" "$@"
