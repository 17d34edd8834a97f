package labtest

import (
	"archive/zip"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Module is one module version a FakeProxy serves: its path, version and files (go.mod among
// them), by name relative to the module's root.
type Module struct {
	Path, Version string
	Files         map[string]string
}

// FakeProxy serves mods from a directory (GOPROXY=file://), with the checksum database off and a
// module cache of the test's own, so that the go commands the test runs reach no network.
func FakeProxy(t *testing.T, mods ...Module) {
	t.Helper()
	proxy := t.TempDir()
	for _, m := range mods {
		v := filepath.Join(proxy, filepath.FromSlash(m.Path), "@v")
		if err := os.MkdirAll(v, 0o755); err != nil {
			t.Fatal(err)
		}
		list, _ := os.ReadFile(filepath.Join(v, "list"))
		info, _ := json.Marshal(map[string]string{"Version": m.Version, "Time": "2026-01-01T00:00:00Z"})
		for name, data := range map[string]string{"list": string(list) + m.Version + "\n",
			m.Version + ".info": string(info), m.Version + ".mod": m.Files["go.mod"]} {
			if err := os.WriteFile(filepath.Join(v, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f, err := os.Create(filepath.Join(v, m.Version+".zip"))
		if err != nil {
			t.Fatal(err)
		}
		z := zip.NewWriter(f)
		for name, data := range m.Files {
			w, err := z.Create(m.Path + "@" + m.Version + "/" + strings.TrimPrefix(name, "/"))
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte(data))
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	cache := t.TempDir()
	t.Cleanup(func() { // the module cache is read-only, which TempDir's removal does not undo
		filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
	})
	t.Setenv("GOPROXY", "file://"+proxy)
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOMODCACHE", cache)
}
