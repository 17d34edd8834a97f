#!/usr/bin/env bash
# check-series.sh: the patch round trip. Apply patches/ and src-overlay/ onto a fresh checkout of the
# base, extract them again, and fail unless the result is byte for byte what is committed. A series
# that was edited by hand (not through extract-patches.sh) or no longer applies fails here.
source "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$TL_ROOT/scripts/apply-patches.sh" "$tmp/go" >/dev/null
TIMERLAB_PATCHES="$tmp/patches" TIMERLAB_OVERLAY="$tmp/overlay" "$TL_ROOT/scripts/extract-patches.sh" "$tmp/go" >/dev/null
mkdir -p "$TL_OVERLAY" "$tmp/patches" "$tmp/overlay"
[ ! -f "$TL_OVERLAY/$TL_OVERLAY_FENCE" ] || cp "$TL_OVERLAY/$TL_OVERLAY_FENCE" "$tmp/overlay/"
diff -r $(for s in $(patch_sets); do printf -- '-x %s ' "$s"; done) "$TL_PATCHES" "$tmp/patches" >&2 ||
	die "patches/ differs from what apply then extract gives (diff above)"
# Each patch set: the same round trip, on a checkout of its own.
for s in $(patch_sets); do
	"$TL_ROOT/scripts/apply-patches.sh" --set "$s" "$tmp/set-$s" >/dev/null
	TIMERLAB_PATCHES="$tmp/sets" "$TL_ROOT/scripts/extract-patches.sh" --set "$s" "$tmp/set-$s" >/dev/null
	diff -r "$TL_PATCHES/$s" "$tmp/sets/$s" >&2 || die "patches/$s differs from what apply then extract gives (diff above)"
done
diff -r "$TL_OVERLAY" "$tmp/overlay" >&2 || die "src-overlay/ differs from what apply then extract gives (diff above)"
step "round trip ok: $(ls "$TL_PATCHES" | grep -c '\.patch$') patches, $(overlay_files | wc -l) overlay files$(for s in $(patch_sets); do printf ', set %s: %d patches' "$s" "$(set_patches "$s" | wc -l)"; done)"
