#!/usr/bin/env bash
# ci/steps.sh TARGET...: run make targets in order, stopping at the first failure, and print how long
# each took, so the CI budget (60 minutes on 2 cores) stays visible as variants are added.
set -uo pipefail

start=$SECONDS
summary=()
for target in "$@"; do
	t0=$SECONDS
	echo "==> ci: make $target"
	make --no-print-directory "$target"
	rc=$?
	summary+=("$(printf '%-16s %5ds  %s' "$target" $((SECONDS - t0)) "$([ $rc = 0 ] && echo ok || echo FAILED)")")
	[ $rc = 0 ] || break
done
echo "==> ci: steps (total $((SECONDS - start))s)"
printf '    %s\n' "${summary[@]}"
exit "${rc:-0}"
