package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readVariants reads the variant list at path as the checkout's scripts/lib.sh reads it.
func readVariants(t *testing.T, path string) ([]Variant, error) {
	t.Helper()
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	return Layout{Root: root, Variants: path}.ReadVariants()
}

func TestReadVariants(t *testing.T) {
	path := filepath.Join(t.TempDir(), "variants.conf")
	os.WriteFile(path, []byte(`# name series goexp godebug text
upstream   none    -      -        pure upstream
heap       all     -      -        the baseline
slack      all     timerslack  timerslack=50us  coalescing with slack
`), 0o644)
	vs, err := readVariants(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(Names(vs), " "); got != "upstream heap slack" {
		t.Errorf("names %q", got)
	}
	want := Variant{Name: "slack", Series: "all", Goexp: "timerslack", Godebug: "timerslack=50us",
		Text: "coalescing with slack", Toolchain: "slack"}
	if vs[2] != want {
		t.Errorf("slack = %+v, want %+v", vs[2], want)
	}
	if vs[0].Goexp != "" || vs[0].Godebug != "" {
		t.Errorf("'-' not read as none: %+v", vs[0])
	}
	if got := BaselineFirst(Names(vs)); strings.Join(got, " ") != "heap upstream slack" {
		t.Errorf("BaselineFirst = %v", got)
	}
}

// TestReadVariantsAlias checks an alias row runs its target's toolchain, with the target's
// GOEXPERIMENT and its own GODEBUG, whether it comes before or after the target.
func TestReadVariantsAlias(t *testing.T) {
	path := filepath.Join(t.TempDir(), "variants.conf")
	os.WriteFile(path, []byte(`heap all - - the baseline
slack-1ms @slack - timerslack=1ms slack at 1ms
slack all timerslack - default policy
slack-12.5pct @slack - timerslack=12.5% slack at 12.5%
`), 0o644)
	vs, err := readVariants(t, path)
	if err != nil {
		t.Fatal(err)
	}
	want := Variant{Name: "slack-1ms", Series: "@slack", Goexp: "timerslack", Godebug: "timerslack=1ms",
		Text: "slack at 1ms", Toolchain: "slack"}
	if vs[1] != want {
		t.Errorf("slack-1ms = %+v, want %+v", vs[1], want)
	}
	if vs[3].Toolchain != "slack" || vs[3].Godebug != "timerslack=12.5%" {
		t.Errorf("slack-12.5pct = %+v", vs[3])
	}
	for i, alias := range []bool{false, true, false, true} {
		if vs[i].IsAlias() != alias {
			t.Errorf("%s: IsAlias = %v, want %v", vs[i].Name, vs[i].IsAlias(), alias)
		}
	}
}

func TestReadVariantsRejectsBadRows(t *testing.T) {
	for _, tc := range []struct{ conf, want string }{
		{"heap all - - base\nslack-0 @slack - timerslack=0 x\n", ":2: variant 'slack-0' is an alias of unknown variant 'slack' (known: heap slack-0)"},
		{"slack all timerslack - s\na @slack - timerslack=0 x\nb @a - timerslack=1ms y\n",
			":3: variant 'b' is an alias of 'a', itself an alias (of slack)"},
		{"x @x - - self\n", ":1: variant 'x' is an alias of itself"},
		{"slack all timerslack - s\na @slack timerwheel - x\n", ":2: variant 'a': an alias runs its target's toolchain, so its goexp must be -"},
		{"heap some - - x\n", ":1: variant 'heap': series 'some' (want all, none, @VARIANT or a patch set"},
		{"heap all - - x\nheap all - - y\n", ":2: heap is listed twice (first at line 1)"},
		{"# comment\n  # indented comment\n\nheap all - - x\nheap all - - y\n", ":5: heap is listed twice (first at line 4)"},
	} {
		path := filepath.Join(t.TempDir(), "variants.conf")
		os.WriteFile(path, []byte(tc.conf), 0o644)
		if _, err := readVariants(t, path); err == nil || !strings.HasPrefix(err.Error(), path+tc.want) ||
			strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line starting %q", tc.conf, err, path+tc.want)
		}
	}
}

// TestSlack checks which variants have timer slack: those whose GOEXPERIMENT, their target's for an
// alias, names the experiment, whatever their names or GODEBUG say.
func TestSlack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "variants.conf")
	os.WriteFile(path, []byte(`heap all - timerslack=1ms the baseline, a GODEBUG it ignores
slack all timerslack - slack
wheel-slack all timerwheel,timerslack - both
slackless all notimerslack - named slack, without it
slack-0 @slack - timerslack=0 slack off, but slack's toolchain
`), 0o644)
	vs, err := readVariants(t, path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"heap": false, "slack": true, "wheel-slack": true, "slackless": false, "slack-0": true}
	for _, v := range vs {
		if v.Slack() != want[v.Name] {
			t.Errorf("%s (goexp %q): Slack = %v, want %v", v.Name, v.Goexp, v.Slack(), want[v.Name])
		}
	}
}

// TestNullFloor checks which variant is the null floor: its GOEXPERIMENT names timernull, whatever
// its name says.
func TestNullFloor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "variants.conf")
	os.WriteFile(path, []byte(`heap all - - the baseline
null all timernull - the null floor
nullish all notimernull - named null, without it
`), 0o644)
	vs, err := readVariants(t, path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"heap": false, "null": true, "nullish": false}
	for _, v := range vs {
		if v.Null() != want[v.Name] {
			t.Errorf("%s (goexp %q): Null = %v, want %v", v.Name, v.Goexp, v.Null(), want[v.Name])
		}
	}
}

func TestReadVariantsRejectsShortLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "variants.conf")
	os.WriteFile(path, []byte("heap all -\n"), 0o644)
	if _, err := readVariants(t, path); err == nil || !strings.Contains(err.Error(), ":1:") {
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

// TestCheckStamp checks that a toolchain whose stamp is what scripts/lib.sh computes for the
// checkout passes, that one built from another series is refused with the rebuild command, and
// that one without a stamp is taken as it is.
func TestCheckStamp(t *testing.T) {
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
	write("variants.conf", "heap all - - baseline\n")
	t.Setenv("TIMERLAB_PATCHES", filepath.Join(tmp, "patches"))
	t.Setenv("TIMERLAB_OVERLAY", filepath.Join(tmp, "overlay"))
	t.Setenv("TIMERLAB_VARIANTS", filepath.Join(tmp, "variants.conf"))
	l := NewLayout(root)
	tc := filepath.Join(tmp, "toolchain")
	if err := l.CheckStamp("heap", tc); err != nil {
		t.Errorf("a toolchain without a stamp: %v", err)
	}
	stamp, err := l.ToolchainStamp("heap")
	if err != nil || len(stamp) != 64 {
		t.Fatalf("ToolchainStamp = %q, %v; want 64 hex digits", stamp, err)
	}
	write("toolchain/"+StampFile, stamp+"\n")
	if err := l.CheckStamp("heap", tc); err != nil {
		t.Errorf("a toolchain stamped with the checkout's series: %v", err)
	}
	write("patches/0002-b.patch", "second\n")
	err = l.CheckStamp("heap", tc)
	if err == nil || !strings.Contains(err.Error(), "scripts/build-toolchain.sh heap") {
		t.Errorf("a toolchain built before a patch was added: %v, want an error naming the rebuild", err)
	}
}
