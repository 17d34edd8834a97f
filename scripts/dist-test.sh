#!/usr/bin/env bash
# dist-test.sh VARIANT [REGEXP]: run Go's whole test suite, `go tool dist test` (what all.bash runs
# after make.bash), with the variant's toolchain, one test at a time, resumably.
#
# Each test of `go tool dist test -list` (those matching REGEXP, if given) runs as
# `go tool dist test -run '^NAME$'` from the toolchain's GOROOT, with the variant's GODEBUG. Its
# outcome is recorded in build/dist-test/VARIANT/results, one line per test:
#
#   NAME pass SECONDS           passed
#   NAME flaky SECONDS          failed, then passed when run again
#   NAME fail SECONDS           failed twice
#
# and the output of every failed run is kept as build/dist-test/VARIANT/NAME.N.log. A test already
# recorded (pass, flaky or fail) is not run again, so an interrupted run continues where it stopped;
# remove the results file to start over, or a test's line to run it again. A test that skips itself passes (dist test reports it as
# ok). It prints a progress line per test and, at the end, the summary, also written to
# build/dist-test/VARIANT/summary. The results file names the toolchain's stamp: results of an
# older toolchain of the variant are refused, not mixed in.
#
# A full run takes hours on 2 cores (641 tests in go1.27.4); for pristine upstream it is the
# control: what fails there fails for the machine, not for a variant.
source "$(dirname "$0")/lib.sh"

variant=${1:-}
filter=${2:-}
require_variant "$variant"
[ $# -le 2 ] || die "usage: dist-test.sh VARIANT [REGEXP]"
tc=$(toolchain_dir "$variant")
require_toolchain "$variant"
toolchain_current "$variant" || die "the toolchain of $variant is stale: run scripts/build-toolchain.sh $variant"
[[ ,$(GOROOT=$tc GOTOOLCHAIN=local "$tc/bin/go" env GOEXPERIMENT), != *,timernull,* ]] ||
	die "$variant is the null floor, whose AfterFunc timers never fire: Go's test suite does not apply (test-variant.sh $variant runs its own test)"

dir=$TL_BUILD/dist-test/$variant
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock -n 9 || die "another dist-test.sh of $variant is running (lock $dir/.lock)"
results=$dir/results
stamp=$(cat "$tc/.timerlab-stamp" 2>/dev/null || echo none)
if [ -f "$results" ]; then
	[ "$(head -n 1 "$results")" = "# stamp $stamp" ] ||
		die "$results is of another toolchain of $variant: remove it to start over"
else
	echo "# stamp $stamp" >"$results"
fi

# The tests run as on a builder, from a copy of the toolchain outside this checkout
# (toolchain_copy), with the variant's own build cache under its results. The copy goes when the
# run ends, the cache when every test of the list is recorded.
copy=${TMPDIR:-/tmp}/timerlab-dist-$variant
toolchain_copy "$variant" "$copy"
tc=$copy/go
export GOROOT=$tc PATH="$tc/bin:$PATH" GOTOOLCHAIN=local GOFLAGS= GOCACHE=$dir/gocache GOWORK=off
unset GOEXPERIMENT GOMAXPROCS
godebug=$(variant_field "$variant" godebug)
[ -z "$godebug" ] || export GODEBUG=$godebug

list=$(cd "$tc/src" && go tool dist test -list 8>&- 9>&-) || die "go tool dist test -list failed for $variant"
tests=()
while read -r name; do
	[ -n "$name" ] || continue
	[ -z "$filter" ] || [[ $name =~ $filter ]] || continue
	tests+=("$name")
done <<<"$list"
[ ${#tests[@]} -gt 0 ] || die "no test of $variant's dist test matches '$filter'"

# run_one NAME ATTEMPT: run one test, keeping its output if it fails; succeed if it passed.
run_one() {
	local log=$dir/${1//\//_}.$2.log re
	re=$(printf '%s' "$1" | sed 's/[][\\.^$*+?(){}|]/\\&/g')
	if (cd "$tc/src" && go tool dist test -run "^$re\$") >"$log" 2>&1 8>&- 9>&-; then
		rm -f "$log"
		return 0
	fi
	return 1
}

step "dist test of $variant: $("$tc/bin/go" version)${godebug:+ with GODEBUG=$godebug}, ${#tests[@]} tests"
i=0
for name in "${tests[@]}"; do
	i=$((i + 1))
	if awk -v n="$name" '$1 == n { found = 1 } END { exit !found }' "$results"; then
		continue
	fi
	start=$SECONDS
	if run_one "$name" 1; then
		outcome=pass
	elif run_one "$name" 2; then
		outcome=flaky
	else
		outcome=fail
	fi
	echo "$name $outcome $((SECONDS - start))" >>"$results"
	printf '[%d/%d] %-40s %s %ds\n' "$i" "${#tests[@]}" "$name" "$outcome" $((SECONDS - start))
done

count() { grep -c " $1 " "$results" || true; }
{
	echo "variant $variant, $("$tc/bin/go" version), stamp ${stamp:0:12}${filter:+, tests matching $filter}"
	echo "passed $(count pass), flaky $(count flaky), failed $(count fail), of ${#tests[@]}"
	grep " fail \| flaky " "$results" | sed 's/^/  /' || true
} | tee "$dir/summary"
[ -n "$filter" ] || rm -rf "$dir/gocache"
[ "$(count fail)" = 0 ]
