package configs

import (
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
