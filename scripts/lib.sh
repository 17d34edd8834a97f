# scripts/lib.sh: definitions shared by timerlab's scripts. Source it; do not run it.
#
# Every path a script writes or reads can be redirected through the environment, which is how the
# script tests build a small fake world instead of a 250 MB Go tree:
#   TIMERLAB_BUILD      build outputs (default: build/)
#   TIMERLAB_BASE_CONF  the pinned base (default: base.conf)
#   TIMERLAB_VARIANTS   the variant list (default: variants.conf)
#   TIMERLAB_PATCHES    the patch series (default: patches/)
#   TIMERLAB_OVERLAY    wholly new files, at GOROOT-relative paths (default: src-overlay/)

set -euo pipefail

TL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TL_BUILD=${TIMERLAB_BUILD:-$TL_ROOT/build}
TL_BASE_CONF=${TIMERLAB_BASE_CONF:-$TL_ROOT/base.conf}
TL_VARIANTS=${TIMERLAB_VARIANTS:-$TL_ROOT/variants.conf}
TL_PATCHES=${TIMERLAB_PATCHES:-$TL_ROOT/patches}
TL_OVERLAY=${TIMERLAB_OVERLAY:-$TL_ROOT/src-overlay}

# The identity and date of every commit the scripts make, so that the base commit and the commits
# of the series have the same hashes on every machine.
export GIT_AUTHOR_NAME=timerlab GIT_AUTHOR_EMAIL=timerlab@localhost
export GIT_COMMITTER_NAME=timerlab GIT_COMMITTER_EMAIL=timerlab@localhost
export GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

# die prints one line naming the script and exits non-zero.
die() {
	echo "$(basename "$0"): error: $*" >&2
	exit 1
}

# step prints one progress line.
step() {
	echo "==> $(basename "$0"): $*"
}

# conf_get FILE KEY prints the value of KEY=value in FILE, or fails.
conf_get() {
	local v
	v=$(sed -n "s/^$2=//p" "$1" | head -n 1)
	[ -n "$v" ] || return 1
	printf '%s\n' "$v"
}

base_version() {
	[ -f "$TL_BASE_CONF" ] || die "missing base pin $TL_BASE_CONF"
	conf_get "$TL_BASE_CONF" version || die "$TL_BASE_CONF names no version"
}

# base_dir is the git repository holding the pristine upstream tree, one commit.
base_dir() {
	echo "$TL_BUILD/base/$(base_version)"
}

# base_ready succeeds when fetch-go.sh finished a base for the pinned sum.
base_ready() {
	local marker
	marker="$(base_dir)/.git/timerlab-base"
	[ -f "$marker" ] && [ "$(cat "$marker")" = "$(host_sum)" ]
}

host_platform() {
	echo "$(go env GOHOSTOS)-$(go env GOHOSTARCH)"
}

host_sum() {
	local p
	p=$(host_platform)
	conf_get "$TL_BASE_CONF" "sum.$p" || die "$TL_BASE_CONF pins no sum for $p (add sum.$p=h1:...)"
}

# variant_line NAME prints the variants.conf fields of NAME (series goexp godebug text), or fails.
variant_line() {
	awk -v n="$1" '!/^#/ && NF && $1 == n { $1 = ""; sub(/^ /, ""); print; found = 1 } END { exit !found }' "$TL_VARIANTS"
}

variant_names() {
	awk '!/^#/ && NF { print $1 }' "$TL_VARIANTS"
}

# toolchain_names lists the variants with a toolchain of their own, i.e. all but the aliases (series
# @TARGET), which run with their target's: these are what build-toolchain.sh builds.
toolchain_names() {
	awk '!/^#/ && NF && $2 !~ /^@/ { print $1 }' "$TL_VARIANTS"
}

# require_variant NAME fails with one line unless NAME is listed in variants.conf with series all or
# none, or is an alias (@TARGET) of a variant listed with a toolchain of its own. The same checks as
# internal/lab's ReadVariants.
require_variant() {
	local series target
	[ -n "${1:-}" ] || die "no variant given (known: $(variant_names | paste -sd ' '))"
	variant_line "$1" >/dev/null || die "unknown variant '$1' (known: $(variant_names | paste -sd ' '))"
	series=$(variant_field "$1" series)
	case $series in
	all | none) return 0 ;;
	@*) target=${series#@} ;;
	*) die "variant '$1': series '$series' (want all, none or @VARIANT)" ;;
	esac
	[ "$target" != "$1" ] || die "variant '$1' is an alias of itself"
	[ -z "$(variant_field "$1" goexp)" ] || die "variant '$1': an alias runs its target's toolchain, so its goexp must be -"
	variant_line "$target" >/dev/null ||
		die "variant '$1' is an alias of unknown variant '$target' (known: $(variant_names | paste -sd ' '))"
	[ "$(variant_target "$target")" = "$target" ] ||
		die "variant '$1' is an alias of '$target', itself an alias: name a variant with a toolchain of its own"
}

