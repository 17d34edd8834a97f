#!/usr/bin/env bash
# install-deps.sh: make sure the machine has what the pipeline runs: a Go of at least 1.24.6 to
# bootstrap make.bash and build our tools, git, make, flock, diff, sha256sum, valgrind (its
# cachegrind counts instructions for `timerlab instr`, docs/metrics.md), strip and xz (the packs of
# `timerlab bench --build-only`, docs/benchmarks.md) and qemu-user-static (the
# timer tests of other ports, scripts/test-ports.sh). Missing Debian packages are installed with
# apt-get, after apt-get update, when we are root; a missing Go is an error (this project's machines
# ship one; GOROOT_BOOTSTRAP may name another).
set -euo pipefail

need_pkgs=()
for tool in git:git make:make flock:util-linux diff:diffutils sha256sum:coreutils tar:tar valgrind:valgrind strip:binutils xz:xz-utils \
	qemu-arm-static:qemu-user-static qemu-mipsel-static:qemu-user-static qemu-aarch64-static:qemu-user-static \
	qemu-riscv64-static:qemu-user-static; do
	pkg=${tool#*:}
	command -v "${tool%%:*}" >/dev/null || [[ " ${need_pkgs[*]} " == *" $pkg "* ]] || need_pkgs+=("$pkg")
done
if [ ${#need_pkgs[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null ||
		{ echo "install-deps.sh: error: missing ${need_pkgs[*]} and cannot apt-get them" >&2; exit 1; }
	echo "==> install-deps.sh: apt-get install ${need_pkgs[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

command -v go >/dev/null || { echo "install-deps.sh: error: no go on PATH (need go1.24.6 or later)" >&2; exit 1; }
# go1.27's cmd/dist wants at least go1.24.6 to bootstrap.
printf '%s\n' go1.24.6 "$(go env GOVERSION)" | sort -C -V ||
	{ echo "install-deps.sh: error: $(go env GOVERSION) is too old (make.bash needs go1.24.6 or later)" >&2; exit 1; }
echo "==> install-deps.sh: $(go env GOVERSION), $(git --version), $(make --version | head -n 1), $(valgrind --version)," \
	"$(qemu-arm-static --version | head -n 1)"
