# scripts/lib.sh: definitions shared by timerlab's scripts. Source it; do not run it.
#
# Every path a script writes or reads can be redirected through the environment, which is how the
# script tests build a small fake world instead of a 250 MB Go tree:
#   TIMERLAB_BUILD      build outputs (default: build/)
#   TIMERLAB_BASE_CONF  the pinned base (default: base.conf)
#   TIMERLAB_VARIANTS   the variant list (default: variants.conf)
#   TIMERLAB_PATCHES    the patch series (default: patches/), and the patch sets in its subdirectories
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

# TL_RUNTIME_TIMER_TESTS is the -run pattern of the runtime's timer tests: its timers, sleeps,
# tickers, netpoller, preemption (signals while timers are armed, fired and deferred, such as
# TestTimerSlackGuardStress), synctest bubbles and GC with timers. test-variant.sh runs them natively
# and test-ports.sh under qemu.
TL_RUNTIME_TIMER_TESTS='Timer|Sleep|Tick|Netpoll|Preempt|Synctest|TimeTimer|PeriodicGC|GCFairness|SpuriousWakeups'

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

# base_cmds_dir holds the release's own commands, bin/ and pkg/ of the toolchain module zip, which the
# base repository leaves out: build-toolchain.sh derives pristine upstream's toolchain from them
# instead of running make.bash.
base_cmds_dir() {
	echo "$TL_BUILD/base/$(base_version)-cmds"
}

# base_cmds_ready succeeds when fetch-go.sh kept the release's commands for the pinned sum.
base_cmds_ready() {
	local marker
	marker="$(base_cmds_dir)/.timerlab-base"
	[ -f "$marker" ] && [ "$(cat "$marker")" = "$(host_sum)" ] && [ -x "$(base_cmds_dir)/bin/go" ]
}

host_platform() {
	echo "$(go env GOHOSTOS)-$(go env GOHOSTARCH)"
}

host_sum() {
	local p
	p=$(host_platform)
	conf_get "$TL_BASE_CONF" "sum.$p" || die "$TL_BASE_CONF pins no sum for $p (add sum.$p=h1:...)"
}

