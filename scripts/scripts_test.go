// Tests of the pipeline scripts. They run the real scripts against a small fake world: a base whose
// make.bash writes a bin/go that only answers "version", its own base.conf, variants.conf, patches and
// overlay, all redirected with the TIMERLAB_* variables that scripts/lib.sh documents. Only
// TestFetchRefusesTamperedSum touches the real pinned base (through the module proxy or its cache).
package scripts_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

const fakeVersion = "go9.9.9"

// fakeMakeBash writes src/internal/buildcfg/zbootstrap.go, as cmd/dist does, with the version and
// the default GOEXPERIMENT it was built with, and bin/go, which prints the version line the way a real
// toolchain does, as of its build, and whose install (of any command) builds bin/go again from the
// tree's zbootstrap.go, with $GOEXPERIMENT if set, else that default: a derived toolchain's go
// reports the variant only if the derivation rebuilt it. make.bash counts its runs in
// ../../make.count (beside the toolchains), install in ../../install.count; make.bash obeys
// FAKE_MAKE=fail (exit 1) and FAKE_MAKE=hang (sleep after telling the test it started), install
// FAKE_INSTALL=fail.
const fakeMakeBash = `#!/usr/bin/env bash
set -e
count="$TIMERLAB_BUILD/make.count"
echo run >>"$count"
case ${FAKE_MAKE:-} in
fail) echo "fake make.bash: compile error" >&2; exit 1 ;;
hang) touch "$TIMERLAB_BUILD/make.started"; sleep 60 ;;
esac
mkdir -p ../bin internal/buildcfg
printf 'package buildcfg\n\nconst defaultGOEXPERIMENT = \x60%s\x60\nconst version = \x60%s\x60\n' \
	"$GOEXPERIMENT" "$(head -n 1 ../VERSION)" >internal/buildcfg/zbootstrap.go
cp fakego.sh ../bin/fakego.sh
FAKE_MAKING=1 bash ../bin/fakego.sh install cmd/go
`

// fakeGo is bin/go's maker, kept in the tree as src/fakego.sh: "install" writes bin/go, a script that
// prints the version baked into it when it was installed. See fakeMakeBash. Its "test" passes every
// package it is given, after a line naming the GODEBUG it runs with.
const fakeGo = `#!/usr/bin/env bash
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
z=$root/src/internal/buildcfg/zbootstrap.go
# inherited WHAT records any of the scripts' lock descriptors (8, 9) a test inherits: it would
# hold their locks.
inherited() {
	for fd in 8 9; do [ ! -e /proc/$$/fd/$fd ] || echo "$1 $fd" >>"$TIMERLAB_BUILD/locks.inherited"; done
}
case $1 in
install)
	[ "${FAKE_INSTALL:-}" != fail ] || { echo "fake go install: compile error" >&2; exit 1; }
	[ -n "${FAKE_MAKING:-}" ] || echo run >>"$TIMERLAB_BUILD/install.count"
	v=$(sed -n 's/^const version = .\(.*\).$/\1/p' "$z")
	x=${GOEXPERIMENT-$(sed -n 's/^const defaultGOEXPERIMENT = .\(.*\).$/\1/p' "$z")}
	[ -z "$x" ] || x=" X:$x" # as cmd/link does for a version with a "-"
	printf '#!/bin/sh\ncase $1 in version) echo "go version %s%s linux/amd64" ;; *) exec bash "$(dirname "$0")/fakego.sh" "$@" ;; esac\n' "$v" "$x" >"$root/bin/go.new"
	chmod +x "$root/bin/go.new"
	mv "$root/bin/go.new" "$root/bin/go"
	;;
list)
	# go list -e -f FORMAT PKGS, as check-exports.sh asks which packages have files on a port:
	# each package, less one under a directory named for another system than $GOOS.
	shift
	for a in "$@"; do
		case $a in -* | '{{'*) continue ;; esac
		case /$a/ in */linux/* | */darwin/* | */windows/*)
			case /$a/ in */"${GOOS:-linux}"/*) ;; *) continue ;; esac ;;
		esac
		echo "$a"
	done
	;;
vet | build)
	# Records each build's port and experiments; fails one whose "GOOS/GOARCH:GOEXPERIMENT" is
	# $FAKE_CROSS_FAIL. cross-pkgs.log records the packages too.
	echo "$1 ${GOOS-}/${GOARCH-}:${GOEXPERIMENT-}" >>"$TIMERLAB_BUILD/cross.log"
	echo "$*" "${GOOS-}/${GOARCH-}" >>"$TIMERLAB_BUILD/cross-pkgs.log"
	[ "${GOOS-}/${GOARCH-}:${GOEXPERIMENT-}" != "${FAKE_CROSS_FAIL:-}" ] || { echo "fake go $1: undefined: slackArm" >&2; exit 1; }
	;;
env)
	[ "$2" = GOEXPERIMENT ] || { echo "fake go: env $2 unsupported" >&2; exit 2; }
	echo "${GOEXPERIMENT-$(sed -n 's/^const defaultGOEXPERIMENT = .\(.*\).$/\1/p' "$z")}"
	;;
test)
	# As go test prints each package that passed; the packages are the words that are not flags
	# (nor -run's pattern). A build for another port or with other experiments says so.
	shift
	case " $* " in *" -c "*)
		# go test -c -o DIR/ PKGS: records the build in ports.log (and fails it for GOARCH
		# $FAKE_PORT_BUILD_FAIL), and writes DIR/<last element>.test for each package: a test
		# binary that records its run (GOMAXPROCS, QEMU_CPU, GODEBUG, the go command it finds, its
		# directory, its flags) and passes, but the package $FAKE_PORT_FAIL's. Its tests are
		# $FAKE_PORT_TESTS, which -test.list prints and a run passes, but those of
		# $FAKE_PORT_SKIPPED, which it skips.
		out=
		pkgs=
		while [ $# -gt 0 ]; do
			case $1 in -o) out=$2; shift ;; -*) ;; *) pkgs="$pkgs $1" ;; esac
			shift
		done
		echo "build ${GOOS-}/${GOARCH-}${GOARM:+ GOARM=$GOARM} CGO_ENABLED=${CGO_ENABLED-}$pkgs" >>"$TIMERLAB_BUILD/ports.log"
		[ "${GOARCH-}" != "${FAKE_PORT_BUILD_FAIL:-}" ] || { echo "fake go test -c: compile error" >&2; exit 1; }
		for p in $pkgs; do
			{
				printf '#!/bin/sh\n[ "$1" != -test.list ] || { printf "%%s\\n" %s | grep -E -- "$2"; exit 0; }\n' "${FAKE_PORT_TESTS:-}"
				printf 'echo "run %s P=${GOMAXPROCS:-} cpu=${QEMU_CPU:-} godebug=${GODEBUG:-} go=$(command -v go || echo none) dir=$(pwd) $*" >>%s\n' \
					"$p" "$TIMERLAB_BUILD/ports.log"
				printf '[ %s != "%s" ] || { echo "--- FAIL: TestX"; exit 1; }\n' "$p" "${FAKE_PORT_FAIL:-}"
				for x in ${FAKE_PORT_TESTS:-}; do
					case " ${FAKE_PORT_SKIPPED:-} " in
					*" $x "*) echo "echo '--- SKIP: $x (0.00s)'" ;;
					*) echo "echo '--- PASS: $x (0.00s)'" ;;
					esac
				done
				echo "echo PASS"
			} >"$out${p##*/}.test"
			chmod +x "$out${p##*/}.test"
		done
		exit 0 ;;
	esac
	echo "$GOROOT ${GOCACHE-} $(cd "$GOROOT" && pwd -P)" >"$TIMERLAB_BUILD/test.env"
	inherited "go test"
	echo "fake go test: GODEBUG=${GODEBUG-}"
	[ -z "${GOARCH-}${GOEXPERIMENT-}" ] || echo "fake go test: GOARCH=${GOARCH-} GOEXPERIMENT=${GOEXPERIMENT-} $*"
	verbose=
	case " $* " in *" -v "*) verbose=1 ;; esac
	for a in "$@"; do
		case $a in -overlay=*)
			# The overlay's replacement files, and the verify constant each sets.
			for f in $(sed 's/"[^"]*":"\([^"]*\)"/\n\1\n/g' "${a#-overlay=}" | grep '^/'); do
				echo "fake go test: overlay $(basename "$f"): $(grep -o 'verifyWheel = [a-z]*' "$f")"
			done ;;
		esac
	done
	while [ $# -gt 0 ]; do
		case $1 in
		-run)
			# With -v, the test the pattern names passes, unless $FAKE_TEST_NOTESTS: none matches.
			[ -z "$verbose" ] || [ -n "${FAKE_TEST_NOTESTS:-}" ] || echo "--- PASS: $(echo "$2" | tr -d '^$') (0.00s)"
			shift ;;
		-*) ;;
		*) printf 'ok  \t%s\t0.001s\n' "$1" ;;
		esac
		shift
	done
	;;
tool)
	# go tool dist test: -list prints $FAKE_DIST_TESTS; -run '^NAME$' passes, unless NAME is in
	# $FAKE_DIST_FAIL (fails) or $FAKE_DIST_FLAKY (fails the first time), and counts the run.
	[ "$2 $3" = "dist test" ] || { echo "fake go: tool $2 unsupported" >&2; exit 2; }
	case $4 in
	-list) printf '%s\n' ${FAKE_DIST_TESTS:-} ;;
	-run)
		name=${5#^}
		name=${name%$}
		name=${name//\\/}
		echo "$name" >>"$TIMERLAB_BUILD/dist.count"
		inherited "dist test"
		echo "$GOROOT $GOCACHE $(cd "$GOROOT" && pwd -P)" >"$TIMERLAB_BUILD/dist.env"
		case " ${FAKE_DIST_FAIL:-} " in *" $name "*) echo "--- FAIL: $name"; exit 1 ;; esac
		case " ${FAKE_DIST_FLAKY:-} " in *" $name "*)
			if ! grep -qx "$name" "$TIMERLAB_BUILD/dist.flaked" 2>/dev/null; then
				echo "$name" >>"$TIMERLAB_BUILD/dist.flaked"
				echo "--- FAIL: $name (once)"
				exit 1
			fi ;;
		esac
		echo "ok $name" ;;
	*) echo "fake go: dist test $4 unsupported" >&2; exit 2 ;;
	esac
	;;
*) echo "fake go: $1 unsupported" >&2; exit 2 ;;
esac
`

