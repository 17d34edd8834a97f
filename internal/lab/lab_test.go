package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadVariants(t *testing.T) {
	path := filepath.Join(t.TempDir(), "variants.conf")
	os.WriteFile(path, []byte(`# name series goexp godebug text
upstream   none    -      -        pure upstream
heap       all     -      -        the baseline
slack      all     timerslack  timerslack=50us  coalescing with slack
`), 0o644)
	vs, err := ReadVariants(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(Names(vs), " "); got != "upstream heap slack" {
		t.Errorf("names %q", got)
	}
	want := Variant{Name: "slack", Series: "all", Goexp: "timerslack", Godebug: "timerslack=50us", Text: "coalescing with slack"}
	if vs[2] != want {
		t.Errorf("slack = %+v, want %+v", vs[2], want)
	}
	if vs[0].Goexp != "" || vs[0].Godebug != "" {
		t.Errorf("'-' not read as none: %+v", vs[0])
	}
	if _, err := Select(vs, []string{"wheel"}); err == nil || !strings.Contains(err.Error(), "wheel") {
		t.Errorf("Select of unknown variant: %v", err)
	}
	if got := BaselineFirst(Names(vs)); strings.Join(got, " ") != "heap upstream slack" {
		t.Errorf("BaselineFirst = %v", got)
	}
}

func TestReadVariantsRejectsShortLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "variants.conf")
	os.WriteFile(path, []byte("heap all -\n"), 0o644)
	if _, err := ReadVariants(path); err == nil || !strings.Contains(err.Error(), ":1:") {
		t.Errorf("short line: %v", err)
	}
}

// TestSeriesHash checks the hash covers the patches and overlay files, contents and paths, and
// leaves out the overlay's fence go.mod and files beside the patches that are not patches.
func TestSeriesHash(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	write := func(path, data string) {
		t.Helper()
		p := filepath.Join(tmp, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("patches/0001-a.patch", "first\n")
	write("overlay/src/runtime/timewheel.go", "package runtime\n")
	t.Setenv("TIMERLAB_PATCHES", filepath.Join(tmp, "patches"))
	t.Setenv("TIMERLAB_OVERLAY", filepath.Join(tmp, "overlay"))
	hash := func() string {
		t.Helper()
		h, err := NewLayout(root).SeriesHash()
		if err != nil {
			t.Fatal(err)
		}
		if len(h) != 64 {
			t.Fatalf("SeriesHash = %q, want 64 hex digits", h)
		}
		return h
	}
	base := hash()
	write("overlay/go.mod", "module fence\n")
	write("patches/notes.txt", "not a patch\n")
	if h := hash(); h != base {
		t.Errorf("the fence go.mod or a non-patch file changed the hash: %s -> %s", base, h)
	}
	write("overlay/src/runtime/timewheel.go", "package runtime\n\n// changed\n")
	changed := hash()
	if changed == base {
		t.Error("changing an overlay file left the hash as it was")
	}
	write("patches/0002-b.patch", "second\n")
	if hash() == changed {
		t.Error("adding a patch left the hash as it was")
	}
}
