package toolchain

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"timerlab/internal/lab"
)

func TestOpenMissingToolchainNamesVariantAndPath(t *testing.T) {
	l := lab.Layout{Build: t.TempDir()}
	_, err := Open(l, lab.Variant{Name: "wheel", Toolchain: "wheel"})
	if err == nil {
		t.Fatal("Open of a missing toolchain succeeded")
	}
	want := filepath.Join(l.Build, "toolchains", "wheel")
	if !strings.Contains(err.Error(), "variant wheel") || !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name variant wheel and %s", err, want)
	}
}

// TestOpenAllNamesEveryToolchainToBuild checks that the toolchains that are not built or out of
// date are one line that names them all (a toolchain once, with the aliases that run with it) and
// the command that builds them, and that toolchains that are there open.
func TestOpenAllNamesEveryToolchainToBuild(t *testing.T) {
	root, err := lab.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	conf := filepath.Join(tmp, "variants.conf")
	os.WriteFile(conf, []byte("heap all - - baseline\nwheel all timerwheel - wheel\nslack all timerslack - slack\n"+
		"slack-1ms @slack - timerslack=1ms sweep\nslack-0 @slack - timerslack=0 sweep\n"), 0o644)
	t.Setenv("TIMERLAB_VARIANTS", conf)
	t.Setenv("TIMERLAB_BUILD", filepath.Join(tmp, "build"))
	l := lab.NewLayout(root)
	vs, err := l.ReadVariants()
	if err != nil {
		t.Fatal(err)
	}
	fake := func(name, stamp string) {
		dir := l.ToolchainDir(name)
		os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
		os.WriteFile(filepath.Join(dir, "bin", "go"), []byte("#!/bin/sh\n"), 0o755)
		if stamp != "" {
			os.WriteFile(filepath.Join(dir, lab.StampFile), []byte(stamp+"\n"), 0o644)
		}
	}
	fake("wheel", "0123")
	_, err = OpenAll(l, vs)
	want := "no toolchain of heap, slack (slack-1ms, slack-0 run with it) in " + filepath.Join(tmp, "build", "toolchains") +
		"; the toolchain of wheel out of date (built from another base, variants.conf line or patch series than the " +
		"checkout holds): build them with `for v in heap wheel slack; do scripts/build-toolchain.sh $v || break; done`"
	if err == nil || err.Error() != want {
		t.Errorf("OpenAll:\n%v\nwant\n%s", err, want)
	}
	fake("heap", "")
	fake("slack", "")
	_, err = OpenAll(l, vs[:2])
	if want := "the toolchain of wheel out of date (built from another base, variants.conf line or patch series than " +
		"the checkout holds): build it with `scripts/build-toolchain.sh wheel`"; err == nil || err.Error() != want {
		t.Errorf("OpenAll of heap and wheel:\n%v\nwant\n%s", err, want)
	}
	tcs, err := OpenAll(l, []lab.Variant{vs[0], vs[3]})
	if err != nil || len(tcs) != 2 || tcs[1].GOROOT != l.ToolchainDir("slack") {
		t.Errorf("OpenAll of heap and slack-1ms: %v, %v", tcs, err)
	}
}

// TestOpenAlias checks an alias opens its target's GOROOT and runs with its own GODEBUG, not the
// target's; a missing target toolchain is named with the alias.
func TestOpenAlias(t *testing.T) {
	build := t.TempDir()
	l := lab.Layout{Build: build}
	alias := lab.Variant{Name: "slack-1ms", Series: "@slack", Goexp: "timerslack", Godebug: "timerslack=1ms",
		Toolchain: "slack"}
	_, err := Open(l, alias)
	if err == nil || !strings.Contains(err.Error(), "variant slack-1ms") ||
		!strings.Contains(err.Error(), "slack's toolchain") || !strings.Contains(err.Error(), "build-toolchain.sh slack)") {
		t.Errorf("Open of an alias without its target's toolchain: %v", err)
	}
	root := filepath.Join(build, "toolchains", "slack")
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	os.WriteFile(filepath.Join(root, "bin", "go"), []byte("#!/bin/sh\n"), 0o755)
	tc, err := Open(l, alias)
	if err != nil {
		t.Fatal(err)
	}
	if tc.GOROOT != root {
		t.Errorf("GOROOT = %s, want the target's %s", tc.GOROOT, root)
	}
	t.Setenv("GODEBUG", "timerslack=50us")
	var godebug []string
	for _, kv := range tc.Env() {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			godebug = append(godebug, v)
		}
	}
	if len(godebug) != 1 || godebug[0] != "timerslack=1ms" {
		t.Errorf("GODEBUG = %q, want exactly the alias's timerslack=1ms", godebug)
	}
}

