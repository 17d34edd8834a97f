#!/usr/bin/env bash
# ci/steps.sh [--budget FILE] TARGET...: run make targets in order, stopping at the first failure,
# and print how long each took.
#
# With --budget, FILE holds the seconds budgeted for the run ("total SECONDS") and for each step
# ("TARGET SECONDS", or "TARGET -" for a step the total leaves out; '#' starts a comment). When the
# total of the steps it counts passes its budget, one warning line names the steps that grew: those
# past their own budget, and those the file does not list. It is a warning, not a failure: timings
# on a shared 2-core machine are too noisy to fail CI on, but the next addition shows its cost
# before CI's limit does. The exit status is the steps'.
set -uo pipefail

budget=
if [ "${1:-}" = --budget ]; then
	budget=${2:-}
	shift 2 || true
	[ -r "$budget" ] || { echo "steps.sh: error: cannot read the budget '$budget'" >&2; exit 2; }
fi
[ $# -gt 0 ] || { echo "usage: ci/steps.sh [--budget FILE] TARGET..." >&2; exit 2; }

# budget_of NAME prints NAME's seconds in the budget file, or nothing.
budget_of() {
	[ -n "$budget" ] || return 0
	awk -v n="$1" '{ sub(/#.*/, "") } $1 == n && $2 ~ /^([0-9]+|-)$/ { print $2; exit }' "$budget"
}

start=$SECONDS
counted=0
summary=()
grew=()
rc=0
for target in "$@"; do
	t0=$SECONDS
	echo "==> ci: make $target"
	make --no-print-directory "$target"
	rc=$?
	took=$((SECONDS - t0))
	want=$(budget_of "$target")
	note=
	case $want in
	"") ;;
	-) note="(not counted)" ;;
	*) note="(budget ${want}s)" ;;
	esac
	summary+=("$(printf '%-18s %5ds  %-6s %s' "$target" "$took" "$([ $rc = 0 ] && echo ok || echo FAILED)" "$note")")
	[ "$want" = - ] || counted=$((counted + took))
	if [ -n "$budget" ]; then
		if [ -z "$want" ]; then
			grew+=("$target ${took}s (no budget)")
		elif [ "$want" != - ] && [ "$took" -gt "$want" ]; then
			grew+=("$target ${took}s (budget ${want}s)")
		fi
	fi
	[ $rc = 0 ] || break
done
total=$((SECONDS - start))
limit=$(budget_of total)
echo "==> ci: steps (total ${total}s${limit:+, ${counted}s counted against the budget of ${limit}s})"
printf '    %s\n' "${summary[@]}"
if [ -n "$limit" ] && [ "$limit" != - ] && [ "$counted" -gt "$limit" ]; then
	list="no step past its own budget"
	[ ${#grew[@]} = 0 ] || list=$(printf '%s, ' "${grew[@]}" | sed 's/, $//')
	echo "==> ci: warning: ${counted}s passes the budget of ${limit}s ($budget); grew: $list"
fi
exit "$rc"