const fakeTimeGo = `package runtime

// timers are kept in a heap.
func addtimer() {}
func deltimer() {}
`

// world is one fake project: its directory and the environment that points the scripts at it.
type world struct {
	dir string
	env []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	dir := t.TempDir()
	w := &world{dir: dir}
	w.env = append(os.Environ(),
		"TIMERLAB_BUILD="+filepath.Join(dir, "build"),
		"TIMERLAB_BASE_CONF="+filepath.Join(dir, "base.conf"),
		"TIMERLAB_VARIANTS="+filepath.Join(dir, "variants.conf"),
		"TIMERLAB_PATCHES="+filepath.Join(dir, "patches"),
		"TIMERLAB_OVERLAY="+filepath.Join(dir, "src-overlay"),
		"FAKE_MAKE=",
		// The scripts' copies of toolchains (toolchain_copy) go under TMPDIR at fixed paths: a
		// test's must not be a real run's.
		"TMPDIR="+filepath.Join(dir, "tmp"),
	)
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	platform := runtime.GOOS + "-" + runtime.GOARCH
	w.write(t, "base.conf", "version="+fakeVersion+"\nmodule=example.com/fake\nsum."+platform+"=h1:fake\n")
	w.write(t, "variants.conf", "# name series goexp godebug text\n"+
		"upstream none - - pristine\n"+
		"heap all - - the baseline\n"+
		"wheel all timerwheel - a wheel\n")
	w.makeBase(t)
	w.addPatch(t, "timers are kept in a heap.", "timers are kept in a heap (timerlab).")
	w.write(t, "src-overlay/src/runtime/timelab.go", "package runtime\n")
	w.write(t, "src-overlay/go.mod", "module fence\n")
	return w
}

func (w *world) path(rel string) string { return filepath.Join(w.dir, rel) }

func (w *world) write(t *testing.T, rel, content string) {
	t.Helper()
	p := w.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

func (w *world) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(w.path(rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (w *world) exists(rel string) bool {
	_, err := os.Stat(w.path(rel))
	return err == nil
}

// makeBase lays out what fetch-go.sh would have made: a git repository, one commit, tag base, and
// the marker naming the pinned sum.
func (w *world) makeBase(t *testing.T) {
	t.Helper()
	base := "build/base/" + fakeVersion
	w.write(t, base+"/VERSION", fakeVersion+"\ntime 2026-01-01T00:00:00Z\n")
	w.write(t, base+"/src/make.bash", fakeMakeBash)
	w.write(t, base+"/src/fakego.sh", fakeGo)
	w.write(t, base+"/src/runtime/time.go", fakeTimeGo)
	w.write(t, base+"/src/runtime/metrics/doc.go", "package metrics\n")
	w.write(t, base+"/src/time/sleep.go", "package time\n")
	// A release's tree holds what cmd/dist generated for it, as the toolchain module zip does.
	w.write(t, base+"/src/internal/buildcfg/zbootstrap.go", fakeZbootstrap)
	w.git(t, base, "init", "-q", "-b", "main")
	w.git(t, base, "add", "-A")
	w.git(t, base, "commit", "-q", "-m", "upstream "+fakeVersion)
	w.git(t, base, "tag", "base")
	w.write(t, base+"/.git/timerlab-base", "h1:fake\n")
}

// fakeZbootstrap is the base's src/internal/buildcfg/zbootstrap.go: the release's version, no
// default GOEXPERIMENT.
const fakeZbootstrap = "package buildcfg\n\nconst defaultGOEXPERIMENT = \x60\x60\nconst version = \x60" + fakeVersion + "\x60\n"

// makeBaseCmds lays out the release's commands as fetch-go.sh keeps them beside the base: a bin/go
// of the base's version, as the fake go's install writes it, the tools in pkg/tool, and the marker
// naming the pinned sum.
func (w *world) makeBaseCmds(t *testing.T) {
	t.Helper()
	cmds := "build/base/" + fakeVersion + "-cmds"
	w.write(t, cmds+"/bin/fakego.sh", fakeGo)
	// The release's go knows no experiment of ours, as the real one does not.
	w.write(t, cmds+"/bin/go", "#!/bin/sh\ncase $1 in version) echo \"go version "+fakeVersion+" linux/amd64\" ;; "+
		"install) [ -z \"${GOEXPERIMENT:-}\" ] || { echo \"go: unknown GOEXPERIMENT $GOEXPERIMENT\" >&2; exit 2; }; "+
		"exec bash \"$(dirname \"$0\")/fakego.sh\" \"$@\" ;; "+
		"*) exec bash \"$(dirname \"$0\")/fakego.sh\" \"$@\" ;; esac\n")
	w.write(t, cmds+"/pkg/tool/linux_amd64/compile", "")
	w.write(t, cmds+"/.timerlab-base", "h1:fake\n")
}

// addPatch makes a patch in patches/ the way a developer does: apply-patches, edit, commit, extract.
func (w *world) addPatch(t *testing.T, old, new string) {
	t.Helper()
	w.mustRun(t, "apply-patches.sh", "--force", w.path("build/work/go"))
	timeGo := "build/work/go/src/runtime/time.go"
	w.write(t, timeGo, strings.Replace(w.read(t, timeGo), old, new, 1))
	w.git(t, "build/work/go", "commit", "-q", "-a", "-m", "runtime: say who keeps the timers")
	w.mustRun(t, "extract-patches.sh", w.path("build/work/go"))
}

func (w *world) git(t *testing.T, rel string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", w.path(rel)}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// result is what one script run printed and how it ended.
type result struct {
	stdout, stderr string
	code           int
}

func (w *world) run(t *testing.T, script string, args ...string) result {
	t.Helper()
	return w.runEnv(t, nil, script, args...)
}

func (w *world) runEnv(t *testing.T, extra []string, script string, args ...string) result {
	t.Helper()
	cmd := exec.Command(filepath.Join(scriptsDir(t), script), args...)
	cmd.Env = append(append([]string{}, w.env...), extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", script, err)
	}
	return result{stdout.String(), stderr.String(), code}
}

func (w *world) mustRun(t *testing.T, script string, args ...string) result {
	t.Helper()
	return w.mustRunEnv(t, nil, script, args...)
}

func (w *world) mustRunEnv(t *testing.T, extra []string, script string, args ...string) result {
	t.Helper()
	r := w.runEnv(t, extra, script, args...)
	if r.code != 0 {
		t.Fatalf("%s %v: exit %d\nstdout:\n%s\nstderr:\n%s", script, args, r.code, r.stdout, r.stderr)
	}
	return r
}

func scriptsDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// wantOneLineError checks that a run failed with exactly one line on stderr containing want.
func wantOneLineError(t *testing.T, r result, want string) {
	t.Helper()
	if r.code == 0 {
		t.Fatalf("exit 0, want failure; stdout:\n%s", r.stdout)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], want) {
		t.Fatalf("stderr = %q, want one line containing %q", r.stderr, want)
	}
}

func (w *world) makeCount(t *testing.T) int {
	t.Helper()
	return w.count(t, "make.count")
}

// count returns the number of runs a fake command recorded in build/NAME.
func (w *world) count(t *testing.T, name string) int {
	t.Helper()
	b, err := os.ReadFile(w.path("build/" + name))
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "run\n")
}

// leftovers lists what a build left in build/toolchains besides finished toolchains and locks.
func (w *world) leftovers(t *testing.T) []string {
	t.Helper()
	ents, _ := os.ReadDir(w.path("build/toolchains"))
	var left []string
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp.") {
			left = append(left, e.Name())
		}
	}
	return left
}

func TestListVariants(t *testing.T) {
	w := newWorld(t)
	r := w.mustRun(t, "build-toolchain.sh", "--list")
	if r.stdout != "upstream\nheap\nwheel\n" {
		t.Fatalf("--list printed %q", r.stdout)
	}
}

func TestBuildNamesVariantInVersion(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "build-toolchain.sh", "wheel")
	out, err := exec.Command(w.path("build/toolchains/wheel/bin/go"), "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := fakeVersion + "-timerlab.wheel X:timerwheel"; !strings.Contains(string(out), want) {
		t.Fatalf("go version = %q, want it to contain %q", out, want)
	}
	if got := w.read(t, "build/toolchains/wheel/src/runtime/time.go"); !strings.Contains(got, "(timerlab)") {
		t.Fatalf("patch not applied to the built tree:\n%s", got)
	}
	if !w.exists("build/toolchains/wheel/src/runtime/timelab.go") {
		t.Fatal("overlay file missing from the built tree")
	}
	if w.exists("build/toolchains/wheel/go.mod") {
		t.Fatal("the overlay's fence go.mod was copied into the tree")
	}
}

