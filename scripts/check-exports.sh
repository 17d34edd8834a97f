#!/usr/bin/env bash
# check-exports.sh [--full] [SET...]: export each patch set (default: every set of patches/) with
# export-cl.sh, apply the export with `git am` onto a fresh clone of pristine go1.27.4, and build
# it with the release's own commands, as a reviewer who downloads the CL would: `go build` of the
# packages the set changes, for linux/amd64 (about a minute cold). --full also runs `go vet` on them
# and `go build std`, and vets and builds them for the ports upstream's builders run first
# (linux/386, linux/arm, linux/arm64, darwin/arm64, windows/amd64).
#
# It needs the base and the release's commands (scripts/fetch-go.sh keeps both). It writes only
# temporary directories, removed on exit. The first set that fails to export, apply, vet or build
# stops it, in one line naming the set and the step.
source "$(dirname "$0")/lib.sh"

full=0
if [ "${1:-}" = --full ]; then
	full=1
	shift
fi
base_ready || die "missing base $(base_dir): run scripts/fetch-go.sh first"
base_cmds_ready || die "missing the release's commands $(base_cmds_dir): run scripts/fetch-go.sh"
sets=("$@")
[ ${#sets[@]} -gt 0 ] || mapfile -t sets < <(patch_sets)
[ ${#sets[@]} -gt 0 ] || die "no patch set in ${TL_PATCHES#"$TL_ROOT"/}: nothing to export"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ports=(linux/amd64)
[ $full = 0 ] || ports+=(linux/386 linux/arm linux/arm64 darwin/arm64 windows/amd64)

for set in "${sets[@]}"; do
	step "$set: export, apply onto pristine $(base_version), build"
	"$TL_ROOT/scripts/export-cl.sh" "$set" "$tmp/$set.out" >/dev/null || die "$set: export-cl.sh refused it"
	git clone -q --shared "$(base_dir)" "$tmp/$set.go" || die "cannot clone base $(base_dir)"
	if ! msg=$(git -C "$tmp/$set.go" -c user.name=check -c user.email=check@example.com \
		am -q "$tmp/$set.out"/*.patch 2>&1); then
		die "$set: the export does not apply with git am: $(patch_failure "$msg")"
	fi
	echo "    $(ls "$tmp/$set.out" | wc -l) commits: $(git -C "$tmp/$set.go" log --format=%s base..HEAD | tac | paste -sd ';' | sed 's/;/; /g')"
	cp -a "$(base_cmds_dir)/bin" "$(base_cmds_dir)/pkg" "$tmp/$set.go/"
	# The packages the set changes, as import paths.
	pkgs=$(git -C "$tmp/$set.go" diff --name-only base HEAD -- 'src/*.go' |
		sed -n 's|^src/\(.*\)/[^/]*\.go$|\1|p' | grep -v '/testdata' | LC_ALL=C sort -u | tr '\n' ' ')
	[ -n "$pkgs" ] || die "$set: the export changes no Go package"
	(
		cd "$tmp/$set.go/src"
		export GOROOT=$tmp/$set.go GOTOOLCHAIN=local GOFLAGS= GOWORK=off
		unset GOEXPERIMENT GOPATH GOBIN
		for port in "${ports[@]}"; do
			export GOOS=${port%/*} GOARCH=${port#*/}
			# The packages that have files on this port: one of a single system
			# (internal/runtime/syscall/linux) has none on the others.
			# shellcheck disable=SC2086 # a word list
			here=$(../bin/go list -e -f '{{if .GoFiles}}{{.ImportPath}}{{end}}' $pkgs | tr '\n' ' ')
			[ -n "${here// /}" ] || { echo "    $port: none of the packages builds here"; continue; }
			# shellcheck disable=SC2086
			../bin/go build $here || die "$set: go build $here failed ($port)"
			if [ $full = 1 ]; then
				# shellcheck disable=SC2086
				../bin/go vet $here || die "$set: go vet $here failed ($port)"
				[ "$port" != linux/amd64 ] || ../bin/go build std || die "$set: go build std failed ($port)"
			fi
			echo "    $port: built$([ $full = 0 ] || echo " and vetted") ($here)"
		done
	) || exit 1
	rm -rf "$tmp/$set.go" "$tmp/$set.out"
done
step "${#sets[@]} export(s) apply onto pristine $(base_version) and build: ${sets[*]}"
