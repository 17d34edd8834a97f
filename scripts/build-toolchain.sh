#!/usr/bin/env bash
# build-toolchain.sh VARIANT: build the toolchain of one variant at build/toolchains/VARIANT.
# build-toolchain.sh --list: print the variants with a toolchain of their own, one per line.
#
# The toolchain is a full GOROOT made by make.bash from the base, the variant's series
# (patches/ then src-overlay/, or nothing for series "none"), and a VERSION line naming the variant,
# with the variant's GOEXPERIMENT as its default.
#
# An alias (series @TARGET in variants.conf) has no toolchain of its own: it runs with TARGET's, so
# building it says so and builds TARGET. --list leaves aliases out.
#
# Invariants:
#   - build/toolchains/VARIANT exists only as a finished toolchain: it is built in a temporary
#     directory beside it and renamed into place after `go version` checked it. An interrupted or
#     failed build leaves at most a .VARIANT.tmp.* directory, removed by the next build.
#   - build/toolchains/VARIANT/.timerlab-stamp holds the hash of everything the build read (base sum,
#     variant line, series); a build whose stamp matches is skipped.
source "$(dirname "$0")/lib.sh"

if [ "${1:-}" = --list ]; then
	toolchain_names
	exit 0
fi
[ $# -eq 1 ] || die "usage: build-toolchain.sh VARIANT | --list"
variant=$1
require_variant "$variant"
target=$(variant_target "$variant")
if [ "$target" != "$variant" ]; then
	step "$variant is an alias: it runs with $target's toolchain; building $target"
	exec "$0" "$target"
fi
base_ready || die "missing base $(base_dir): run scripts/fetch-go.sh first"

dest=$(toolchain_dir "$variant")
goexp=$(variant_field "$variant" goexp)
series=$(variant_field "$variant" series)
version="$(base_version)-timerlab.$variant"

if toolchain_current "$variant"; then
	step "$variant is up to date ($("$dest/bin/go" version))"
	exit 0
fi
want_stamp=$(toolchain_stamp "$variant")

mkdir -p "$TL_BUILD/toolchains"
exec 9>"$TL_BUILD/toolchains/.$variant.lock"
flock -n 9 || die "another build of $variant is running (lock $TL_BUILD/toolchains/.$variant.lock)"
rm -rf "$TL_BUILD/toolchains/.$variant.tmp."*
tmp=$(mktemp -d "$TL_BUILD/toolchains/.$variant.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

step "[1/4] checking out $(base_version) with series '$series' for $variant"
rmdir "$tmp"
checkout_series "$tmp" "$variant"
rm -rf "$tmp/.git"
{
	echo "$version"
	tail -n +2 "$tmp/VERSION"
} >"$tmp/VERSION.new"
mv "$tmp/VERSION.new" "$tmp/VERSION"

step "[2/4] make.bash for $version${goexp:+ with GOEXPERIMENT=$goexp}"
bootstrap=${GOROOT_BOOTSTRAP:-$(go env GOROOT)}
log="$TL_BUILD/logs/make-$variant.log"
mkdir -p "$(dirname "$log")"
(
	cd "$tmp/src"
	env -u GOROOT -u GOPATH -u GOFLAGS -u GOOS -u GOARCH GOTOOLCHAIN=local \
		GOROOT_BOOTSTRAP="$bootstrap" GOEXPERIMENT="$goexp" bash make.bash
) 2>&1 | tee "$log" | sed -u 's/^/    /' || die "make.bash failed for $variant (log: ${log#"$TL_ROOT"/})"

step "[3/4] checking go version"
got=$("$tmp/bin/go" version) || die "built go does not run"
case $got in
*"$version"*) ;;
*) die "built go reports '$got', not $version" ;;
esac
[ -z "$goexp" ] || case $got in *"X:$goexp"*) ;; *) die "built go reports '$got', without X:$goexp" ;; esac

step "[4/4] installing at ${dest#"$TL_ROOT"/}"
echo "$want_stamp" >"$tmp/.timerlab-stamp"
rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
step "$variant ready: $("$dest/bin/go" version)"
