package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFile checks a file is written whole, replaced whole, its directory made, and no partial
// file left behind.
func TestWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b.txt")
	for _, data := range []string{"first\n", "second, longer\n"} {
		if err := WriteFile(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != data {
			t.Errorf("%s holds %q, %v; want %q", path, got, err, data)
		}
		if _, err := os.Stat(Partial(path)); err == nil {
			t.Errorf("%s left behind", Partial(path))
		}
	}
}

// TestWriteFileFailureLeavesNothing checks a write that fails leaves neither the file nor its partial.
func TestWriteFileFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.Mkdir(Partial(path), 0o755); err != nil { // the partial file cannot be written
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("x")); err == nil {
		t.Fatal("WriteFile succeeded with a directory in place of its partial file")
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s written", path)
	}
}

func TestWriteJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.json")
	if err := WriteJSON(path, map[string]int{"rounds": 6}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{\n  \"rounds\": 6\n}\n" {
		t.Errorf("%s holds %q", path, got)
	}
}
