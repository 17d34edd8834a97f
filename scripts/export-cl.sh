#!/usr/bin/env bash
# export-cl.sh NAME OUT: write a patch set as a CL series for upstream Go, as `git format-patch`
# files in the new directory OUT, which apply with `git am` onto pristine go1.27.4 (build/base).
#
# NAME is a patch set, a directory of patches/ (patches/NAME/*.patch), or a variant whose series
# is one (variants.conf). The series leaves out the lab's own commits, those whose subject starts
# with "timerlab:" (a counter the harness reads, say): what is left is what upstream would review.
# It is applied onto a fresh clone of the base and formatted again from there, so OUT holds what
# applies to pristine upstream, not to the lab's tree. Before anything is written it checks what a
# reviewer would reject at once:
#   - the word "timerlab" anywhere in a patch (message, code, file name);
#   - a new file without Go's copyright header ("Copyright YEAR The Go Authors.");
#   - a patch that does not apply, or a series of fewer than two commits (upstream asks for a
#     change with no behavior change, then the change).
# The author of every patch is EXPORT_AUTHOR ("Name <email>"; default: Gopher <gopher@golang.org>).
#
# OUT is written whole or not at all: the series is formatted in a temporary directory beside it
# and renamed into place. An OUT that exists is refused.
source "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: export-cl.sh NAME OUT (NAME: a patch set of patches/, or a variant whose series is one)"
name=$1 out=$2
base_ready || die "missing base $(base_dir): run scripts/fetch-go.sh first"
[ ! -e "$out" ] || die "$out exists: give a new directory"

# The set: NAME itself, or the series of variant NAME.
set=$name
if [ ! -d "$TL_PATCHES/$set" ] && variant_names 2>/dev/null | grep -qxF -- "$name"; then
	set=$(variant_field "$name" series)
fi
case $set in
all | none | @* | "") die "variant '$name' has series '$set', not a patch set of patches/: only a set exports" ;;
esac
[ -d "$TL_PATCHES/$set" ] || die "no patch set '$set' (want a directory of patches/, or a variant whose series is one)"
patches=$(find "$TL_PATCHES/$set" -maxdepth 1 -name '*.patch' -type f | LC_ALL=C sort)
[ -n "$patches" ] || die "patch set '$set' has no patches"

author=${EXPORT_AUTHOR:-Gopher <gopher@golang.org>}
case $author in
*timerlab* | *Timerlab* | *TIMERLAB*) die "EXPORT_AUTHOR '$author' names timerlab" ;;
*" <"*@*">") ;;
*) die "EXPORT_AUTHOR '$author' is not of the form 'Name <email>'" ;;
esac

mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d "$(dirname "$out")/.export.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
git clone -q --shared "$(base_dir)" "$tmp/go" || die "cannot clone base $(base_dir)"
n=0
for p in $patches; do
	subject=$(sed -n 's/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//p' "$p" | head -n 1)
	case $subject in timerlab:*) continue ;; esac
	if ! msg=$(git -C "$tmp/go" am -q --keep-cr --whitespace=nowarn "$p" 2>&1); then
		die "patch $(basename "$p") of set $set does not apply to pristine $(base_version): $(patch_failure "$msg")"
	fi
	n=$((n + 1))
done
[ "$n" -ge 2 ] || die "set $set has $n commit(s) for upstream: want at least two (a move with no behavior change, then the change)"

mkdir "$tmp/out"
git -C "$tmp/go" format-patch -q --no-signature -o "$tmp/out" base..HEAD
# Every patch is by EXPORT_AUTHOR: the From: header, folded or not, is replaced.
for p in "$tmp/out/"*.patch; do
	awk -v from="From: $author" '
		!body && /^$/ { body = 1 }
		!body && /^From: / { print from; skip = 1; next }
		!body && skip && /^[ \t]/ { next }
		{ skip = 0; print }' "$p" >"$p.new"
	mv "$p.new" "$p"
done

# What a reviewer rejects at once.
if grep -il timerlab "$tmp/out"/*.patch >/dev/null; then
	die "the export names timerlab: $(grep -il timerlab "$tmp/out"/*.patch | xargs -n1 basename | paste -sd ' ')"
fi
for f in $(git -C "$tmp/go" diff --name-only --diff-filter=A base HEAD -- '*.go' '*.s'); do
	head -n 3 "$tmp/go/$f" | grep -qE '^// Copyright [0-9]{4} The Go Authors\. All rights reserved\.$' ||
		die "new file $f lacks Go's copyright header"
done

mv "$tmp/out" "$out"
step "$n patches of set $set for upstream in $out (git am onto $(base_version))"
