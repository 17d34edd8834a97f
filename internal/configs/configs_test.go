package configs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"timerlab/internal/lab"
	"timerlab/internal/toolchain"
)

var infos = []toolchain.Info{
	{Variant: "heap", GOROOT: "/b/toolchains/heap"},
	{Variant: "slack", GOROOT: "/b/toolchains/slack", GOEXPERIMENT: "timerslack", GODEBUG: "timerslack=50us"},
}

// decode reads a generated file as the tools do, by their own key names, not through the structs
// that wrote it: a document of tables and arrays of strings.
func decode(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return doc
}

// TestBent checks bent's configurations, key by key as bent reads them: the GOROOT with a trailing
// slash, the toolchain pinned and its GOEXPERIMENT in the build's and the runs' environments, the
// variant's GODEBUG in the runs' alone, and the profiling wrapper only when asked for.
func TestBent(t *testing.T) {
	heap := map[string]any{"Name": "heap", "Root": "/b/toolchains/heap/",
		"GcEnv":  []any{"GOTOOLCHAIN=local", "GOEXPERIMENT="},
		"RunEnv": []any{"GOTOOLCHAIN=local", "GOEXPERIMENT="}}
	slack := map[string]any{"Name": "slack", "Root": "/b/toolchains/slack/",
		"GcEnv":  []any{"GOTOOLCHAIN=local", "GOEXPERIMENT=timerslack"},
		"RunEnv": []any{"GOTOOLCHAIN=local", "GOEXPERIMENT=timerslack", "GODEBUG=timerslack=50us"}}
	for _, profile := range []bool{false, true} {
		data, err := Bent(infos, profile)
		if err != nil {
			t.Fatal(err)
		}
		want := []map[string]any{maps.Clone(heap), maps.Clone(slack)}
		if profile {
			for _, c := range want {
				c["RunWrapper"] = []any{"cpuprofile"}
			}
		}
		if got := decode(t, data); !reflect.DeepEqual(got, map[string]any{"Configurations": want}) {
			t.Errorf("profile %v: bent configurations\n%s\nwant %v", profile, data, want)
		}
	}
}

// TestSweet checks sweet's configurations as TestBent checks bent's, by sweet's key names.
func TestSweet(t *testing.T) {
	heap := map[string]any{"name": "heap", "goroot": "/b/toolchains/heap",
		"envbuild": []any{"GOTOOLCHAIN=local", "GOEXPERIMENT="},
		"envexec":  []any{"GOTOOLCHAIN=local", "GOEXPERIMENT="}}
	slack := map[string]any{"name": "slack", "goroot": "/b/toolchains/slack",
		"envbuild": []any{"GOTOOLCHAIN=local", "GOEXPERIMENT=timerslack"},
		"envexec":  []any{"GOTOOLCHAIN=local", "GOEXPERIMENT=timerslack", "GODEBUG=timerslack=50us"}}
	for _, profile := range []bool{false, true} {
		data, err := Sweet(infos, profile)
		if err != nil {
			t.Fatal(err)
		}
		want := []map[string]any{maps.Clone(heap), maps.Clone(slack)}
		if profile {
			for _, c := range want {
				c["diagnostics"] = []any{"cpuprofile"}
			}
		}
		if got := decode(t, data); !reflect.DeepEqual(got, map[string]any{"config": want}) {
			t.Errorf("profile %v: sweet configurations\n%s\nwant %v", profile, data, want)
		}
	}
}

// TestMatchesAcceptedConfigurations checks the files Sweet and Bent write against those that real
// sweet and bent ran with in a recorded matrix (testdata/accepted/README.md): for each toolchain
// the matrix recorded, with the CPU profiler and without, the same bytes.
func TestMatchesAcceptedConfigurations(t *testing.T) {
	data, err := os.ReadFile("testdata/accepted/build.json")
	if err != nil {
		t.Fatal(err)
	}
	var build struct{ Toolchains []toolchain.Info }
	if err := json.Unmarshal(data, &build); err != nil {
		t.Fatal(err)
	}
	if len(build.Toolchains) < 2 {
		t.Fatalf("build.json records %d toolchains", len(build.Toolchains))
	}
	n := 0
	for _, info := range build.Toolchains {
		for _, profile := range []bool{false, true} {
			for tool, gen := range map[string]func([]toolchain.Info, bool) ([]byte, error){"sweet": Sweet, "bent": Bent} {
				kind := map[bool]string{false: "run", true: "cpuprofile"}[profile]
				name := fmt.Sprintf("testdata/accepted/%s/timerlab-%s-%s.toml", tool, info.Variant, kind)
				want, err := os.ReadFile(name)
				if err != nil {
					t.Error(err)
					continue
				}
				got, err := gen([]toolchain.Info{info}, profile)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s for %s differs from the file %s ran with (%s):\n%s", tool, info.Variant, tool, name, got)
				}
				n++
			}
		}
	}
	if n != 4*len(build.Toolchains) {
		t.Errorf("compared %d files, want %d", n, 4*len(build.Toolchains))
	}
}

// TestWriteForLeavesTheNullFloorOut checks that the configurations of a checkout's variants leave
// the null floor out (its AfterFunc timers never fire, and sweet's and bent's benchmarks need
// them), and that naming it is refused in one error, with no file written.
func TestWriteForLeavesTheNullFloorOut(t *testing.T) {
	root, err := lab.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "variants.conf")
	if err := os.WriteFile(conf, []byte("heap all - - baseline\nnull all timernull - the null floor\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TIMERLAB_VARIANTS", conf)
	t.Setenv("TIMERLAB_BUILD", t.TempDir())
	l := lab.NewLayout(root)
	out := t.TempDir()
	paths, err := WriteFor(l, nil, out, false)
	if err != nil || len(paths) != 2 {
		t.Fatalf("WriteFor of every variant: %v, %v", paths, err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "toolchains/heap") || strings.Contains(string(data), "null") {
			t.Errorf("%s: want heap's toolchain and not the null floor:\n%s", p, data)
		}
	}
	none := t.TempDir()
	if _, err := WriteFor(l, []string{"heap", "null"}, none, false); err == nil || !strings.Contains(err.Error(), "null is the null floor") {
		t.Errorf("WriteFor heap,null: %v, want the null floor refused", err)
	}
	if ents, _ := os.ReadDir(none); len(ents) != 0 {
		t.Errorf("a refused WriteFor wrote %d files", len(ents))
	}
}