// TestDeriveFromDonor checks that a variant of the series of an up-to-date toolchain is derived from
// it, not made: the donor's tree copied, its version and default GOEXPERIMENT rewritten, its
// commands rebuilt twice; that the donor is left as it was; and that the derived toolchain is
// current for the next build.
func TestDeriveFromDonor(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "build-toolchain.sh", "heap")
	r := w.mustRun(t, "build-toolchain.sh", "wheel")
	if !strings.Contains(r.stdout, "copying heap's toolchain") {
		t.Fatalf("wheel was not derived from heap:\n%s", r.stdout)
	}
	if n := w.makeCount(t); n != 1 {
		t.Fatalf("make.bash ran %d times, want once, for heap", n)
	}
	if n := w.count(t, "install.count"); n != 2 {
		t.Fatalf("the derived toolchain's commands were installed %d times, want 2", n)
	}
	for v, want := range map[string]string{"heap": "-timerlab.heap linux", "wheel": "-timerlab.wheel X:timerwheel linux"} {
		out, err := exec.Command(w.path("build/toolchains/"+v+"/bin/go"), "version").Output()
		if err != nil || !strings.Contains(string(out), fakeVersion+want) {
			t.Errorf("%s: go version = %q, %v; want %q", v, out, err, fakeVersion+want)
		}
	}
	if z := w.read(t, "build/toolchains/wheel/src/internal/buildcfg/zbootstrap.go"); !strings.Contains(z, "defaultGOEXPERIMENT = \x60timerwheel\x60") {
		t.Errorf("the derived zbootstrap.go keeps the donor's default GOEXPERIMENT:\n%s", z)
	}
	if w.exists("build/toolchains/wheel/.git") || len(w.leftovers(t)) > 0 {
		t.Errorf("derivation left %v", w.leftovers(t))
	}
	if r := w.mustRun(t, "build-toolchain.sh", "wheel"); !strings.Contains(r.stdout, "up to date") {
		t.Errorf("a derived toolchain is not current:\n%s", r.stdout)
	}
}

// TestDeriveNeedsCurrentDonor checks that a toolchain is made with make.bash when no other variant of
// its series has a current toolchain (the donor's series changed since), when TIMERLAB_DERIVE=0, and
// for upstream, whose series is none.
func TestDeriveNeedsCurrentDonor(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "build-toolchain.sh", "heap")
	w.write(t, "src-overlay/src/runtime/timelab.go", "package runtime\n\n// changed\n")
	w.mustRun(t, "build-toolchain.sh", "wheel")
	if n := w.makeCount(t); n != 2 {
		t.Fatalf("make.bash ran %d times, want 2: wheel may not derive from a stale heap", n)
	}
	w.mustRun(t, "build-toolchain.sh", "heap")
	if n := w.makeCount(t); n != 2 {
		t.Fatalf("make.bash ran %d times: heap did not derive from the current wheel", n)
	}
	w.mustRun(t, "build-toolchain.sh", "upstream")
	if n := w.makeCount(t); n != 3 {
		t.Fatalf("make.bash ran %d times, want 3: upstream (series none) is made without the release's commands", n)
	}
	w.write(t, "src-overlay/src/runtime/timelab.go", "package runtime\n\n// changed again\n")
	w.mustRun(t, "build-toolchain.sh", "heap")
	w.runEnv(t, []string{"TIMERLAB_DERIVE=0"}, "build-toolchain.sh", "wheel")
	if n := w.makeCount(t); n != 5 {
		t.Fatalf("make.bash ran %d times, want 5: TIMERLAB_DERIVE=0 makes wheel", n)
	}
}

// mustDeriveFromReleaseCmds builds variant, the first toolchain of the world, and checks that it
// was derived from the release's commands: no make.bash, the commands installed twice, and a go
// that names the variant, with exp (" X:EXPERIMENTS", or "") after its version.
func (w *world) mustDeriveFromReleaseCmds(t *testing.T, variant, exp string) {
	t.Helper()
	r := w.mustRun(t, "build-toolchain.sh", variant)
	if !strings.Contains(r.stdout, "for "+variant+", with the release's commands") {
		t.Fatalf("%s was not derived from the release's commands:\n%s", variant, r.stdout)
	}
	if n, i := w.makeCount(t), w.count(t, "install.count"); n != 0 || i != 2 {
		t.Fatalf("make.bash ran %d times and the commands were installed %d times, want 0 and 2", n, i)
	}
	out, err := exec.Command(w.path("build/toolchains/"+variant+"/bin/go"), "version").Output()
	if want := "go version " + fakeVersion + "-timerlab." + variant + exp + " linux/amd64"; err != nil || strings.TrimSpace(string(out)) != want {
		t.Fatalf("%s's go version = %q, %v; want %q", variant, out, err, want)
	}
}

// TestDeriveUpstreamFromReleaseCmds checks that pristine upstream is derived from the release's
// commands that fetch-go.sh keeps: the base's tree, unpatched, with those commands rebuilt twice and
// its version rewritten, and no make.bash; that the release's commands are left as they were; and
// that without them (or with those of another sum, or with TIMERLAB_DERIVE=0) upstream is made.
func TestDeriveUpstreamFromReleaseCmds(t *testing.T) {
	w := newWorld(t)
	w.makeBaseCmds(t)
	w.mustDeriveFromReleaseCmds(t, "upstream", "")
	if got := w.read(t, "build/toolchains/upstream/src/runtime/time.go"); got != fakeTimeGo {
		t.Errorf("upstream's tree was patched:\n%s", got)
	}
	if w.exists("build/toolchains/upstream/src/runtime/timelab.go") || w.exists("build/toolchains/upstream/.git") {
		t.Errorf("upstream's tree got the overlay or a .git")
	}
	if !w.exists("build/toolchains/upstream/pkg/tool/linux_amd64/compile") {
		t.Errorf("upstream's toolchain lacks the release's pkg/tool")
	}
	out, err := exec.Command(w.path("build/base/"+fakeVersion+"-cmds/bin/go"), "version").Output()
	if want := "go version " + fakeVersion + " linux/amd64"; err != nil || strings.TrimSpace(string(out)) != want {
		t.Errorf("the release's commands changed: go version = %q, %v", out, err)
	}
	if r := w.mustRun(t, "build-toolchain.sh", "upstream"); !strings.Contains(r.stdout, "up to date") {
		t.Errorf("a derived upstream is not current:\n%s", r.stdout)
	}

	// Made: with TIMERLAB_DERIVE=0, and with the commands of another sum.
	os.RemoveAll(w.path("build/toolchains/upstream"))
	w.mustRun(t, "build-toolchain.sh", "upstream")
	r := w.runEnv(t, []string{"TIMERLAB_DERIVE=0"}, "build-toolchain.sh", "upstream")
	if r.code != 0 || !strings.Contains(r.stdout, "up to date") {
		t.Fatalf("a derived upstream is not current under TIMERLAB_DERIVE=0:\n%s%s", r.stdout, r.stderr)
	}
	os.RemoveAll(w.path("build/toolchains/upstream"))
	w.mustRunEnv(t, []string{"TIMERLAB_DERIVE=0"}, "build-toolchain.sh", "upstream")
	if n := w.makeCount(t); n != 1 {
		t.Fatalf("make.bash ran %d times, want once: TIMERLAB_DERIVE=0 makes upstream", n)
	}
	os.RemoveAll(w.path("build/toolchains/upstream"))
	w.write(t, "build/base/"+fakeVersion+"-cmds/.timerlab-base", "h1:other\n")
	w.mustRun(t, "build-toolchain.sh", "upstream")
	if n := w.makeCount(t); n != 2 {
		t.Fatalf("make.bash ran %d times, want 2: the commands of another sum are not the base's", n)
	}
}

// TestDeriveSeriesFromReleaseCmds checks that a variant of a patched series with no current donor is
// derived from the release's commands, with no make.bash, and builds its core without its
// GOEXPERIMENT (which the release's go refuses); and that a series that changes src/cmd is refused in
// one line, leaving no toolchain.
func TestDeriveSeriesFromReleaseCmds(t *testing.T) {
	w := newWorld(t)
	w.makeBaseCmds(t)
	w.mustDeriveFromReleaseCmds(t, "wheel", " X:timerwheel")
	if !w.exists("build/toolchains/wheel/src/runtime/timelab.go") {
		t.Errorf("wheel's tree lacks its series' overlay")
	}

	w.write(t, "src-overlay/src/cmd/compile/timelab.go", "package compile\n")
	r := w.run(t, "build-toolchain.sh", "heap")
	if r.code == 0 || !strings.Contains(r.stderr, "changes src/cmd") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Fatalf("a series that changes src/cmd: exit %d, stderr %q; want a failure in one line", r.code, r.stderr)
	}
	if w.exists("build/toolchains/heap") {
		t.Errorf("a refused derivation left a toolchain")
	}
}

// TestFailedDeriveKeepsNothing checks that a derivation whose rebuild fails says so in one line and
// leaves neither a toolchain nor a temporary tree, and the donor as it was.
func TestFailedDeriveKeepsNothing(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "build-toolchain.sh", "heap")
	r := w.runEnv(t, []string{"FAKE_INSTALL=fail"}, "build-toolchain.sh", "wheel")
	wantOneLineError(t, r, "deriving wheel from heap failed")
	if w.exists("build/toolchains/wheel") || len(w.leftovers(t)) > 0 {
		t.Fatalf("failed derivation left %v", w.leftovers(t))
	}
	if out, err := exec.Command(w.path("build/toolchains/heap/bin/go"), "version").Output(); err != nil || !strings.Contains(string(out), "timerlab.heap linux") {
		t.Fatalf("the donor changed: %q, %v", out, err)
	}
}

