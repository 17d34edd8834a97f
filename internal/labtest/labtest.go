// Package labtest makes the small fake checkouts the harness's tests run in.
package labtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// FakeBuild returns a build directory whose toolchains for variants are symlinks to the GOROOT
// of the go command on PATH: real toolchains, so the benchmarks really run. It points
// TIMERLAB_BUILD there, and TIMERLAB_VARIANTS at a variant list of its own, a fixed upstream and
// heap, whatever the checkout's variants.conf holds; the test is skipped without a go command.
func FakeBuild(t *testing.T, variants ...string) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	build := t.TempDir()
	conf := filepath.Join(build, "variants.conf")
	if err := os.WriteFile(conf, []byte("upstream none - - pristine\nheap all - - baseline\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TIMERLAB_VARIANTS", conf)
	for _, v := range variants {
		link := filepath.Join(build, "toolchains", v)
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(strings.TrimSpace(string(out)), link); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TIMERLAB_BUILD", build)
	return build
}
