package toolchain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"timerlab/internal/lab"
)

func TestOpenMissingToolchainNamesVariantAndPath(t *testing.T) {
	l := lab.Layout{Build: t.TempDir()}
	_, err := Open(l, lab.Variant{Name: "wheel"})
	if err == nil {
		t.Fatal("Open of a missing toolchain succeeded")
	}
	want := filepath.Join(l.Build, "toolchains", "wheel")
	if !strings.Contains(err.Error(), "variant wheel") || !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name variant wheel and %s", err, want)
	}
}

func TestEnvIsolatesToolchain(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOEXPERIMENT", "nosomething")
	t.Setenv("GOTOOLCHAIN", "go1.99.0")
	tc := &Toolchain{Variant: lab.Variant{Name: "slack", Godebug: "timerslack=50us"}, GOROOT: "/tc/slack"}
	env := map[string][]string{}
	for _, kv := range tc.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = append(env[k], v)
	}
	for k, want := range map[string]string{"GOTOOLCHAIN": "local", "GOROOT": "/tc/slack", "GOFLAGS": "",
		"GODEBUG": "timerslack=50us"} {
		if len(env[k]) != 1 || env[k][0] != want {
			t.Errorf("%s = %q, want exactly %q", k, env[k], want)
		}
	}
	if _, ok := env["GOEXPERIMENT"]; ok {
		t.Error("GOEXPERIMENT inherited from the caller")
	}
	if len(env["PATH"]) != 1 || !strings.HasPrefix(env["PATH"][0], "/tc/slack/bin:") {
		t.Errorf("PATH = %q, want the toolchain's bin first", env["PATH"])
	}
}

func TestDescribeFakeToolchain(t *testing.T) {
	build := t.TempDir()
	link := filepath.Join(build, "toolchains", "heap")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(hostGOROOT(t), link); err != nil {
		t.Fatal(err)
	}
	tc, err := Open(lab.Layout{Build: build}, lab.Variant{Name: "heap"})
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
