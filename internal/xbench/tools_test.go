package xbench

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"timerlab/internal/lab"
	"timerlab/internal/labtest"
	"timerlab/internal/suite"
)

// checkout returns the layout of a fake checkout holding the repository's xbench.conf, with an
// empty build directory, and the layout's xbench.conf pin.
func checkout(t *testing.T) (lab.Layout, Pin) {
	t.Helper()
	root := t.TempDir()
	data, err := os.ReadFile("../../xbench.conf")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "xbench.conf"), data, 0o644)
	t.Setenv("TIMERLAB_BUILD", "")
	l := lab.NewLayout(root)
	pin, err := ReadPin(PinFile(l))
	if err != nil {
		t.Fatal(err)
	}
	return l, pin
}

// TestPin checks the repository's pin and that ReadPin refuses a version that names no one commit
// and an etcd commit that is not a full hash.
func TestPin(t *testing.T) {
	_, pin := checkout(t)
	if pin.Module != "golang.org/x/benchmarks" || len(pin.Commit()) != 12 || !strings.HasSuffix(pin.Version, pin.Commit()) {
		t.Errorf("xbench.conf pins %+v, commit %q", pin, pin.Commit())
	}
	if ms := pin.etcdModules(); len(ms) != 9 || ms[0] != (etcdModule{".", "go.etcd.io/etcd/v3", ms[0].Sum}) ||
		ms[8].Dir != "tests" || !strings.HasPrefix(ms[8].Sum, "h1:") {
		t.Errorf("xbench.conf pins the etcd modules %q", ms)
	}
	dir := t.TempDir()
	for _, bad := range []string{
		strings.Replace(string(mustRead(t, "../../xbench.conf")), pin.Version, "latest", 1),
		strings.Replace(string(mustRead(t, "../../xbench.conf")), pin.Version, "v0.1.0", 1),
		strings.Replace(string(mustRead(t, "../../xbench.conf")), pin.EtcdCommit, pin.EtcdCommit[:12], 1),
		strings.Replace(string(mustRead(t, "../../xbench.conf")), "etcd_version=", "etcd_tag=", 1),
		strings.Replace(string(mustRead(t, "../../xbench.conf")), "etcd_module=api ", "etcd_module=../api ", 1),
		strings.Replace(string(mustRead(t, "../../xbench.conf")), " h1:vdbk", " vdbk", 1),
	} {
		path := filepath.Join(dir, "xbench.conf")
		os.WriteFile(path, []byte(bad), 0o644)
		if p, err := ReadPin(path); err == nil {
			t.Errorf("ReadPin accepted %+v", p)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// oneLine checks err is one line holding every string of want.
func oneLine(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("%s: error of several lines:\n%v", what, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not say %q", what, err, w)
		}
	}
}

// TestOpenWithoutTools checks that a bench that needs sweet and bent where they are not installed
// gets one line saying how to install them, both ways.
func TestOpenWithoutTools(t *testing.T) {
	l, pin := checkout(t)
	_, err := Open(t.Context(), l)
	oneLine(t, "Open without tools", err, "timerlab xbench", "go install", pin.Version, SrcEnv, pin.Commit(), EtcdSrcEnv)
}

// TestOpenRefusesToolsOfAnotherPin checks that tools installed for another pin, or replaced since
// by a command of another module, are refused.
func TestOpenRefusesToolsOfAnotherPin(t *testing.T) {
	l, pin := checkout(t)
	self, err := os.Executable() // a command of module timerlab, not golang.org/x/benchmarks
	if err != nil {
		t.Fatal(err)
	}
	old := pin
	old.Version = "v0.0.0-20250101000000-0123456789ab"
	writeTools(t, l, Tools{Pin: old, Sweet: self, Bent: self})
	_, err = Open(t.Context(), l)
	oneLine(t, "tools of another pin", err, "installed for", old.Version, "timerlab xbench")

	writeTools(t, l, Tools{Pin: pin, Sweet: self, Bent: self})
	_, err = Open(t.Context(), l)
	oneLine(t, "a sweet of another module", err, self, "not "+pin.Module+"@"+pin.Version)
}

func writeTools(t *testing.T, l lab.Layout, tools Tools) {
	t.Helper()
	data, _ := json.Marshal(tools)
	os.MkdirAll(Dir(l), 0o755)
	if err := os.WriteFile(filepath.Join(Dir(l), toolsFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInstallNeitherWay checks an install where the module proxy refuses the module (here: no
// proxy at all) and no checkout is named: one line naming both ways, and nothing left behind.
func TestInstallNeitherWay(t *testing.T) {
	l, pin := checkout(t)
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOMODCACHE", t.TempDir()) // not the machine's, which may hold the module
	t.Setenv("GOFLAGS", "")
	t.Setenv(SrcEnv, "")
	_, err := Install(t.Context(), l, discard{})
	oneLine(t, "Install without proxy or checkout", err, "cannot get "+pin.Module+"@"+pin.Version, "go install",
		SrcEnv, pin.Commit())
	assertEmpty(t, Dir(l))
}

// TestInstallRefusesUnpinnedCheckout checks that a checkout at another commit, or with changes, is
// refused with one line, and nothing is left behind.
func TestInstallRefusesUnpinnedCheckout(t *testing.T) {
	l, pin := checkout(t)
	src := t.TempDir()
	gitIn(t, src, "init", "-q")
	os.WriteFile(filepath.Join(src, "go.mod"), []byte("module golang.org/x/benchmarks\n"), 0o644)
	gitIn(t, src, "add", "go.mod")
	gitIn(t, src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "not the pin")
	t.Setenv(SrcEnv, src)
	_, err := Install(t.Context(), l, discard{})
	oneLine(t, "Install from a checkout at another commit", err, SrcEnv, src, "the pin (xbench.conf) is "+pin.Commit())
	assertEmpty(t, Dir(l))

	// The same checkout, dirty: refused too, whatever its commit (checkCheckout looks at both).
	os.WriteFile(filepath.Join(src, "go.mod"), []byte("module changed\n"), 0o644)
	err = checkCheckout(t.Context(), src, "")
	oneLine(t, "a checkout with changes", err, "has changes", "go.mod")
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// assertEmpty checks that dir, if it exists, holds nothing (an install that failed left nothing).
func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("left behind in %s: %s", dir, e.Name())
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestCheckBuiltBy checks the binary-version check with a binary at hand, this test's own: it is
// accepted against the toolchain that built it, refused against a variant's toolchain.
func TestCheckBuiltBy(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	platform := runtime.GOOS + "/" + runtime.GOARCH
	if err := CheckBuiltBy(self, "go version "+runtime.Version()+" "+platform); err != nil {
		t.Errorf("a binary against the Go that built it: %v", err)
	}
	variant := "go version go1.27.4-timerlab.heap " + platform
	err = CheckBuiltBy(self, variant)
	oneLine(t, "a binary built by another Go", err, self, "built by "+runtime.Version(), "go1.27.4-timerlab.heap")
	if err := CheckBuiltBy(filepath.Join(t.TempDir(), "none"), variant); err == nil {
		t.Error("a missing binary passed")
	}
}

// TestGoVersion checks how a toolchain's version line becomes the version its binaries record:
// a GOEXPERIMENT baked into the toolchain stays, the platform goes.
func TestGoVersion(t *testing.T) {
	for line, want := range map[string]string{
		"go version go1.27.4-timerlab.heap linux/amd64":                                "go1.27.4-timerlab.heap",
		"go version go1.27.4-timerlab.wheel X:timerwheel linux/amd64":                  "go1.27.4-timerlab.wheel X:timerwheel",
		"go version go1.27.4-timerlab.wheel-slack X:timerwheel,timerslack linux/amd64": "go1.27.4-timerlab.wheel-slack X:timerwheel,timerslack",
	} {
		if got, err := GoVersion(line); got != want || err != nil {
			t.Errorf("GoVersion(%q) = %q, %v; want %q", line, got, err, want)
		}
	}
	if _, err := GoVersion("go1.27.4"); err == nil {
		t.Error("GoVersion accepted a bare version")
	}
}

// TestEtcdFromProxy assembles etcd's tree from a fake module proxy's two modules, as Install does
// where the clone fails: each module's files in its directory, scripts executable, the mark that
// checkEtcd accepts; a module whose sum is not the pinned one is refused in one line.
func TestEtcdFromProxy(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	labtest.FakeProxy(t,
		labtest.Module{Path: "go.etcd.io/etcd/v3", Version: "v3.6.0", Files: map[string]string{
			"go.mod": "module go.etcd.io/etcd/v3\n", "Makefile": "build:\n", "scripts/build.sh": "#!/bin/sh\n"}},
		labtest.Module{Path: "go.etcd.io/etcd/api/v3", Version: "v3.6.0", Files: map[string]string{
			"go.mod": "module go.etcd.io/etcd/api/v3\n", "api.go": "package api\n"}})
	t.Setenv("GOFLAGS", "")
	pin := Pin{EtcdVersion: "v3.6.0", EtcdModules: ". go.etcd.io/etcd/v3 h1:wrong\napi go.etcd.io/etcd/api/v3 h1:wrong"}
	in := installer{ctx: t.Context(), pin: pin, tmp: t.TempDir(), log: discard{}}
	dest := filepath.Join(t.TempDir(), "etcd")
	oneLine(t, "a module of another sum", in.fromProxy(dest), "go.etcd.io/etcd/v3@v3.6.0 has sum h1:", "pins h1:wrong")
	in.pin.EtcdModules = "x go.etcd.io/etcd/missing/v3 h1:x"
	err := in.fromProxy(dest)
	oneLine(t, "a module the proxy lacks", err, "go mod download go.etcd.io/etcd/missing/v3@v3.6.0: ")
	if err != nil && strings.HasSuffix(err.Error(), ": ") {
		t.Errorf("a module the proxy lacks: %q does not say why", err)
	}

	// The sums the fake proxy's zips have, as go mod download reports them.
	var sums []string
	for _, m := range []string{"go.etcd.io/etcd/v3", "go.etcd.io/etcd/api/v3"} {
		out, err := in.goCmd(in.tmp, "mod", "download", "-json", m+"@v3.6.0")
		var mod struct{ Sum string }
		if err != nil || json.Unmarshal([]byte(out), &mod) != nil {
			t.Fatalf("go mod download %s: %v", m, err)
		}
		sums = append(sums, mod.Sum)
	}
	in.pin.EtcdModules = ". go.etcd.io/etcd/v3 " + sums[0] + "\napi go.etcd.io/etcd/api/v3 " + sums[1]
	os.RemoveAll(dest)
	if err := in.fromProxy(dest); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"Makefile": 0o644, "scripts/build.sh": 0o755, "api/api.go": 0o644} {
		if st, err := os.Stat(filepath.Join(dest, name)); err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: %v, want mode %v", name, err, mode)
		}
	}
	if err := in.pin.checkEtcd(t.Context(), dest); err != nil {
		t.Errorf("checkEtcd of the assembled tree: %v", err)
	}
	if err := pin.checkEtcd(t.Context(), dest); err == nil {
		t.Error("checkEtcd accepted a tree assembled from other modules than the pin's")
	}
}

// TestNeedEtcd checks that tools installed without etcd's source refuse only the sets that build
// etcd, in one line saying how to provide it.
func TestNeedEtcd(t *testing.T) {
	_, pin := checkout(t)
	tools := &Tools{Pin: pin, EtcdError: "cannot get etcd v3.6.0: git clone: unreachable"}
	sets := map[string]suite.Set{}
	for _, s := range suite.Sets(false) {
		sets[s.Name] = s
	}
	if err := tools.NeedEtcd([]suite.Set{sets["bent"], sets["sweet-controls"]}); err != nil {
		t.Errorf("bent and sweet-controls without etcd: %v, want them run", err)
	}
	err := tools.NeedEtcd([]suite.Set{sets["bent"], sets["sweet-etcd"]})
	oneLine(t, "sweet-etcd without etcd", err, "set sweet-etcd builds etcd v3.6.0", "git clone: unreachable", EtcdSrcEnv)
	tools.Etcd = "/some/etcd"
	if err := tools.NeedEtcd([]suite.Set{sets["sweet-etcd"]}); err != nil {
		t.Errorf("sweet-etcd with etcd: %v", err)
	}
}

// TestAddEtcd gets etcd for tools installed without it, as a second timerlab xbench does: from the
// module proxy where the clone fails, recorded in the tools file; a refused checkout named by
// TIMERLAB_ETCD_SRC is an error, not a warning.
func TestAddEtcd(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	mod := labtest.Module{Path: "go.etcd.io/etcd/v3", Version: "v3.6.0", Files: map[string]string{
		"go.mod": "module go.etcd.io/etcd/v3\n", "Makefile": "build:\n"}}
	labtest.FakeProxy(t, mod)
	t.Setenv("GOFLAGS", "")
	dir := t.TempDir()
	in := installer{ctx: t.Context(), tmp: t.TempDir(), log: discard{}}
	out, _ := in.goCmd(in.tmp, "mod", "download", "-json", "go.etcd.io/etcd/v3@v3.6.0")
	var got struct{ Sum string }
	json.Unmarshal([]byte(out), &got)
	tools := &Tools{Pin: Pin{EtcdRepo: filepath.Join(dir, "no-such-repo"), EtcdVersion: "v3.6.0",
		EtcdModules: ". go.etcd.io/etcd/v3 " + got.Sum}, EtcdError: "earlier"}

	t.Setenv(EtcdSrcEnv, filepath.Join(dir, "not-a-checkout"))
	if err := addEtcd(t.Context(), tools, dir, discard{}); err == nil || tools.Etcd != "" {
		t.Errorf("a refused %s: %v, Etcd %q; want an error and no etcd", EtcdSrcEnv, err, tools.Etcd)
	}
	t.Setenv(EtcdSrcEnv, "")
	if err := addEtcd(t.Context(), tools, dir, discard{}); err != nil {
		t.Fatal(err)
	}
	var saved Tools
	data, _ := os.ReadFile(filepath.Join(dir, toolsFile))
	if err := json.Unmarshal(data, &saved); err != nil || saved.Etcd != filepath.Join(dir, "src", "etcd") || saved.EtcdError != "" {
		t.Errorf("tools file after addEtcd: %s (%v)", data, err)
	}
	if err := tools.Pin.checkEtcd(t.Context(), saved.Etcd); err != nil {
		t.Errorf("the tree addEtcd made: %v", err)
	}
}
