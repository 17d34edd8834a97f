#!/usr/bin/env bash
# build-toolchain.sh VARIANT: build the toolchain of one variant at build/toolchains/VARIANT.
# build-toolchain.sh --list: print the variants with a toolchain of their own, one per line.
#
# The toolchain is a full GOROOT made by make.bash from the base, the variant's series
# (patches/ then src-overlay/, or nothing for series "none"), and a VERSION line naming the variant,
# with the variant's GOEXPERIMENT as its default.
#
# Variants of one series differ only in that line and that default, which cmd/dist writes into two
# constants of src/internal/buildcfg/zbootstrap.go. So when another variant of the same series has
# an up-to-date toolchain (the donor: the first such row of variants.conf), the toolchain is derived
# from it instead of made again: a copy of the donor's tree with VERSION and the two constants
# rewritten, whose commands are rebuilt twice, first by the donor's (with the variant's
# GOEXPERIMENT, as make.bash builds them) and then by themselves, so that every binary is built
# and linked by the variant's own toolchain, with cmd/dist's flags, as make.bash's last stage
# does: each has the content ID (`go tool buildid`, after the action ID) of make.bash's.
# A toolchain with no such donor is derived the same way from the release's own commands, which
# the toolchain module zip ships and fetch-go.sh keeps (build/base/<version>-cmds): the base's tree
# with those bin/ and pkg/ is the release as the module proxy serves it, so its commands rebuild the
# variant's as make.bash would. Pristine upstream is that tree. Every series may be derived so: none
# changes src/cmd (the build refuses a tree that does), and the release's commands build the
# variant's core without its GOEXPERIMENT, which they do not know; that core then builds every
# command with it. So no toolchain needs make.bash. TIMERLAB_DERIVE=0 makes every toolchain with
# make.bash.
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

# set_version DIR writes the variant's version as the first line of DIR/VERSION.
set_version() {
	{
		echo "$version"
		tail -n +2 "$1/VERSION"
	} >"$1/VERSION.new"
	mv "$1/VERSION.new" "$1/VERSION"
}

# base_cmds is derive_donor's name for the release's commands that fetch-go.sh keeps.
base_cmds=base_cmds

# derive_donor VARIANT prints the first other variant of VARIANT's series whose toolchain is built and
# current, or else $base_cmds when fetch-go.sh kept the release's commands, or nothing: VARIANT's
# toolchain can then be derived from that donor (see above).
derive_donor() {
	local v
	[ "${TIMERLAB_DERIVE:-1}" != 0 ] || return 0
	if [ "$(variant_field "$1" series)" != none ]; then
		for v in $(toolchain_names); do
			if [ "$v" != "$1" ] && [ "$(variant_field "$v" series)" = "$(variant_field "$1" series)" ] &&
				toolchain_current "$v"; then
				echo "$v"
				return 0
			fi
		done
	fi
	! base_cmds_ready || echo "$base_cmds"
}

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

log="$TL_BUILD/logs/make-$variant.log"
mkdir -p "$(dirname "$log")"
rmdir "$tmp"
donor=$(derive_donor "$variant")
zbootstrap=src/internal/buildcfg/zbootstrap.go
if [ "$donor" = "$base_cmds" ]; then
	donor_name="the release's commands"
	donor_zbootstrap=$(git -C "$(base_dir)" show "HEAD:$zbootstrap" 2>/dev/null || true)
elif [ -n "$donor" ]; then
	donor_name=$donor
	donor_zbootstrap=$(cat "$(toolchain_dir "$donor")/$zbootstrap" 2>/dev/null || true)
fi
if [ -n "$donor" ] && [ "$(grep -c -e '^const version = `' -e '^const defaultGOEXPERIMENT = `' <<<"$donor_zbootstrap")" != 2 ]; then
	step "cannot derive $variant from $donor_name: its $zbootstrap lacks the version or GOEXPERIMENT line"
	donor=
fi

if [ "$donor" = "$base_cmds" ]; then
	step "[1/4] checking out $(base_version) for $variant, with the release's commands (${TL_BUILD#"$TL_ROOT"/}/base/$(basename "$(base_cmds_dir)"))"
	checkout_series "$tmp" "$variant"
	{ git -C "$tmp" diff --quiet "$(git -C "$(base_dir)" rev-parse HEAD)" -- src/cmd &&
		[ -z "$(git -C "$tmp" ls-files --others -- src/cmd)" ]; } ||
		die "$variant's series changes src/cmd: the release's commands cannot build it (TIMERLAB_DERIVE=0 uses make.bash)"
	rm -rf "$tmp/.git"
	cp -a "$(base_cmds_dir)/bin" "$(base_cmds_dir)/pkg" "$tmp/"
elif [ -n "$donor" ]; then
	step "[1/4] copying $donor's toolchain, of the same series, for $variant"
	cp -a "$(toolchain_dir "$donor")" "$tmp"
	rm -f "$tmp/.timerlab-stamp"
fi
if [ -n "$donor" ]; then
	set_version "$tmp"
	sed -i -e "s/^const version = \`.*\`\$/const version = \`$version\`/" \
		-e "s/^const defaultGOEXPERIMENT = \`.*\`\$/const defaultGOEXPERIMENT = \`$goexp\`/" "$tmp/$zbootstrap"

	step "[2/4] rebuilding the commands of $version${goexp:+ with GOEXPERIMENT=$goexp}, twice"
	# The commands make.bash installed: bin/* and the tools in pkg/tool.
	cmds=$(cd "$tmp" && { find bin pkg/tool -type f 2>/dev/null || true; } | sed 's|.*/|cmd/|' | LC_ALL=C sort -u | tr '\n' ' ')
	(
		cd "$tmp/src"
		# cmd/dist's toolenv for a release: static, trimmed commands without DWARF.
		export GOROOT=$tmp GOTOOLCHAIN=local GOEXPERIMENT=$goexp CGO_ENABLED=0 \
			GOFLAGS='-trimpath -ldflags=-w -gcflags=cmd/...=-dwarf=false'
		unset GOPATH GOOS GOARCH GOBIN
		# The donor's commands build the variant's toolchain core, then that core builds every
		# command again: the second build's binaries are what make.bash would have installed.
		# The release's commands know no experiment of ours: they build the core without one.
		[ "$donor" != "$base_cmds" ] || unset GOEXPERIMENT
		"$tmp/bin/go" install cmd/go cmd/compile cmd/link cmd/asm cmd/cgo
		unset GOEXPERIMENT
		# shellcheck disable=SC2086 # a word list
		"$tmp/bin/go" install $cmds
	) 2>&1 | tee "$log" | sed -u 's/^/    /' || die "deriving $variant from $donor_name failed (log: ${log#"$TL_ROOT"/})"
else
	step "[1/4] checking out $(base_version) with series '$series' for $variant"
	checkout_series "$tmp" "$variant"
	rm -rf "$tmp/.git"
	set_version "$tmp"

	step "[2/4] make.bash for $version${goexp:+ with GOEXPERIMENT=$goexp}"
	bootstrap=${GOROOT_BOOTSTRAP:-$(go env GOROOT)}
	(
		cd "$tmp/src"
		env -u GOROOT -u GOPATH -u GOFLAGS -u GOOS -u GOARCH GOTOOLCHAIN=local \
			GOROOT_BOOTSTRAP="$bootstrap" GOEXPERIMENT="$goexp" bash make.bash
	) 2>&1 | tee "$log" | sed -u 's/^/    /' || die "make.bash failed for $variant (log: ${log#"$TL_ROOT"/})"
fi

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
