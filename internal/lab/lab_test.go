package lab

import (
	"os"
	"os/exec"
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

// TestSeriesHashMatchesScripts checks the harness and scripts/lib.sh hash the series alike.
func TestSeriesHashMatchesScripts(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	libsh := filepath.Join(root, "scripts", "lib.sh")
	if _, err := os.Stat(libsh); err != nil {
		t.Skip("no scripts/lib.sh")
	}
	tmp := t.TempDir()
	for path, data := range map[string]string{
		"patches/0002-b.patch": "second\n", "patches/0001-a.patch": "first\n", "patches/notes.txt": "ignored\n",
		"overlay/src/runtime/timewheel.go": "package runtime\n", "overlay/src/internal/x.go": "package x\n",
	} {
		os.MkdirAll(filepath.Join(tmp, filepath.Dir(path)), 0o755)
		os.WriteFile(filepath.Join(tmp, path), []byte(data), 0o644)
	}
	t.Setenv("TIMERLAB_PATCHES", filepath.Join(tmp, "patches"))
	t.Setenv("TIMERLAB_OVERLAY", filepath.Join(tmp, "overlay"))
	out, err := exec.Command("bash", "-c", `source "$1" && series_hash`, "bash", libsh).Output()
	if err != nil {
		t.Skipf("bash series_hash: %v", err)
	}
	got, err := NewLayout(root).SeriesHash()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); got != want {
		t.Errorf("SeriesHash = %s, scripts/lib.sh says %s", got, want)
	}
}
