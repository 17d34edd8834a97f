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
require_toolchain "$variant"
git -C "$work" rev-parse -q --verify base >/dev/null 2>&1 || die "no work checkout at $work: run scripts/apply-patches.sh"
work=$(cd "$work" && pwd)

# changed_files prints the src/-relative paths of the work checkout's files that differ from the
# toolchain's, in every directory where they may: those of the files the work checkout changed or
# added since the base (committed or not), and src/runtime, where the series the toolchain was built
# from may have changed files that the work checkout has as the base has them. Files that make.bash
# generates in the toolchain (internal/buildcfg/zbootstrap.go, ...) have no twin in the work
# checkout, so they are never overlaid.
changed_files() {
	local d f
	{
		git -C "$work" diff --name-only base -- src
		git -C "$work" ls-files --others --exclude-standard -- src
		# An earlier series may have changed files in the runtime that this one leaves as
		# the base has them: the toolchain, built from that series, still has them changed.
		echo src/runtime/.
	} | while read -r f; do dirname "$f"; done | LC_ALL=C sort -u | while read -r d; do
		for f in "$work/$d"/*; do
			[ -f "$f" ] && ! cmp -s "$f" "$tc/$d/${f##*/}" && echo "${d#src/}/${f##*/}"
		done
	done
	return 0
}

json="$TL_BUILD/overlay/$variant.json"
mkdir -p "$(dirname "$json")"
files=$(changed_files)
{
	echo '{"Replace": {'
	sep=
	for f in $files; do
		printf '%s"%s": "%s"\n' "$sep" "$tc/src/$f" "$work/src/$f"
		sep=,
	done
	echo '}}'
} >"$json.tmp"
mv "$json.tmp" "$json"
step "$(echo $files | wc -w) file(s) from ${work#"$TL_ROOT"/} over $variant: $(echo $files)"

# The overlay goes in GOFLAGS, so that a go command a test runs (the runtime's tests build test
# programs) builds with it too.
export GOROOT=$tc PATH="$tc/bin:$PATH" GOTOOLCHAIN=local GOFLAGS=-overlay=$json
cmd=$1
shift
cd "$tc/src"
exec go "$cmd" "$@"
