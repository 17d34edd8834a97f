#!/usr/bin/env bash
# fetch-go.sh: fetch the pinned upstream Go (base.conf) through the module proxy, verify its h1: sum,
# and leave it under build/base/<version> as a git repository with one commit "upstream <version>",
# onto which apply-patches.sh applies the series. Re-running with the base present does nothing.
#
# The toolchain module zip stores every go.mod as _go.mod (so that the module proxy does not treat the
# tree as nested modules) and ships the release's commands, bin/ and pkg/: the base repository has
# go.mod back and leaves bin/ and pkg/ out, so that a series applies to sources only. The commands are
# kept beside it, under build/base/<version>-cmds with their modes back (the module zip has none),
# for build-toolchain.sh to derive pristine upstream's toolchain from, as it derives a variant's
# from another's, instead of running make.bash. A base fetched before the commands were kept gets
# them on the next run; the base itself is left as it is.
source "$(dirname "$0")/lib.sh"

version=$(base_version)
module=$(conf_get "$TL_BASE_CONF" module) || die "$TL_BASE_CONF names no module"
want=$(host_sum)
dest=$(base_dir)
cmds=$(base_cmds_dir)

if base_ready && base_cmds_ready; then
	step "base $version already present in ${dest#"$TL_ROOT"/}"
	exit 0
fi

modver="v0.0.1-$version.$(host_platform)"
step "downloading $module@$modver through $(go env GOPROXY | cut -d, -f1)"
mkdir -p "$TL_BUILD/base"
tmp=$(mktemp -d "$TL_BUILD/base/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Outside any module, with the local toolchain: go.mod files around the caller must not matter.
json=$(cd "$tmp" && GOTOOLCHAIN=local GOFLAGS=-modcacherw GO111MODULE=on go mod download -json "$module@$modver" 2>&1) ||
	die "cannot download $module@$modver: $(printf '%s' "$json" | grep -m1 '"Error"' || printf '%s' "$json" | tail -n 1)"
json_field() { printf '%s\n' "$json" | sed -n "s/^[[:space:]]*\"$1\": \"\(.*\)\",\{0,1\}$/\1/p" | head -n 1; }
got=$(json_field Sum)
src=$(json_field Dir)
[ "$got" = "$want" ] || die "sum mismatch for $module@$modver: the proxy serves $got, $(basename "$TL_BASE_CONF") pins $want"
[ -d "$src/src" ] || die "downloaded module has no src/ in $src"
[ -f "$src/bin/go" ] && [ -d "$src/pkg/tool" ] || die "downloaded module has no bin/go or pkg/tool/ in $src"

if ! base_cmds_ready; then
	step "keeping the release's commands in ${cmds#"$TL_ROOT"/}"
	mkdir "$tmp/cmds"
	cp -R "$src/bin" "$src/pkg" "$tmp/cmds/"
	chmod -R u+w "$tmp/cmds"
	# As cmd/go does for a toolchain it downloads: the zip keeps no modes, and these are commands.
	find "$tmp/cmds/bin" "$tmp/cmds/pkg/tool" -type f -exec chmod 0755 {} +
	echo "$got" >"$tmp/cmds/.timerlab-base"
	rm -rf "$cmds"
	mv "$tmp/cmds" "$cmds"
fi
if base_ready; then
	step "base $version already present in ${dest#"$TL_ROOT"/}"
	exit 0
fi

step "unpacking into ${dest#"$TL_ROOT"/}"
tree="$tmp/tree"
cp -R "$src" "$tree"
chmod -R u+w "$tree"
rm -rf "$tree/bin" "$tree/pkg"
find "$tree" -name _go.mod -type f | while read -r f; do mv "$f" "$(dirname "$f")/go.mod"; done

step "committing upstream $version"
git -C "$tree" init -q -b main
git -C "$tree" add -A
GIT_AUTHOR_DATE="$GIT_COMMITTER_DATE" git -C "$tree" commit -q -m "upstream $version" \
	-m "From $module@$modver ($got), with _go.mod renamed to go.mod and bin/, pkg/ removed."
git -C "$tree" tag base
echo "$got" >"$tree/.git/timerlab-base"

rm -rf "$dest"
mv "$tree" "$dest"
step "base $version ready at ${dest#"$TL_ROOT"/} ($(git -C "$dest" rev-parse --short HEAD))"
