package configs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/BurntSushi/toml"

	"timerlab/internal/toolchain"
)

var infos = []toolchain.Info{
	{Variant: "heap", GOROOT: "/b/toolchains/heap"},
	{Variant: "slack", GOROOT: "/b/toolchains/slack", GOEXPERIMENT: "timerslack", GODEBUG: "timerslack=50us"},
}

func TestBent(t *testing.T) {
	data, err := Bent(infos, true)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Configurations []BentConfig }
	if _, err := toml.Decode(string(data), &doc); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if len(doc.Configurations) != 2 {
		t.Fatalf("%d configurations\n%s", len(doc.Configurations), data)
	}
	c := doc.Configurations[1]
	if c.Name != "slack" || c.Root != "/b/toolchains/slack/" ||
		!slices.Contains(c.GcEnv, "GOTOOLCHAIN=local") || !slices.Contains(c.GcEnv, "GOEXPERIMENT=timerslack") ||
		!slices.Contains(c.RunEnv, "GODEBUG=timerslack=50us") || !slices.Equal(c.RunWrap, []string{"cpuprofile"}) {
		t.Errorf("slack configuration %+v", c)
	}
}

func TestSweet(t *testing.T) {
	data, err := Sweet(infos, true)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Config []SweetConfig `toml:"config"`
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if len(doc.Config) != 2 {
		t.Fatalf("%d configs\n%s", len(doc.Config), data)
	}
	for _, c := range doc.Config {
		if !slices.Contains(c.EnvBuild, "GOTOOLCHAIN=local") || !slices.Contains(c.EnvExec, "GOTOOLCHAIN=local") {
			t.Errorf("%s does not pin GOTOOLCHAIN=local: %+v", c.Name, c)
		}
	}
	if doc.Config[0].GOROOT != "/b/toolchains/heap" || !slices.Equal(doc.Config[0].Diagnostics, []string{"cpuprofile"}) {
		t.Errorf("heap config %+v", doc.Config[0])
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