func TestUpstreamVariantGetsNoSeries(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "build-toolchain.sh", "upstream")
	if got := w.read(t, "build/toolchains/upstream/src/runtime/time.go"); got != fakeTimeGo {
		t.Fatalf("upstream tree was patched:\n%s", got)
	}
	if w.exists("build/toolchains/upstream/src/runtime/timelab.go") {
		t.Fatal("upstream tree got the overlay")
	}
}

func TestBuildIsIdempotentUntilSeriesChanges(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "build-toolchain.sh", "heap")
	r := w.mustRun(t, "build-toolchain.sh", "heap")
	if n := w.makeCount(t); n != 1 {
		t.Fatalf("make.bash ran %d times for two builds of an unchanged series", n)
	}
	if !strings.Contains(r.stdout, "up to date") {
		t.Fatalf("second build did not say it was up to date:\n%s", r.stdout)
	}
	w.write(t, "src-overlay/src/runtime/timelab.go", "package runtime\n\n// changed\n")
	w.mustRun(t, "build-toolchain.sh", "heap")
	if n := w.makeCount(t); n != 2 {
		t.Fatalf("make.bash ran %d times, want a rebuild after the overlay changed", n)
	}
}

func TestUnknownVariant(t *testing.T) {
	w := newWorld(t)
	r := w.run(t, "build-toolchain.sh", "nosuchvariant")
	wantOneLineError(t, r, "unknown variant 'nosuchvariant'")
	r = w.run(t, "test-variant.sh", "nosuchvariant", "--quick")
	wantOneLineError(t, r, "unknown variant 'nosuchvariant'")
}

func TestMissingBase(t *testing.T) {
	w := newWorld(t)
	if err := os.RemoveAll(w.path("build/base")); err != nil {
		t.Fatal(err)
	}
	r := w.run(t, "build-toolchain.sh", "heap")
	wantOneLineError(t, r, "missing base")
	if w.exists("build/toolchains/heap") {
		t.Fatal("a toolchain appeared without a base")
	}
}

func TestMissingToolchainForTests(t *testing.T) {
	w := newWorld(t)
	r := w.run(t, "test-variant.sh", "heap", "--quick")
	wantOneLineError(t, r, "no toolchain for heap")
}

func TestDriftedPatchNamesFileAndHunk(t *testing.T) {
	w := newWorld(t)
	// The base moves under the series: the line the patch changes is no longer there.
	base := "build/base/" + fakeVersion
	w.write(t, base+"/src/runtime/time.go", strings.Replace(fakeTimeGo, "timers are kept", "timers live", 1))
	w.git(t, base, "commit", "-q", "-a", "-m", "drift")
	r := w.run(t, "build-toolchain.sh", "heap")
	wantOneLineError(t, r, "does not apply: patch failed: src/runtime/time.go:")
	if !strings.Contains(r.stderr, "0001-runtime-say-who-keeps-the-timers.patch") {
		t.Fatalf("error does not name the patch: %q", r.stderr)
	}
	if w.exists("build/toolchains/heap") || len(w.leftovers(t)) > 0 {
		t.Fatalf("failed build left %v", w.leftovers(t))
	}
}

func TestOverlayMustBeNewFiles(t *testing.T) {
	w := newWorld(t)
	w.write(t, "src-overlay/src/runtime/time.go", "package runtime\n")
	r := w.run(t, "build-toolchain.sh", "heap")
	wantOneLineError(t, r, "src-overlay/src/runtime/time.go exists upstream")
}

func TestFailedRebuildKeepsPreviousToolchain(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "build-toolchain.sh", "heap")
	stamp := w.read(t, "build/toolchains/heap/.timerlab-stamp")
	w.write(t, "src-overlay/src/runtime/timelab.go", "package runtime\n\n// changed\n")
	r := w.runEnv(t, []string{"FAKE_MAKE=fail"}, "build-toolchain.sh", "heap")
	wantOneLineError(t, r, "make.bash failed for heap")
	if left := w.leftovers(t); len(left) > 0 {
		t.Fatalf("failed build left %v", left)
	}
	// The finished toolchain of the previous series stays whole, and its stamp still names that
	// series, so the next build does not take it for current.
	if got := w.read(t, "build/toolchains/heap/.timerlab-stamp"); got != stamp {
		t.Fatalf("stamp changed by a failed build: %q -> %q", stamp, got)
	}
	if w.exists("build/toolchains/heap/src/runtime/timelab.go") &&
		strings.Contains(w.read(t, "build/toolchains/heap/src/runtime/timelab.go"), "changed") {
		t.Fatal("failed build's tree replaced the previous toolchain")
	}
	w.mustRun(t, "build-toolchain.sh", "heap")
	if n := w.makeCount(t); n != 3 {
		t.Fatalf("make.bash ran %d times, want 3 (build, failed rebuild, rebuild)", n)
	}
}

func TestInterruptedBuildLeavesNoToolchain(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			w := newWorld(t)
			cmd := exec.Command(filepath.Join(scriptsDir(t), "build-toolchain.sh"), "heap")
			cmd.Env = append(append([]string{}, w.env...), "FAKE_MAKE=hang")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, w.path("build/make.started"))
			if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err == nil {
				t.Fatal("interrupted build exited 0")
			}
			if w.exists("build/toolchains/heap") {
				t.Fatal("interrupted build left build/toolchains/heap")
			}
			if sig == syscall.SIGINT && len(w.leftovers(t)) > 0 {
				t.Fatalf("interrupted build did not clean up: %v", w.leftovers(t))
			}
			// Whatever a killed build left, the next build must finish and remove it.
			w.mustRun(t, "build-toolchain.sh", "heap")
			if left := w.leftovers(t); len(left) > 0 {
				t.Fatalf("next build kept %v", left)
			}
		})
	}
}

func waitFor(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
}

func TestSeriesRoundTrip(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "check-series.sh")

	// A hand edit of a committed patch is not what extract gives: the round trip must say so.
	patches, err := filepath.Glob(w.path("patches/*.patch"))
	if err != nil || len(patches) != 1 {
		t.Fatalf("patches: %v %v", patches, err)
	}
	body, err := os.ReadFile(patches[0])
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(body), "Subject: [PATCH] runtime: say", "Subject: [PATCH] runtime: tell", 1)
	if err := os.WriteFile(patches[0], []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	r := w.run(t, "check-series.sh")
	if r.code == 0 || !strings.Contains(r.stderr, "patches/ differs") {
		t.Fatalf("hand-edited patch passed the round trip: exit %d\n%s", r.code, r.stderr)
	}
}

// TestExtractNormalizesAuthors checks that every patch extract writes has the scripts' author and
// date, whoever made the commit and whenever (a folded From: header included), and that the series
// still round-trips.
func TestExtractNormalizesAuthors(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "apply-patches.sh", "--force", w.path("build/work/go"))
	// A commit by someone else, before the overlay's.
	w.git(t, "build/work/go", "tag", "overlay")
	w.git(t, "build/work/go", "checkout", "-q", "HEAD~1")
	timeGo := "build/work/go/src/runtime/time.go"
	w.write(t, timeGo, w.read(t, timeGo)+"\n// more\n")
	w.git(t, "build/work/go", "commit", "-q", "-a", "--date=2026-11-26T12:34:56+01:00",
		"--author=Someone With A Name Long Enough To Fold The From Header Of A Patch <someone@example.com>",
		"-m", "runtime: more")
	w.git(t, "build/work/go", "cherry-pick", "overlay")
	w.mustRun(t, "extract-patches.sh", w.path("build/work/go"))
	patches, err := filepath.Glob(w.path("patches/*.patch"))
	if err != nil || len(patches) != 2 {
		t.Fatalf("patches: %v %v", patches, err)
	}
	for _, p := range patches {
		body := w.read(t, strings.TrimPrefix(p, w.dir+"/"))
		header, _, _ := strings.Cut(body, "\n\n")
		if !strings.Contains(header, "\nFrom: timerlab <timerlab@localhost>\nDate: Thu, 1 Jan 2026 00:00:00 +0000\n") ||
			strings.Contains(body, "Someone") || strings.Contains(body, "example.com") {
			t.Errorf("%s: author or date not normalized:\n%s", filepath.Base(p), header)
		}
	}
	w.mustRun(t, "check-series.sh")
}

func TestExtractKeepsOverlayEdits(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "apply-patches.sh", "--force", w.path("build/work/go"))
	w.write(t, "build/work/go/src/runtime/timelab.go", "package runtime\n\n// edited in the work tree\n")
	w.git(t, "build/work/go", "commit", "-q", "-a", "--amend", "--no-edit")
	w.mustRun(t, "extract-patches.sh", w.path("build/work/go"))
	if got := w.read(t, "src-overlay/src/runtime/timelab.go"); !strings.Contains(got, "edited in the work tree") {
		t.Fatalf("overlay edit not extracted:\n%s", got)
	}
	if !w.exists("src-overlay/go.mod") {
		t.Fatal("extract dropped the overlay's fence go.mod")
	}
	w.mustRun(t, "check-series.sh")
}

