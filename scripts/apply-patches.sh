#!/usr/bin/env bash
# apply-patches.sh [--force] [--set SET] [DIR]: make DIR (default build/work/go) a fresh checkout of
# the base with the series applied: one commit per patch, then one commit "timerlab: src-overlay"
# holding the overlay. With --set, patch set SET instead (patches/SET/, no overlay; DIR defaults to
# build/work/SET). Edit there, commit (amend or fixup the commit a change belongs to; a new runtime file goes
# into the src-overlay commit), then run extract-patches.sh DIR to write the series back.
#
# DIR is made in a temporary directory beside it and renamed when the whole series applied, so a
# patch that fails leaves no half-patched tree.
source "$(dirname "$0")/lib.sh"

force= set=
while :; do
	case ${1:-} in
	--force) force=1 && shift ;;
	--set)
		set=${2:-}
		patch_sets | grep -qxF -- "$set" || die "no patch set '$set' (known: $(patch_sets | paste -sd ' '))"
		shift 2
		;;
	*) break ;;
	esac
done
dir=${1:-$TL_BUILD/work/${set:-go}}
base_ready || die "missing base $(base_dir): run scripts/fetch-go.sh first"
[ ! -e "$dir" ] || [ -n "$force" ] || die "$dir exists (use --force to replace it)"

mkdir -p "$(dirname "$dir")"
tmp=$(mktemp -d "$dir.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
rmdir "$tmp"
git clone -q --shared "$(base_dir)" "$tmp" || die "cannot clone base $(base_dir)"
if [ -n "$set" ]; then apply_set "$tmp" "$set"; else apply_series "$tmp"; fi
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
step "$(git -C "$dir" rev-list --count base..HEAD) commits on top of $(base_version) in $dir"
