#!/usr/bin/env bash
# extract-patches.sh [DIR]: write the commits on top of the base in DIR (default build/work/go) back
# into patches/ (git format-patch, one file per commit) and src-overlay/ (the files of the
# "timerlab: src-overlay" commit, which must be the last commit).
# extract-patches.sh --set SET [DIR]: write the commits of DIR (default build/work/SET) back into
# patch set SET, patches/SET/ (no overlay: a set has none).
#
# The patches are formatted so that the same commits always give the same bytes (zero commit hash,
# full blob hashes, no version signature, no N/M numbering, one author and date for every patch),
# which makes apply then extract a round trip that can be checked with diff.
source "$(dirname "$0")/lib.sh"

set=
if [ "${1:-}" = --set ]; then
	set=${2:-}
	[[ $set =~ ^[a-z0-9][a-z0-9-]*$ ]] || die "--set wants a patch set's name (lower case, digits, -), got '$set'"
	shift 2
fi
dir=${1:-$TL_BUILD/work/${set:-go}}
overlay_subject="timerlab: src-overlay"
git -C "$dir" rev-parse -q --verify base >/dev/null || die "$dir is not a checkout made by apply-patches.sh (no tag 'base')"
[ -z "$(git -C "$dir" status --porcelain --untracked-files=no)" ] || die "$dir has uncommitted changes: commit them first"

overlay_commit=$(git -C "$dir" log --format=%H --fixed-strings --grep="$overlay_subject" base..HEAD)
[ -z "$set" ] || [ -z "$overlay_commit" ] || die "a patch set has no overlay: $dir has a '$overlay_subject' commit"
[ "$(printf '%s\n' "$overlay_commit" | grep -c .)" -le 1 ] || die "more than one '$overlay_subject' commit in $dir"
last=HEAD
if [ -n "$overlay_commit" ]; then
	[ "$overlay_commit" = "$(git -C "$dir" rev-parse HEAD)" ] || die "the '$overlay_subject' commit must be the last commit (git rebase -i)"
	last=HEAD~1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/patches" "$tmp/overlay"
git -C "$dir" format-patch -q --zero-commit --no-signature --full-index --no-numbered \
	-o "$tmp/patches" "base..$last"
# Every patch has the same author and date, the identity and date the scripts commit with (lib.sh),
# whoever wrote the commit and whenever: the series is the project's, and a patch's bytes depend on
# its change and message alone. A header line that is folded goes with it.
for p in "$tmp/patches/"*.patch; do
	[ -f "$p" ] || continue
	awk -v from="From: $GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>" -v date="Date: $(date -u -d "$GIT_COMMITTER_DATE" '+%a, %-d %b %Y %H:%M:%S +0000')" '
		!body && /^$/ { body = 1 }
		!body && /^(From|Date): / { print (/^From: / ? from : date); skip = 1; next }
		!body && skip && /^[ \t]/ { next }
		{ skip = 0; print }' "$p" >"$p.new"
	mv "$p.new" "$p"
done
if [ -n "$overlay_commit" ]; then
	git -C "$dir" diff-tree --no-commit-id --name-only -r --diff-filter=AM HEAD |
		xargs -r git -C "$dir" archive HEAD | tar -x -C "$tmp/overlay"
fi

if [ -n "$set" ]; then
	[ -n "$(ls "$tmp/patches")" ] || die "$dir has no commits on top of the base"
	rm -rf "$TL_PATCHES/$set"
	mkdir -p "$TL_PATCHES"
	mv "$tmp/patches" "$TL_PATCHES/$set"
	step "$(ls "$TL_PATCHES/$set" | grep -c '\.patch$') patches in ${TL_PATCHES#"$TL_ROOT"/}/$set"
	exit 0
fi
mkdir -p "$TL_PATCHES"
find "$TL_PATCHES" -maxdepth 1 -name '*.patch' -type f -delete
cp "$tmp/patches/"* "$TL_PATCHES/" 2>/dev/null || true
[ ! -f "$TL_OVERLAY/$TL_OVERLAY_FENCE" ] || cp "$TL_OVERLAY/$TL_OVERLAY_FENCE" "$tmp/overlay/"
rm -rf "$TL_OVERLAY"
mv "$tmp/overlay" "$TL_OVERLAY"
step "$(ls "$TL_PATCHES" | grep -c '\.patch$') patches in ${TL_PATCHES#"$TL_ROOT"/}, $(overlay_files | wc -l) overlay files in ${TL_OVERLAY#"$TL_ROOT"/}"