func TestExtractWantsOverlayCommitLast(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "apply-patches.sh", "--force", w.path("build/work/go"))
	w.write(t, "build/work/go/src/runtime/time.go", fakeTimeGo+"\n// later\n")
	w.git(t, "build/work/go", "commit", "-q", "-a", "-m", "runtime: a commit after the overlay")
	r := w.run(t, "extract-patches.sh", w.path("build/work/go"))
	wantOneLineError(t, r, "must be the last commit")
}

// TestFetchRefusesTamperedSum runs fetch-go.sh on the real pinned base with a wrong h1: sum.
func TestFetchRefusesTamperedSum(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads the pinned Go release when the module cache lacks it")
	}
	pinned, err := os.ReadFile(filepath.Join(scriptsDir(t), "..", "base.conf"))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t)
	if err := os.RemoveAll(w.path("build/base")); err != nil {
		t.Fatal(err)
	}
	platform := runtime.GOOS + "-" + runtime.GOARCH
	var tampered []string
	for _, line := range strings.Split(string(pinned), "\n") {
		if strings.HasPrefix(line, "sum."+platform+"=") {
			line = "sum." + platform + "=h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
		}
		tampered = append(tampered, line)
	}
	w.write(t, "base.conf", strings.Join(tampered, "\n"))
	r := w.run(t, "fetch-go.sh")
	wantOneLineError(t, r, "sum mismatch")
	ents, _ := os.ReadDir(w.path("build/base"))
	if len(ents) > 0 {
		t.Fatalf("refused base left %v in build/base", ents)
	}
}

// TestFetchKeepsReleaseCmds runs fetch-go.sh on the real pinned base, for a base fetched before the
// release's commands were kept: it keeps them beside the base, as commands (the module zip has no
// modes), and leaves the base as it was; a second run has nothing to do.
func TestFetchKeepsReleaseCmds(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads the pinned Go release when the module cache lacks it")
	}
	pinned, err := os.ReadFile(filepath.Join(scriptsDir(t), "..", "base.conf"))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t)
	w.write(t, "base.conf", string(pinned))
	var version, sum string
	for _, line := range strings.Split(string(pinned), "\n") {
		if v, ok := strings.CutPrefix(line, "version="); ok {
			version = v
		}
		if v, ok := strings.CutPrefix(line, "sum."+runtime.GOOS+"-"+runtime.GOARCH+"="); ok {
			sum = v
		}
	}
	// A base as fetch-go.sh left it before it kept the commands: its marker only matters here.
	base := "build/base/" + version
	w.write(t, base+"/.git/timerlab-base", sum+"\n")
	r := w.mustRun(t, "fetch-go.sh")
	if !strings.Contains(r.stdout, "keeping the release's commands") || !strings.Contains(r.stdout, "already present") {
		t.Fatalf("fetch-go.sh did not keep the commands beside the base it had:\n%s", r.stdout)
	}
	cmds := w.path("build/base/" + version + "-cmds")
	out, err := exec.Command(cmds+"/bin/go", "version").Output()
	if want := "go version " + version + " "; err != nil || !strings.HasPrefix(string(out), want) {
		t.Fatalf("the release's go: %q, %v; want %q...", out, err, want)
	}
	if _, err := os.Stat(filepath.Join(cmds, "pkg/tool", runtime.GOOS+"_"+runtime.GOARCH, "compile")); err != nil {
		t.Fatalf("the release's compiler is missing: %v", err)
	}
	if ents, _ := os.ReadDir(w.path(base)); len(ents) != 1 {
		t.Errorf("fetch-go.sh changed the base it had: %v", ents)
	}
	if ents, _ := filepath.Glob(w.path("build/base/.fetch.*")); len(ents) > 0 {
		t.Errorf("fetch-go.sh left %v", ents)
	}
	if r := w.mustRun(t, "fetch-go.sh"); strings.Contains(r.stdout, "downloading") {
		t.Errorf("a second fetch-go.sh downloaded again:\n%s", r.stdout)
	}
}

// addSlack adds to w's variants.conf a variant slack with a toolchain of its own, then the rows
// given, such as aliases of it.
func (w *world) addSlack(t *testing.T, rows ...string) {
	t.Helper()
	conf := w.read(t, "variants.conf") + "slack all timerslack - coalescing\n"
	for _, r := range rows {
		conf += r + "\n"
	}
	w.write(t, "variants.conf", conf)
}

func TestListLeavesAliasesOut(t *testing.T) {
	w := newWorld(t)
	w.addSlack(t, "slack-1ms @slack - timerslack=1ms slack at 1ms")
	r := w.mustRun(t, "build-toolchain.sh", "--list")
	if r.stdout != "upstream\nheap\nwheel\nslack\n" {
		t.Fatalf("--list printed %q, want the variants with a toolchain of their own", r.stdout)
	}
}

// TestBuildAliasBuildsTarget checks that building an alias says whose toolchain it uses and builds
// that one, at the target's path, once.
func TestBuildAliasBuildsTarget(t *testing.T) {
	w := newWorld(t)
	w.addSlack(t, "slack-1ms @slack - timerslack=1ms slack at 1ms", "slack-0 @slack - timerslack=0 slack off")
	r := w.mustRun(t, "build-toolchain.sh", "slack-1ms")
	if !strings.Contains(r.stdout, "slack-1ms is an alias: it runs with slack's toolchain; building slack") {
		t.Fatalf("build of an alias did not say whose toolchain it uses:\n%s", r.stdout)
	}
	out, err := exec.Command(w.path("build/toolchains/slack/bin/go"), "version").Output()
	if want := fakeVersion + "-timerlab.slack X:timerslack"; err != nil || !strings.Contains(string(out), want) {
		t.Fatalf("slack's go version = %q, %v; want %q", out, err, want)
	}
	if w.exists("build/toolchains/slack-1ms") {
		t.Fatal("an alias got a toolchain of its own")
	}
	r = w.mustRun(t, "build-toolchain.sh", "slack-0")
	if n := w.makeCount(t); n != 1 || !strings.Contains(r.stdout, "slack is up to date") {
		t.Fatalf("make.bash ran %d times for two aliases of one toolchain:\n%s", n, r.stdout)
	}
}

func TestBadAlias(t *testing.T) {
	for _, tc := range []struct{ row, want string }{
		{"slack-z @nosuch - timerslack=0 x", "variant 'slack-z' is an alias of unknown variant 'nosuch'"},
		{"slack-x @slack-0 - timerslack=1ms x", "variant 'slack-x' is an alias of 'slack-0', itself an alias"},
		{"slack-y @slack timerwheel timerslack=1ms x", "variant 'slack-y': an alias runs its target's toolchain"},
	} {
		w := newWorld(t)
		w.addSlack(t, "slack-0 @slack - timerslack=0 slack off", tc.row)
		name := strings.Fields(tc.row)[0]
		wantOneLineError(t, w.run(t, "build-toolchain.sh", name), tc.want)
		wantOneLineError(t, w.run(t, "test-variant.sh", name, "--quick"), tc.want)
		if w.makeCount(t) != 0 {
			t.Fatalf("%s: make.bash ran for a bad alias", name)
		}
	}
}

// TestTestVariantAliasUsesTargetWithItsGodebug runs Go's tests (here the fake go, which passes
// nothing) for an alias: they run with the target's toolchain under the alias's GODEBUG.
func TestTestVariantAliasUsesTargetWithItsGodebug(t *testing.T) {
	w := newWorld(t)
	w.addSlack(t, "slack-1ms @slack - timerslack=1ms slack at 1ms")
	r := w.run(t, "test-variant.sh", "slack-1ms", "--quick")
	wantOneLineError(t, r, "no toolchain for slack-1ms at "+w.path("build/toolchains/slack"))
	w.mustRun(t, "build-toolchain.sh", "slack")
	r = w.mustRun(t, "test-variant.sh", "slack-1ms", "--quick")
	want := "testing slack-1ms: go version " + fakeVersion + "-timerlab.slack X:timerslack linux/amd64 with GODEBUG=timerslack=1ms"
	if !strings.Contains(r.stdout, want) {
		t.Fatalf("test-variant.sh of an alias did not run slack's toolchain with the alias's GODEBUG:\n%s", r.stdout)
	}
	if n := strings.Count(r.stdout, "fake go test: GODEBUG=timerslack=1ms\n"); n != 3 {
		t.Fatalf("go test ran %d of its 3 groups under the alias's GODEBUG:\n%s", n, r.stdout)
	}
	if !strings.Contains(r.stdout, "failed: none\n") || !strings.Contains(r.stdout, "slack-1ms: all ") {
		t.Fatalf("test-variant.sh did not report every package run passed:\n%s", r.stdout)
	}
}

// TestTestVariantQuick checks what --quick runs, for CI's gate: the timer tests of time, context,
// runtime/metrics, the runtime and net's deadlines, one run each, and none of --full's other
// packages, GOMAXPROCS settings, -race or other builds, whatever the variant's experiments.
func TestTestVariantQuick(t *testing.T) {
	w := newWorld(t)
	w.addSlack(t, "wheel-slack all timerwheel,timerslack - both")
	w.write(t, "src-overlay/src/runtime/timewheel.go", "package runtime\n\nconst (\n\tverifyWheel = false\n)\n")
	for _, v := range []string{"heap", "wheel-slack"} {
		w.mustRun(t, "build-toolchain.sh", v)
		r := w.mustRun(t, "test-variant.sh", v, "--quick")
		want := []string{
			v + " quick: go test -short -count=1 time context runtime/metrics\n",
			v + " quick: go test -short -count=1 -run 'Timer|Sleep|Tick|Netpoll|Preempt|Synctest|TimeTimer|PeriodicGC|GCFairness|SpuriousWakeups' runtime\n",
			v + " quick: go test -short -count=1 -run 'Deadline|Timeout' net\n",
			"passed: time[quick] context[quick] runtime/metrics[quick] runtime[quick] net[quick]\n",
		}
		for _, want := range want {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%s --quick: no %q in:\n%s", v, want, r.stdout)
			}
		}
		for _, not := range []string{"synctest", "internal/poll", " os", "GOARCH=386", "staticlockranking", "-overlay", "-race", "P="} {
			if strings.Contains(r.stdout+r.stderr, not) {
				t.Errorf("%s --quick runs %q:\n%s", v, not, r.stdout)
			}
		}
	}
}