# variant_rows prints variants.conf read and checked, the one reading of it: internal/lab's
# ReadVariants runs it too, so the harness and the scripts agree on every variant. One line per
# variant, in the file's order, with these fields separated by tabs:
#   name  series  goexp  godebug  toolchain  text  line
# series, goexp and godebug as written ("-" for none), toolchain the variant whose toolchain it runs
# with (its own name, or an alias's target), text the description, and line every field after the
# name joined by single spaces (what toolchain_stamp hashes). A line is a comment when its first
# field starts with '#'. It fails with one line naming the file and line of the first row that breaks
# a rule: fewer than four fields; a name listed twice; a series other than all, none, @TARGET or
# the name of a patch set (patch_sets); an
# alias (series @TARGET) of itself, with a goexp of its own (it runs TARGET's toolchain, whose
# GOEXPERIMENT is baked in), of an unknown variant, or of another alias.
variant_rows() {
	local rows
	[ -f "$TL_VARIANTS" ] || die "missing variant list $TL_VARIANTS"
	rows=$(awk -v file="$TL_VARIANTS" -v sets="$(patch_sets | paste -sd ' ')" '
		BEGIN { ns = split(sets, setv, " "); for (i = 1; i <= ns; i++) isset[setv[i]] = 1 }
		function fail(n, msg) { print file ":" n ": " msg; failed = 1; exit 1 }
		NF == 0 || $1 ~ /^#/ { next }
		{
			if (NF < 4) fail(NR, "want name series goexp godebug text, got \"" $0 "\"")
			if ($1 in at) fail(NR, $1 " is listed twice (first at line " at[$1] ")")
			target = $1
			if ($2 ~ /^@/) {
				target = substr($2, 2)
				if (target == $1) fail(NR, "variant '\''" $1 "'\'' is an alias of itself")
				if ($3 != "-") fail(NR, "variant '\''" $1 "'\'': an alias runs its target'\''s toolchain, so its goexp must be -")
			} else if ($2 != "all" && $2 != "none" && !($2 in isset)) {
				fail(NR, "variant '\''" $1 "'\'': series '\''" $2 "'\'' (want all, none, @VARIANT or a patch set: " (sets == "" ? "none" : sets) ")")
			}
			n++; name[n] = $1; at[$1] = NR; tc[$1] = target; series[$1] = $2
			text = ""
			for (i = 5; i <= NF; i++) text = text (i > 5 ? " " : "") $i
			$1 = ""; sub(/^ /, "")
			row[n] = name[n] "\t" series[name[n]] "\t" $2 "\t" $3 "\t" target "\t" text "\t" $0
			known = known (n > 1 ? " " : "") name[n]
		}
		END {
			if (failed) exit 1
			for (i = 1; i <= n; i++) {
				v = name[i]; t = tc[v]
				if (t == v) continue
				if (!(t in at)) fail(at[v], "variant '\''" v "'\'' is an alias of unknown variant '\''" t "'\'' (known: " known ")")
				if (tc[t] != t) fail(at[v], "variant '\''" v "'\'' is an alias of '\''" t "'\'', itself an alias (of " tc[t] "): name a variant with a toolchain of its own")
			}
			for (i = 1; i <= n; i++) print row[i]
		}' "$TL_VARIANTS") || die "$rows"
	printf '%s\n' "$rows"
}

# variant_row NAME prints NAME's row of variant_rows, or fails.
variant_row() {
	variant_rows | awk -F '\t' -v n="$1" '$1 == n { print; found = 1 } END { exit !found }'
}

# variant_line NAME prints the variants.conf fields of NAME (series goexp godebug text), or fails.
variant_line() {
	variant_row "$1" | cut -f 7
}

variant_names() {
	variant_rows | cut -f 1
}

# toolchain_names lists the variants with a toolchain of their own, i.e. all but the aliases (series
# @TARGET), which run with their target's: these are what build-toolchain.sh builds.
toolchain_names() {
	variant_rows | awk -F '\t' '$1 == $5 { print $1 }'
}

# require_variant NAME fails with one line unless variants.conf reads (variant_rows) and lists NAME.
require_variant() {
	local names
	names=$(variant_names) || exit 1
	[ -n "${1:-}" ] || die "no variant given (known: $(paste -sd ' ' <<<"$names"))"
	grep -qxF -- "$1" <<<"$names" || die "unknown variant '$1' (known: $(paste -sd ' ' <<<"$names"))"
}

# variant_target NAME prints the variant whose toolchain NAME runs with: NAME itself, or TARGET
# for an alias row (series @TARGET).
variant_target() {
	variant_row "$1" | cut -f 5
}

variant_field() { # NAME FIELD(series|goexp|godebug|text)
	local name series goexp godebug target text line
	IFS=$'\t' read -r name series goexp godebug target text line < <(variant_row "$1")
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

# patch_sets lists the patch sets: the subdirectories of patches/ that hold patches. A set is a
# series of its own, applied to the base alone, with no overlay: a variant whose series names it
# (variants.conf) takes those patches and none of the shared series'. A set is written so that
# upstream could take it (scripts/export-cl.sh), but for commits whose subject starts with
# "timerlab:", which the lab alone uses.
patch_sets() {
	local d
	[ -d "$TL_PATCHES" ] || return 0
	for d in "$TL_PATCHES"/*/; do
		[ -d "$d" ] && ls "$d"*.patch >/dev/null 2>&1 && basename "$d"
	done
	return 0
}

# set_patches SET lists, sorted, the patches of patch set SET.
set_patches() {
	find "$TL_PATCHES/$1" -maxdepth 1 -name '*.patch' -type f 2>/dev/null | LC_ALL=C sort
}

# series_files [SERIES] lists, sorted, the files of a series: for "all" (the default) the shared
# patches and the overlay, for a patch set its patches.
series_files() {
	case ${1:-all} in
	all)
		find "$TL_PATCHES" -maxdepth 1 -name '*.patch' -type f 2>/dev/null | LC_ALL=C sort
		overlay_files | sed "s|^\.|$TL_OVERLAY|"
		;;
	none) ;;
	*) set_patches "$1" ;;
	esac
}

# files_hash prints one hash of the files named on standard input (paths and contents).
files_hash() {
	local f
	while read -r f; do
		printf '%s\n' "${f#"$TL_ROOT"/}"
		sha256sum <"$f"
	done | sha256sum | cut -d' ' -f1
}

# series_hash prints one hash of everything the lab patches the base with: the shared series, the
# overlay and every patch set. Results record it: a change to any of them is another series.
series_hash() {
	{
		series_files all
		for s in $(patch_sets); do set_patches "$s"; done
	} | files_hash
}

# series_hash_of SERIES prints the hash of one series' files: what a toolchain of it is built from.
# For "all" it is what series_hash printed before there were patch sets, so a toolchain of the shared
# series keeps its stamp when a set changes.
series_hash_of() {
	series_files "$1" | files_hash
}

# toolchain_stamp VARIANT prints the hash of everything VARIANT's toolchain is built from: the
# base's sum, VARIANT's line of variants.conf and, unless its series is none, the series.
# build-toolchain.sh keeps it in the toolchain as .timerlab-stamp; timerlab bench and instr refuse a
# toolchain whose stamp differs, so results never name a series their binaries were not built from.
toolchain_stamp() {
	local series
	{
		host_sum
		variant_line "$1"
		series=$(variant_field "$(variant_target "$1")" series)
		[ "$series" = none ] || series_hash_of "$series"
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

# toolchain_copy NAME DIR copies the toolchain NAME runs with to DIR/go, DIR removed first, and
# removes DIR when the caller exits (its EXIT trap). Go's own tests run from such a copy, as on a
# builder, not from inside this checkout: the toolchain lies under the timerlab module, so tests
# that run go list from GOROOT (go/importer, go/types) would find timerlab's go.mod above it, and a
# shared build cache holds cgo outputs of other copies of the same tree (bent's GOROOTs) whose
# paths vet then follows. DIR is a real directory (through a symbolic link testing's TestChdir
# finds .. elsewhere) at a path of the variant's own, the same on every run, so that a build cache
# of the variant's own holds only paths of that copy when a run resumes.
#
# That path is the machine's, not this checkout's: another run of the variant from another
# checkout (or a test of the scripts) would remove the copy under a running one. So DIR.lock is
# taken first, on file descriptor 8 until the caller exits, and a copy in use is refused in one
# line and left alone. A child process inherits the descriptor and would hold the lock past the
# caller's exit: the callers close it for the tests they start (`8>&- 9>&-`).
toolchain_copy() {
	local dir=$2
	mkdir -p "$(dirname "$dir")" || die "cannot make $(dirname "$dir")"
	exec 8>>"$dir.lock" || die "cannot open the lock $dir.lock"
	flock -n 8 || die "another run uses $dir (lock $dir.lock; fuser $dir.lock names it)"
	# shellcheck disable=SC2064 # the path is expanded now, on purpose
	trap "rm -rf $(printf %q "$dir")" EXIT
	rm -rf "$dir"
	mkdir -p "$dir" && cp -a "$(toolchain_dir "$1")" "$dir/go" || die "cannot copy the toolchain of $1 to $dir"
}

# checkout_series DIR NAME: clone the base into DIR and apply NAME's series there.
checkout_series() {
	local dir=$1 series
	series=$(variant_field "$2" series)
	git clone -q --shared "$(base_dir)" "$dir" || die "cannot clone base $(base_dir)"
	case $series in
	none) ;;
	all) apply_series "$dir" ;;
	*) apply_set "$dir" "$series" ;;
	esac
}

# apply_set DIR SET: git am patch set SET's patches onto DIR, a checkout of the base. A patch that
# does not apply stops here, naming the patch, file and hunk.
apply_set() {
	local dir=$1 p out
	[ -n "$(set_patches "$2")" ] || die "no patch set '$2' in ${TL_PATCHES#"$TL_ROOT"/}"
	for p in $(set_patches "$2"); do
		if ! out=$(git -C "$dir" am -q --keep-cr --whitespace=nowarn "$p" 2>&1); then
			git -C "$dir" am --abort >/dev/null 2>&1 || true
			die "patch $2/$(basename "$p") does not apply: $(patch_failure "$out")"
		fi
	done
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
