package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"timerlab/internal/matrix"
	"timerlab/internal/toolchain"
)

func TestReadSkipsMalformedLineWithWarning(t *testing.T) {
	res, warnings, err := Read("testdata/malformed.txt")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range res {
		names = append(names, r.Name.String())
	}
	if strings.Join(names, " ") != "Stop-2 Reset-2" {
		t.Errorf("results %v, want Stop-2 Reset-2", names)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "malformed.txt:4") {
		t.Errorf("warnings %q, want one naming malformed.txt:4", warnings)
	}
}

func TestReadMissingFile(t *testing.T) {
	if _, _, err := Read("testdata/absent.txt"); err == nil {
		t.Error("reading a missing file succeeded")
	}
}

func TestAssembleWritesHeaderAndDoneRounds(t *testing.T) {
	dir := t.TempDir()
	spec := matrix.Spec{Variants: []string{"heap"}, Sets: []string{"s"}, Rounds: 2, Count: 1}
	done := matrix.Cell{Kind: matrix.Run, Variant: "heap", Set: "s", Round: 1}
	path := filepath.Join(dir, done.Path())
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("pkg: time\nBenchmarkStop-2 10 5 ns/op\n"), 0o644)
	env := Env{Mode: "quick", Build: Build{BaseVersion: "go1.27.4",
		Toolchains: []toolchain.Info{{Variant: "heap", Version: "go version go1.27.4 linux/amd64"}}}}

	n, err := Assemble(dir, spec, env, "heap")
	if err != nil || n != 1 {
		t.Fatalf("Assemble = %d, %v; want 1 cell", n, err)
	}
	res, warnings, err := Read(filepath.Join(dir, RawPath("heap")))
	if err != nil || len(warnings) > 0 || len(res) != 1 {
		t.Fatalf("Read = %d results, %q, %v", len(res), warnings, err)
	}
	for key, want := range map[string]string{"variant": "heap", "base-version": "go1.27.4",
		"goexperiment": "none", "go-version": "go version go1.27.4 linux/amd64", "pkg": "time"} {
		if got := res[0].GetConfig(key); got != want {
			t.Errorf("config %s = %q, want %q", key, got, want)
		}
	}
}

func TestHeaderNeedsToolchain(t *testing.T) {
	if err := (Env{}).Header(new(strings.Builder), "wheel"); err == nil || !strings.Contains(err.Error(), "wheel") {
		t.Errorf("Header of unrecorded variant: %v", err)
	}
}

// TestChanged checks what a resumed run must share with the run that started its directory: the
// machine (GOMAXPROCS included), the patch series and every toolchain.
func TestChanged(t *testing.T) {
	old := Env{CPUModel: "AMD EPYC", Kernel: "Linux 6.1", Cores: 2, GOMAXPROCS: 2, Build: Build{SeriesSHA256: "abc",
		Toolchains: []toolchain.Info{{Variant: "heap", Version: "go version go1.27.4-timerlab.heap linux/amd64"}}}}
	if err := Changed(old, old); err != nil {
		t.Errorf("the same build: %v", err)
	}
	for what, change := range map[string]func(*Env){
		"machine":    func(e *Env) { e.CPUModel = "Intel Xeon" },
		"GOMAXPROCS": func(e *Env) { e.GOMAXPROCS = 4 },
		"series":     func(e *Env) { e.SeriesSHA256 = "def" },
		"toolchain":  func(e *Env) { e.Toolchains = []toolchain.Info{{Variant: "heap", Version: "other"}} },
	} {
		cur := old
		change(&cur)
		if err := Changed(old, cur); err == nil || !strings.Contains(err.Error(), what) {
			t.Errorf("%s changed: %v, want an error naming it", what, err)
		}
	}
}

// TestMachineLineTimerSlack checks that the machine line names the kernel's timer slack when the
// run recorded it, and stays as it was for runs that did not.
func TestMachineLineTimerSlack(t *testing.T) {
	e := Env{CPUModel: "cpu", Cores: 2, GOMAXPROCS: 2, Kernel: "Linux 6.1"}
	if got, want := e.MachineLine(), "cpu, 2 cores, GOMAXPROCS 2, Linux 6.1"; got != want {
		t.Errorf("without timer slack: %q, want %q", got, want)
	}
	e.TimerSlackNS = 50000
	if got, want := e.MachineLine(), "cpu, 2 cores, GOMAXPROCS 2, Linux 6.1 (timer slack 50000ns)"; got != want {
		t.Errorf("with timer slack: %q, want %q", got, want)
	}
}