// TestTestVariantOtherBuilds checks the runs test-variant.sh --full adds by experiment: a variant
// with slack runs its runtime tests as 386 binaries too, a variant with the wheel with static lock
// ranking on top of its own experiments, and a variant with neither runs neither. The null floor,
// whose AfterFunc timers never fire, runs its own test alone, in --quick as in --full.
func TestTestVariantOtherBuilds(t *testing.T) {
	w := newWorld(t)
	w.addSlack(t, "wheel-slack all timerwheel,timerslack - both", "null all timernull - the null floor")
	w.write(t, "src-overlay/src/runtime/timewheel.go", "package runtime\n\nconst (\n\tverifyWheel = false\n)\n")
	verify := " verify: go test -short -count=1 -overlay="
	skip := "-skip=^TestTimerWheelModelFullSlots$ -run 'Timer|Wheel' runtime\n"
	verifyOn := "fake go test: overlay timewheel.go: verifyWheel = true\n"
	for _, tc := range []struct {
		variant   string
		want, not []string
	}{
		{"heap", nil, []string{"GOARCH=386", "staticlockranking", "TestTimerNull", "-overlay"}},
		{"null", []string{"-run '^TestTimerNull$' runtime", "passed: runtime[TestTimerNull]\n"},
			[]string{"time context", "GOARCH=386", "staticlockranking"}},
		{"slack", []string{"fake go test: GOARCH=386 GOEXPERIMENT= -short -count=1 -run Slack|Epoll runtime"}, []string{"staticlockranking"}},
		{"wheel", []string{"fake go test: GOARCH= GOEXPERIMENT=timerwheel,staticlockranking -short -count=1 -run Timer|Wheel runtime",
			"wheel" + verify, skip, verifyOn, "runtime[verify]"}, []string{"GOARCH=386"}},
		{"wheel-slack", []string{"GOARCH=386 GOEXPERIMENT= ", "GOEXPERIMENT=timerwheel,timerslack,staticlockranking ",
			"wheel-slack" + verify, verifyOn, "runtime[verify]"}, nil},
	} {
		w.mustRun(t, "build-toolchain.sh", tc.variant)
		r := w.mustRun(t, "test-variant.sh", tc.variant, "--full")
		out := r.stdout + r.stderr
		for _, want := range tc.want {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in test-variant.sh's output:\n%s", tc.variant, want, out)
			}
		}
		for _, not := range tc.not {
			if strings.Contains(out, not) {
				t.Errorf("%s: %q in test-variant.sh's output:\n%s", tc.variant, not, out)
			}
		}
		if !strings.Contains(r.stdout, "failed: none\n") {
			t.Errorf("%s: a run failed:\n%s", tc.variant, r.stdout)
		}
	}
	// The verify run edits timewheel.go's verifyWheel line through an overlay, which must still
	// find the line; the toolchain's own file stays as it was.
	if got := w.read(t, "build/toolchains/wheel/src/runtime/timewheel.go"); !strings.Contains(got, "verifyWheel = false") {
		t.Errorf("the verify run changed the toolchain's timewheel.go:\n%s", got)
	}
	w.write(t, "build/toolchains/wheel/src/runtime/timewheel.go", "package runtime\n")
	wantOneLineError(t, w.run(t, "test-variant.sh", "wheel", "--full"), "lines 'verifyWheel = false' (want 1): the verify run no longer applies")
	// The null floor's own test is all it runs in --quick too; a -run that matches no test passes
	// go test: the null floor's run must say its test passed.
	if r := w.mustRun(t, "test-variant.sh", "null", "--quick"); !strings.Contains(r.stdout, "passed: runtime[TestTimerNull]\n") {
		t.Errorf("null --quick did not run its own test alone:\n%s", r.stdout)
	}
	r := w.runEnv(t, []string{"FAKE_TEST_NOTESTS=1"}, "test-variant.sh", "null", "--quick")
	wantOneLineError(t, r, "null: 1 package runs failed")
}

// TestTestVariantRuntime checks --runtime: the runtime's tests with no -run filter, with -short,
// without it, and with static lock ranking on top of the variant's experiments (only lock ranking
// for heap), and none of the timer groups or the other builds.
func TestTestVariantRuntime(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		variant, goexp string
	}{{"heap", "staticlockranking"}, {"wheel", "timerwheel,staticlockranking"}} {
		w.mustRun(t, "build-toolchain.sh", tc.variant)
		r := w.mustRun(t, "test-variant.sh", tc.variant, "--runtime")
		for _, want := range []string{
			tc.variant + " short: go test -short -count=1 -timeout=30m runtime\n",
			tc.variant + " long: go test -count=1 -timeout=60m runtime\n",
			"fake go test: GOARCH= GOEXPERIMENT=" + tc.goexp + " -short -count=1 -timeout=30m runtime\n",
			"passed: runtime[short] runtime[long] runtime[lockrank]\n",
		} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%s --runtime: no %q in:\n%s", tc.variant, want, r.stdout)
			}
		}
		if strings.Contains(r.stdout, " -run ") || strings.Contains(r.stdout, "time context") {
			t.Errorf("%s --runtime ran a filtered or a timer group:\n%s", tc.variant, r.stdout)
		}
		// As dist-test.sh: GOROOT a copy of the toolchain outside the checkout, a real directory
		// at the variant's own path, removed after; the build cache the variant's own.
		copy := w.path("tmp/timerlab-runtime-" + tc.variant + "/go")
		env := strings.Fields(w.read(t, "build/test.env"))
		if len(env) != 3 || env[0] != copy || env[1] != w.path("build/runtime-test/"+tc.variant+"/gocache") || env[2] != copy {
			t.Errorf("%s --runtime ran go test with GOROOT, GOCACHE and GOROOT's physical path %q: want a copy at %s, the variant's cache",
				tc.variant, env, copy)
		} else if _, err := os.Lstat(copy); err == nil {
			t.Errorf("the copy %s of the toolchain is left behind", copy)
		}
	}
	if w.exists("build/locks.inherited") {
		t.Errorf("go test inherited the scripts' lock descriptors: %s", w.read(t, "build/locks.inherited"))
	}
	// One run per variant at a time.
	w.holdLock(t, "build/runtime-test/heap/.lock")
	wantOneLineError(t, w.run(t, "test-variant.sh", "heap", "--runtime"), "another test-variant.sh heap --runtime is running")
	// The copy's path is the machine's: a run from another checkout holding it is not disturbed.
	w.write(t, "tmp/timerlab-runtime-wheel/go/keep", "x")
	w.holdLock(t, "tmp/timerlab-runtime-wheel.lock")
	wantOneLineError(t, w.run(t, "test-variant.sh", "wheel", "--runtime"), "another run uses "+w.path("tmp/timerlab-runtime-wheel"))
	if !w.exists("tmp/timerlab-runtime-wheel/go/keep") {
		t.Errorf("test-variant.sh --runtime removed the copy of a run that holds it")
	}
}

// TestCrossCheck runs cross-check.sh on the fake toolchain: by default both experiments on
// darwin/arm64 and windows/amd64, each vetted then built; --full the four combinations of
// experiments on those two ports and, on linux/386 and linux/arm64, those no other step of the full
// tier builds; --all every combination on the four ports; a failing build is named in one line, and
// its port's build is skipped after a failed vet; a bad flag is a usage error.
func TestCrossCheck(t *testing.T) {
	w := newWorld(t)
	wantOneLineError(t, w.run(t, "cross-check.sh"), "no toolchain for heap")
	w.mustRun(t, "build-toolchain.sh", "heap")
	r := w.run(t, "cross-check.sh", "--bogus")
	wantOneLineError(t, r, "usage: cross-check.sh [--full|--all]")
	if r.code != 2 {
		t.Errorf("a bad flag exited %d, want 2", r.code)
	}
	log := w.path("build/cross.log")
	builds := func(configs ...string) string {
		var b strings.Builder
		for _, c := range configs {
			fmt.Fprintf(&b, "vet %s\nbuild %s\n", c, c)
		}
		return b.String()
	}
	w.mustRun(t, "cross-check.sh")
	if got, want := w.read(t, "build/cross.log"), builds("darwin/arm64:timerwheel,timerslack", "windows/amd64:timerwheel,timerslack"); got != want {
		t.Fatalf("cross-check.sh built\n%s\nwant\n%s", got, want)
	}
	os.Remove(log)
	w.mustRun(t, "cross-check.sh", "--full")
	want := builds(
		"darwin/arm64:", "darwin/arm64:timerwheel", "darwin/arm64:timerslack", "darwin/arm64:timerwheel,timerslack",
		"windows/amd64:", "windows/amd64:timerwheel", "windows/amd64:timerslack", "windows/amd64:timerwheel,timerslack",
		"linux/386:", "linux/386:timerwheel", "linux/arm64:")
	if got := w.read(t, "build/cross.log"); got != want {
		t.Fatalf("cross-check.sh --full built\n%s\nwant\n%s", got, want)
	}
	os.Remove(log)
	w.mustRun(t, "cross-check.sh", "--all")
	if n := strings.Count(w.read(t, "build/cross.log"), "\n"); n != 32 {
		t.Fatalf("cross-check.sh --all ran %d builds, want 16 vets and 16 builds", n)
	}
	os.Remove(log)
	r = w.runEnv(t, []string{"FAKE_CROSS_FAIL=windows/amd64:timerslack"}, "cross-check.sh", "--full")
	wantOneLineError(t, r, "1 check(s) failed: windows/amd64 GOEXPERIMENT=timerslack: go vet runtime time")
	if strings.Contains(w.read(t, "build/cross.log"), "build windows/amd64:timerslack\n") {
		t.Fatal("cross-check.sh built a port and experiment whose vet failed")
	}
}