# variant_target NAME prints the variant whose toolchain NAME runs with: NAME itself, or TARGET
# for an alias row (series @TARGET).
variant_target() {
	local series
	series=$(variant_field "$1" series)
	case $series in
	@*) echo "${series#@}" ;;
	*) echo "$1" ;;
	esac
}

variant_field() { # NAME FIELD(series|goexp|godebug)
	local series goexp godebug text
	read -r series goexp godebug text < <(variant_line "$1")
	case $2 in
	series) echo "$series" ;;
	goexp) [ "$goexp" = - ] || echo "$goexp" ;;
	godebug) [ "$godebug" = - ] || echo "$godebug" ;;
	text) echo "$text" ;;
	esac
}

# toolchain_dir NAME is the GOROOT NAME runs with: build/toolchains/NAME, or its target's for an alias.
toolchain_dir() {
	echo "$TL_BUILD/toolchains/$(variant_target "$1")"
}

# The overlay's own go.mod is not part of the overlay: it fences src-overlay/ off from the timerlab
# module, whose ./... would otherwise take runtime files for packages of ours. It is never copied into
# a tree, and extract-patches.sh keeps it.
TL_OVERLAY_FENCE=go.mod

# overlay_files lists the overlay's files, relative to it (./src/...), without the fence.
overlay_files() {
	[ -d "$TL_OVERLAY" ] || return 0
	(cd "$TL_OVERLAY" && find . -type f ! -path "./$TL_OVERLAY_FENCE" | LC_ALL=C sort)
}

# series_files lists, sorted, the patch series and overlay files a variant with series "all" applies.
series_files() {
	find "$TL_PATCHES" -maxdepth 1 -name '*.patch' -type f 2>/dev/null | LC_ALL=C sort
	overlay_files | sed "s|^\.|$TL_OVERLAY|"
}

# series_hash prints one hash of the patch series and the overlay (paths and contents).
series_hash() {
	local f
	series_files | while read -r f; do
		printf '%s\n' "${f#"$TL_ROOT"/}"
		sha256sum <"$f"
	done | sha256sum | cut -d' ' -f1
}

# toolchain_stamp VARIANT prints the hash of everything VARIANT's toolchain is built from: the
# base's sum, VARIANT's line of variants.conf and, unless its series is none, the series.
# build-toolchain.sh keeps it in the toolchain as .timerlab-stamp; timerlab bench and instr refuse a
# toolchain whose stamp differs, so results never name a series their binaries were not built from.
toolchain_stamp() {
	{
		host_sum
		variant_line "$1"
		[ "$(variant_field "$1" series)" = none ] || series_hash
	} | sha256sum | cut -d' ' -f1
}

# require_toolchain NAME fails with one line unless the toolchain NAME runs with (its target's, for
# an alias) is built.
require_toolchain() {
	local tc
	tc=$(toolchain_dir "$1")
	[ -x "$tc/bin/go" ] || die "no toolchain for $1 at $tc: run scripts/build-toolchain.sh $1"
}

# toolchain_current VARIANT succeeds when VARIANT's toolchain is built and its stamp is
# toolchain_stamp VARIANT: it was built from what VARIANT is built from now.
toolchain_current() {
	local tc
	tc=$(toolchain_dir "$1")
	[ -x "$tc/bin/go" ] && [ "$(cat "$tc/.timerlab-stamp" 2>/dev/null)" = "$(toolchain_stamp "$1")" ]
}

# checkout_series DIR NAME: clone the base into DIR and apply NAME's series there.
checkout_series() {
	local dir=$1 series
	series=$(variant_field "$2" series)
	git clone -q --shared "$(base_dir)" "$dir" || die "cannot clone base $(base_dir)"
	[ "$series" = none ] && return 0
	apply_series "$dir"
}

# apply_series DIR: git am the patches onto DIR, then copy the overlay in and commit it.
# A patch that does not apply stops here, naming the patch, file and hunk.
apply_series() {
	local dir=$1 p out
	for p in $(find "$TL_PATCHES" -maxdepth 1 -name '*.patch' -type f | LC_ALL=C sort); do
		if ! out=$(git -C "$dir" am -q --keep-cr --whitespace=nowarn "$p" 2>&1); then
			git -C "$dir" am --abort >/dev/null 2>&1 || true
			die "patch $(basename "$p") does not apply: $(patch_failure "$out")"
		fi
	done
	if [ -n "$(overlay_files)" ]; then
		overlay_files | while read -r p; do
			[ ! -e "$dir/$p" ] || die "src-overlay/${p#./} exists upstream: change upstream files with a patch"
		done
		overlay_files | tar -C "$TL_OVERLAY" -cf - -T - | tar -C "$dir" -xf -
		git -C "$dir" add -A
		git -C "$dir" commit -q -m "timerlab: src-overlay" --allow-empty
	fi
}

# patch_failure condenses git am's report to the file and hunk that failed.
patch_failure() {
	local first
	first=$(printf '%s\n' "$1" | grep -E '^error: patch failed:|^error: .*: No such file|^error: .*: does not exist|^error: .*already exists' | head -n 1)
	[ -n "$first" ] || first=$(printf '%s\n' "$1" | grep -m1 -E '^(error|fatal):')
	printf '%s\n' "${first#error: }"
}
