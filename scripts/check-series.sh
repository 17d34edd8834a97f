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
diff -r "$TL_PATCHES" "$tmp/patches" >&2 || die "patches/ differs from what apply then extract gives (diff above)"
diff -r "$TL_OVERLAY" "$tmp/overlay" >&2 || die "src-overlay/ differs from what apply then extract gives (diff above)"
step "round trip ok: $(ls "$TL_PATCHES" | grep -c '\.patch$') patches, $(overlay_files | wc -l) overlay files"