// TestDistTestRefusesNullFloor checks that dist-test.sh refuses the null floor, whose AfterFunc
// timers never fire, in one line and without writing anything.
func TestDistTestRefusesNullFloor(t *testing.T) {
	w := newWorld(t)
	w.addSlack(t, "null all timernull - the null floor")
	w.mustRun(t, "build-toolchain.sh", "null")
	wantOneLineError(t, w.runEnv(t, []string{"FAKE_DIST_TESTS=go_test:a"}, "dist-test.sh", "null"),
		"null is the null floor, whose AfterFunc timers never fire")
	if w.exists("build/dist-test/null") || w.exists("build/dist.count") {
		t.Errorf("dist-test.sh of the null floor wrote results or ran a test")
	}
}

// TestDistTestOneAtATime checks that a second dist-test.sh of a variant whose run holds its lock
// is refused in one line, since both would share the copy of the toolchain and the results.
func TestDistTestOneAtATime(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "build-toolchain.sh", "heap")
	w.holdLock(t, "build/dist-test/heap/.lock")
	wantOneLineError(t, w.runEnv(t, []string{"FAKE_DIST_TESTS=go_test:a"}, "dist-test.sh", "heap"),
		"another dist-test.sh of heap is running")
}

// TestDistTestCopyInUse checks that dist-test.sh refuses, in one line, a copy of the toolchain
// that another run holds, and leaves it in place: the copy's path is the machine's, not the
// checkout's, so a run from another checkout (or a test of this script) would otherwise remove
// it under a running one.
func TestDistTestCopyInUse(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "build-toolchain.sh", "heap")
	w.write(t, "tmp/timerlab-dist-heap/go/keep", "x")
	w.holdLock(t, "tmp/timerlab-dist-heap.lock")
	wantOneLineError(t, w.runEnv(t, []string{"FAKE_DIST_TESTS=go_test:a"}, "dist-test.sh", "heap"),
		"another run uses "+w.path("tmp/timerlab-dist-heap"))
	if !w.exists("tmp/timerlab-dist-heap/go/keep") || w.exists("build/dist.count") {
		t.Errorf("dist-test.sh removed the copy of a run that holds it, or ran a test")
	}
}

// TestDistTestRecordsAndResumes runs the fake toolchain's dist test: each test once, a failure
// again to tell a flake from a failure, every outcome recorded and summed up; a second run runs
// nothing already recorded, and results of another toolchain of the variant are refused.
func TestDistTestRecordsAndResumes(t *testing.T) {
	w := newWorld(t)
	w.mustRun(t, "build-toolchain.sh", "heap")
	env := []string{"FAKE_DIST_TESTS=go_test:a+b cmd/x runtime:cpu1", "FAKE_DIST_FAIL=cmd/x", "FAKE_DIST_FLAKY=runtime:cpu1"}
	r := w.runEnv(t, env, "dist-test.sh", "heap")
	if r.code == 0 {
		t.Fatalf("a failed test, and dist-test.sh exited 0:\n%s", r.stdout)
	}
	if w.exists("build/locks.inherited") {
		t.Errorf("the dist test inherited the script's lock descriptors: %s", w.read(t, "build/locks.inherited"))
	}
	results := w.read(t, "build/dist-test/heap/results")
	for _, want := range []string{"go_test:a+b pass ", "cmd/x fail ", "runtime:cpu1 flaky "} {
		if !strings.Contains(results, "\n"+want) {
			t.Errorf("results lack %q:\n%s", want, results)
		}
	}
	if !strings.Contains(r.stdout, "passed 1, flaky 1, failed 1, of 3") {
		t.Errorf("no summary line in:\n%s", r.stdout)
	}
	if !w.exists("build/dist-test/heap/cmd_x.2.log") || w.exists("build/dist-test/heap/go_test:a+b.1.log") {
		t.Errorf("the failed runs' logs are not kept, or a passed one's is")
	}
	// The tests run as on a builder: GOROOT a copy of the toolchain outside the checkout, a real
	// directory (not a symbolic link) at the variant's own path, removed after; the build cache
	// the variant's own.
	env2 := strings.Fields(w.read(t, "build/dist.env"))
	if len(env2) != 3 || env2[0] != w.path("tmp/timerlab-dist-heap/go") ||
		env2[1] != w.path("build/dist-test/heap/gocache") || env2[2] != env2[0] {
		t.Errorf("dist test ran with GOROOT, GOCACHE and GOROOT's physical path %q: want a copy at %s, "+
			"the variant's cache", env2, w.path("tmp/timerlab-dist-heap/go"))
	} else if _, err := os.Lstat(env2[0]); err == nil {
		t.Errorf("the copy %s of the toolchain is left behind", env2[0])
	}
	runs := w.read(t, "build/dist.count")
	if want := "go_test:a+b\ncmd/x\ncmd/x\nruntime:cpu1\nruntime:cpu1\n"; runs != want {
		t.Errorf("tests run:\n%s\nwant\n%s", runs, want)
	}
	// Resumed: nothing recorded runs again, and the failure still fails the run.
	if r := w.runEnv(t, env, "dist-test.sh", "heap"); r.code == 0 || w.read(t, "build/dist.count") != runs {
		t.Errorf("a second run exited %d and ran %q", r.code, w.read(t, "build/dist.count"))
	}
	w.write(t, "src-overlay/src/runtime/timelab.go", "package runtime\n\n// changed\n")
	w.mustRun(t, "build-toolchain.sh", "heap")
	wantOneLineError(t, w.runEnv(t, env, "dist-test.sh", "heap"), "is of another toolchain of heap")
	if err := os.Remove(w.path("build/dist-test/heap/results")); err != nil {
		t.Fatal(err)
	}
	wantOneLineError(t, w.runEnv(t, env, "dist-test.sh", "heap", "nomatch"), "no test of heap's dist test matches 'nomatch'")
}