func TestPlannedAlias(t *testing.T) {
	l := lab.Layout{Build: "/b"}
	got := Planned(l, lab.Variant{Name: "slack-0", Series: "@slack", Goexp: "timerslack", Godebug: "timerslack=0",
		Toolchain: "slack"})
	want := Info{Variant: "slack-0", GOROOT: "/b/toolchains/slack", GOEXPERIMENT: "timerslack", GODEBUG: "timerslack=0"}
	if got != want {
		t.Errorf("Planned = %+v, want %+v", got, want)
	}
}

func TestEnvIsolatesToolchain(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOEXPERIMENT", "nosomething")
	t.Setenv("GOTOOLCHAIN", "go1.99.0")
	t.Setenv("GOWORK", "/elsewhere/go.work")
	t.Setenv("GOGC", "off")
	t.Setenv("GOMEMLIMIT", "1GiB")
	tc := &Toolchain{Variant: lab.Variant{Name: "slack", Godebug: "timerslack=50us"}, GOROOT: "/tc/slack"}
	env := map[string][]string{}
	for _, kv := range tc.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = append(env[k], v)
	}
	for k, want := range map[string]string{"GOTOOLCHAIN": "local", "GOROOT": "/tc/slack", "GOFLAGS": "",
		"GODEBUG": "timerslack=50us", "GOWORK": "off"} {
		if len(env[k]) != 1 || env[k][0] != want {
			t.Errorf("%s = %q, want exactly %q", k, env[k], want)
		}
	}
	for _, k := range []string{"GOEXPERIMENT", "GOGC", "GOMEMLIMIT"} {
		if _, ok := env[k]; ok {
			t.Errorf("%s inherited from the caller", k)
		}
	}
	if len(env["PATH"]) != 1 || !strings.HasPrefix(env["PATH"][0], "/tc/slack/bin:") {
		t.Errorf("PATH = %q, want the toolchain's bin first", env["PATH"])
	}
}

// TestRunEnvKeepsPath checks the environment of a binary run without its toolchain: the variant's
// GODEBUG, none of the caller's Go settings, and the caller's PATH, which the binaries' own
// commands need.
func TestRunEnvKeepsPath(t *testing.T) {
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("GODEBUG", "asyncpreemptoff=1")
	t.Setenv("GOGC", "off")
	env := RunEnv(lab.Variant{Name: "slack-1ms", Toolchain: "slack", Godebug: "timerslack=1ms"})
	got := map[string][]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = append(got[k], v)
	}
	if !slices.Equal(got["GODEBUG"], []string{"timerslack=1ms"}) || !slices.Equal(got["PATH"], []string{"/usr/bin:/bin"}) {
		t.Errorf("GODEBUG %q, PATH %q; want timerslack=1ms and the caller's PATH, once each", got["GODEBUG"], got["PATH"])
	}
	if _, ok := got["GOGC"]; ok {
		t.Error("GOGC inherited from the caller")
	}
}

func TestDescribeFakeToolchain(t *testing.T) {
	build := t.TempDir()
	link := filepath.Join(build, "toolchains", "heap")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(hostGOROOT(t), link); err != nil {
		t.Fatal(err)
	}
	tc, err := Open(lab.Layout{Build: build}, lab.Variant{Name: "heap", Toolchain: "heap"})
	if err != nil {
		t.Fatal(err)
	}
	info, err := tc.Describe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.Version, "go version go") || info.GOROOT != link {
		t.Errorf("Describe = %+v, want a go version of %s", info, link)
	}
}

// hostGOROOT is the GOROOT of the go command on PATH, which stands in for a built toolchain.
func hostGOROOT(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	return strings.TrimSpace(string(out))
}
