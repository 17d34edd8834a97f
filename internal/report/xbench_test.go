package report

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFromPack checks how the report tells a run from a pack from a run of sweet and bent: by the
// processes the raw files record. Every one a binary staged under bin/VARIANT/SET.d: a pack. One
// of sweet's own builds, a staged binary of another variant, or no record at all: not.
func TestFromPack(t *testing.T) {
	staged := func(v string) string {
		return "# processes of /m/r/bin/" + v + "/sweet-etcd.d/etcd/etcd ran with GODEBUG none (6 seen)\n"
	}
	sweet := "# processes of /m/r/xbench/sweet/work/etcd/heap/bin/etcd ran with GODEBUG none (6 seen)\n"
	for _, tc := range []struct {
		what       string
		heap, wide string
		want       bool
	}{
		{"every process staged", staged("heap") + staged("heap"), staged("wide"), true},
		{"one of sweet's builds", staged("heap") + sweet, staged("wide"), false},
		{"another variant's staged binary", staged("heap"), staged("heap"), false},
		{"no process recorded", "", "", false},
	} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "raw"), 0o755)
		for v, records := range map[string]string{"heap": tc.heap, "wide": tc.wide} {
			data := "variant: " + v + "\n\n# run " + v + " sweet-etcd round 1\n" + records + "BenchmarkEtcdPut-2 1 1 ns/op\n"
			os.WriteFile(filepath.Join(dir, "raw", v+".txt"), []byte(data), 0o644)
		}
		if got := fromPack(dir, []string{"heap", "wide"}); got != tc.want {
			t.Errorf("%s: fromPack = %v, want %v", tc.what, got, tc.want)
		}
	}
	if fromPack(t.TempDir(), []string{"heap"}) {
		t.Error("a directory with no raw files: from a pack")
	}
}