// holdLock has another process hold the flock of the file rel in w, its directory made if need be,
// until the test ends; it skips the test where flock is missing.
func (w *world) holdLock(t *testing.T, rel string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(w.path(rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	holder := exec.Command("flock", w.path(rel), "sleep", "30")
	if err := holder.Start(); err != nil {
		t.Skipf("no flock: %v", err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	for !w.locked(t, rel) {
		time.Sleep(10 * time.Millisecond)
	}
}

// locked reports whether another process holds the flock of the file rel in w.
func (w *world) locked(t *testing.T, rel string) bool {
	t.Helper()
	return exec.Command("flock", "-n", w.path(rel), "true").Run() != nil
}

// TestStepsBudgetWarning runs ci/steps.sh with a fake make whose targets sleep the seconds their
// names end with: a run whose counted steps pass the total budget prints one warning line that
// names the steps past their own budget and those the budget does not list, and exits as its steps
// did; a run within its budget, a step the budget does not count, or a run without a budget,
// prints none; a budget that cannot be read is a usage error.
func TestStepsBudgetWarning(t *testing.T) {
	dir := t.TempDir()
	fakeMake := "#!/bin/sh\n# make --no-print-directory TARGET\ncase $2 in fail*) echo failed; exit 1 ;; esac\nsleep ${2##*[a-z]}\n"
	if err := os.WriteFile(filepath.Join(dir, "make"), []byte(fakeMake), 0o755); err != nil {
		t.Fatal(err)
	}
	tight := filepath.Join(dir, "tight")
	loose := filepath.Join(dir, "loose")
	os.WriteFile(tight, []byte("# step seconds\ntotal 1\nslow2 1  # grew\nfast0 5\nfail0 5\nbuild2 -\n"), 0o644)
	os.WriteFile(loose, []byte("total 3\nslow2 1\nfast0 5\nbuild3 -\n"), 0o644)
	steps := filepath.Join(scriptsDir(t), "..", "ci", "steps.sh")
	run := func(args ...string) result {
		t.Helper()
		cmd := exec.Command(steps, args...)
		cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		code := 0
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return result{stdout.String(), stderr.String(), code}
	}
	warnings := func(out string) []string {
		var w []string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "warning") {
				w = append(w, l)
			}
		}
		return w
	}

	r := run("--budget", tight, "fast0", "slow2", "new1")
	w := warnings(r.stdout + r.stderr)
	if r.code != 0 || len(w) != 1 {
		t.Fatalf("over budget: exit %d, warnings %q, want exit 0 and one warning:\n%s", r.code, w, r.stdout)
	}
	for _, want := range []string{"passes the budget of 1s", "grew: slow2 ", "s (budget 1s), new1 ", "s (no budget)"} {
		if !strings.Contains(w[0], want) {
			t.Errorf("warning %q lacks %q", w[0], want)
		}
	}
	if strings.Contains(w[0], "fast0") {
		t.Errorf("warning %q names a step within its budget", w[0])
	}
	r = run("--budget", tight, "build2", "fast0")
	if w := warnings(r.stdout); r.code != 0 || len(w) != 0 || !strings.Contains(r.stdout, "(not counted)") {
		t.Errorf("a step the budget does not count: exit %d, warnings %q; want exit 0, none, and the step marked:\n%s", r.code, w, r.stdout)
	}
	if !strings.Contains(r.stdout, "(budget 5s)") {
		t.Errorf("the summary does not show the steps' budgets:\n%s", r.stdout)
	}
	for _, args := range [][]string{{"--budget", loose, "fast0", "build3", "slow2"}, {"slow2"}} {
		if r := run(args...); r.code != 0 || len(warnings(r.stdout+r.stderr)) != 0 {
			t.Errorf("%v: exit %d, warnings %q; want exit 0 and none", args, r.code, warnings(r.stdout+r.stderr))
		}
	}
	r = run("--budget", tight, "fast0", "fail0", "slow2")
	if r.code == 0 || strings.Contains(r.stdout, "make slow2") || len(warnings(r.stdout)) != 0 {
		t.Errorf("a failed step: exit %d, want non-zero, no later step and no warning:\n%s", r.code, r.stdout)
	}
	r = run("--budget", filepath.Join(dir, "nosuch"), "fast0")
	if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "cannot read the budget") {
		t.Errorf("an unreadable budget: exit %d, stderr %q; want exit 2 and one line", r.code, r.stderr)
	}
}

// fakeQemu writes, in a new directory it returns, the qemu-user commands test-ports.sh runs, each of
// which records its name in build/ports.log and runs the binary it is given.
func (w *world) fakeQemu(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, q := range []string{"arm", "mipsel", "aarch64", "riscv64"} {
		script := "#!/bin/sh\necho \"qemu-" + q + "-static\" >>" + w.path("build/ports.log") + "\nexec \"$@\"\n"
		if err := os.WriteFile(filepath.Join(dir, "qemu-"+q+"-static"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestTestPorts runs test-ports.sh on the fake toolchains and qemu: --quick builds the timer tests of
// time, the runtime and runtime/metrics once for linux/mipsle (or the first port named) and runs
// each binary under the port's qemu, -short, from its package's directory, with no go command on
// PATH, the variant's GODEBUG, the runtime's timer tests only and each package's skips; --full runs every
// port at GOMAXPROCS=4 without -short; linux/arm is GOARM=6 on a CPU without LPAE; a failing
// package or build fails the run in one line.
func TestTestPorts(t *testing.T) {
	w := newWorld(t)
	w.addSlack(t, "slack-1ms @slack - timerslack=1ms slack at 1ms")
	w.mustRun(t, "build-toolchain.sh", "slack")
	path := []string{"PATH=" + w.fakeQemu(t) + ":" + os.Getenv("PATH")}
	log := w.path("build/ports.log")
	src := w.path("build/toolchains/slack/src")

	r := w.mustRunEnv(t, path, "test-ports.sh", "slack-1ms")
	want := "build linux/mipsle CGO_ENABLED=0 time runtime runtime/metrics\n" +
		"qemu-mipsel-static\nrun time P= cpu= godebug=timerslack=1ms go=none dir=" + src + "/time -test.short -test.timeout=240s -test.skip ^TestLongAdjustTimers$\n" +
		"qemu-mipsel-static\nqemu-mipsel-static\nrun runtime P= cpu= godebug=timerslack=1ms go=none dir=" + src + "/runtime -test.short -test.timeout=240s -test.run Timer|Sleep|Tick|Netpoll|Preempt|Synctest|TimeTimer|PeriodicGC|GCFairness|SpuriousWakeups -test.skip ^TestTimerSlackDeferralKeepsDeadlines$\n" +
		"qemu-mipsel-static\nrun runtime/metrics P= cpu= godebug=timerslack=1ms go=none dir=" + src + "/runtime/metrics -test.short -test.timeout=240s -test.skip ^TestTimerMetricsWakeups$\n"
	if got := w.read(t, "build/ports.log"); got != want {
		t.Fatalf("test-ports.sh slack-1ms built and ran\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(r.stdout, "passed: time[linux/mipsle] runtime[linux/mipsle] runtime/metrics[linux/mipsle]\n") {
		t.Errorf("test-ports.sh did not report each package passed:\n%s", r.stdout)
	}
	if !w.exists("build/ports/slack-1ms/linux-mipsle/runtime.test") {
		t.Errorf("the binaries are not kept in build/ports/VARIANT/PORT")
	}

	os.Remove(log)
	w.mustRunEnv(t, path, "test-ports.sh", "slack", "--quick", "linux/arm", "linux/arm64")
	got := w.read(t, "build/ports.log")
	if !strings.HasPrefix(got, "build linux/arm GOARM=6 CGO_ENABLED=0 ") || !strings.Contains(got, "qemu-arm-static\nrun time P= cpu=arm1176 ") ||
		strings.Contains(got, "arm64") {
		t.Errorf("--quick linux/arm linux/arm64 did not run linux/arm alone, GOARM=6 on arm1176:\n%s", got)
	}

	os.Remove(log)
	r = w.mustRunEnv(t, path, "test-ports.sh", "slack", "--full")
	got = w.read(t, "build/ports.log")
	for _, q := range []string{"arm", "mipsel", "aarch64", "riscv64"} {
		if n := strings.Count(got, "qemu-"+q+"-static\n"); n != 4 {
			t.Errorf("--full ran %d binaries under qemu-%s-static, want 3 packages at GOMAXPROCS=4, and the runtime's -test.list", n, q)
		}
	}
	if n := strings.Count(got, "build "); n != 4 || strings.Contains(got, "-test.short") || strings.Count(got, " P=4 ") != 12 {
		t.Errorf("--full: want 4 builds, then each binary at GOMAXPROCS=4 without -short:\n%s", got)
	}
	if !strings.Contains(r.stdout, "runtime/metrics[linux/riscv64 P=4]") {
		t.Errorf("--full did not report each port and GOMAXPROCS:\n%s", r.stdout)
	}

	wantOneLineError(t, w.runEnv(t, append(path, "FAKE_PORT_FAIL=runtime"), "test-ports.sh", "slack"),
		"slack: 1 package runs failed under qemu")

	// A binary with the stress test of the slack guard must pass it: it runs verbose, and a skip
	// (a test that would build a program, say) fails the package.
	os.Remove(log)
	stress := "FAKE_PORT_TESTS=TestTimerSlackGuardStress TestOther"
	r = w.mustRunEnv(t, append(path, stress), "test-ports.sh", "slack")
	if got := w.read(t, "build/ports.log"); !strings.Contains(got, "/runtime -test.short -test.timeout=240s -test.run Timer|") ||
		!strings.Contains(got, "|SpuriousWakeups -test.skip ^TestTimerSlackDeferralKeepsDeadlines$ -test.v\n") || strings.Count(got, "-test.v") != 1 {
		t.Errorf("the runtime's binary did not run verbose for its required test:\n%s", got)
	}
	r = w.runEnv(t, append(path, stress, "FAKE_PORT_SKIPPED=TestTimerSlackGuardStress"), "test-ports.sh", "slack")
	wantOneLineError(t, r, "slack: 1 package runs failed under qemu")
	if !strings.Contains(r.stdout, "FAIL  runtime [linux/mipsle] ") || !strings.Contains(r.stdout, "(exit 1; TestTimerSlackGuardStress did not pass)") {
		t.Errorf("a skipped stress test did not fail the package, naming it:\n%s", r.stdout)
	}
	if r := w.runEnv(t, append(path, stress, "FAKE_PORT_SKIPPED=TestOther"), "test-ports.sh", "slack"); r.code != 0 {
		t.Errorf("a skip of a test not required failed the run:\n%s", r.stdout)
	}
	wantOneLineError(t, w.runEnv(t, append(path, "FAKE_PORT_BUILD_FAIL=mipsle"), "test-ports.sh", "slack"),
		"slack: 3 package runs failed under qemu")
}

// TestTestPortsRefuses checks that test-ports.sh refuses, in one line, an unknown port or mode (a
// usage error), an unknown variant, and the null floor, whose AfterFunc timers never fire, and runs
// nothing.
func TestTestPortsRefuses(t *testing.T) {
	w := newWorld(t)
	w.addSlack(t, "null all timernull - the null floor")
	w.mustRun(t, "build-toolchain.sh", "slack")
	w.mustRun(t, "build-toolchain.sh", "null")
	path := []string{"PATH=" + w.fakeQemu(t) + ":" + os.Getenv("PATH")}
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"slack", "--quick", "linux/sparc"}, "unknown port 'linux/sparc' (known: linux/arm linux/mipsle linux/arm64 linux/riscv64)", 2},
		{[]string{"slack", "--bogus"}, "usage: test-ports.sh VARIANT [--quick|--full] [PORT...]", 2},
		{[]string{"nosuch", "--quick"}, "unknown variant 'nosuch'", 1},
		{[]string{"null"}, "null is the null floor, whose AfterFunc timers never fire", 1},
	} {
		r := w.runEnv(t, path, "test-ports.sh", tc.args...)
		wantOneLineError(t, r, tc.want)
		if r.code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.args, r.code, tc.code)
		}
	}
	if w.exists("build/ports.log") || w.exists("build/ports") {
		t.Errorf("a refused run built or ran something")
	}
}
