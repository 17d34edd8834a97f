// Package results records and reads a results directory: the environment of a run, the raw
// benchmark output of every variant in Go benchmark format, and the CPU profiles.
package results

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"timerlab/internal/atomicfile"
	"timerlab/internal/lab"
	"timerlab/internal/toolchain"
)

// Env is the environment a matrix ran in: the machine its benchmarks ran on, and the Build of
// their binaries.
type Env struct {
	Date       string `json:"date"`
	Mode       string `json:"mode"` // "quick" or "full"
	CPUModel   string `json:"cpu_model"`
	Kernel     string `json:"kernel"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"` // what the benchmarks ran with
	// TimerSlackNS is the kernel's timer slack of this process's threads
	// (/proc/self/timerslack_ns, Linux 4.6+; 0 where unknown), which the kernel
	// adds to every timed wait, epoll_wait's and epoll_pwait2's alike:
	// 50000 (50us) unless something set it.
	TimerSlackNS int64 `json:"timer_slack_ns,omitempty"`
	Build
}

// Build is what a matrix's test binaries were built from: the base, the patch series and each
// variant's toolchain. It holds on any machine the binaries run on.
type Build struct {
	BaseVersion  string           `json:"base_version"`
	SeriesSHA256 string           `json:"series_sha256"`
	Toolchains   []toolchain.Info `json:"toolchains"`
}

// MachineLine describes the machine e ran on in one line: CPU, cores, GOMAXPROCS and kernel, with
// the kernel's timer slack when it is known.
func (e Env) MachineLine() string {
	line := fmt.Sprintf("%s, %d cores, GOMAXPROCS %d, %s", e.CPUModel, e.Cores, e.GOMAXPROCS, e.Kernel)
	if e.TimerSlackNS != 0 {
		line += fmt.Sprintf(" (timer slack %dns)", e.TimerSlackNS)
	}
	return line
}

// Machine fills in the parts of an Env that describe this machine.
func Machine() Env {
	return Env{
		Date:       time.Now().UTC().Format(time.RFC3339),
		CPUModel:   cpuModel(),
		Kernel:     kernel(),
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: gomaxprocs(),

		TimerSlackNS: timerSlackNS(),
	}
}

// timerSlackNS reads the kernel's timer slack of this process, or returns 0. The benchmark
// binaries, started from this process, inherit it.
func timerSlackNS() int64 {
	b, err := os.ReadFile("/proc/self/timerslack_ns")
	if err != nil {
		return 0
	}
	var n int64
	if _, err := fmt.Sscan(strings.TrimSpace(string(b)), &n); err != nil {
		return 0
	}
	return n
}

// gomaxprocs is the GOMAXPROCS benchmark binaries started from this process get.
func gomaxprocs() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("GOMAXPROCS"), &n); err == nil && n > 0 {
		return n
	}
	return runtime.NumCPU()
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func kernel() string {
	typ, err1 := os.ReadFile("/proc/sys/kernel/ostype")
	rel, err2 := os.ReadFile("/proc/sys/kernel/osrelease")
	if err1 != nil || err2 != nil {
		return runtime.GOOS
	}
	return strings.TrimSpace(string(typ)) + " " + strings.TrimSpace(string(rel))
}

// Toolchain returns the recorded toolchain of variant, if any.
func (b Build) Toolchain(variant string) (toolchain.Info, bool) {
	for _, t := range b.Toolchains {
		if t.Variant == variant {
			return t, true
		}
	}
	return toolchain.Info{}, false
}

// DescribeBuild describes what binaries built with tcs are built from: the base and patch series
// of the checkout l, and each toolchain's version and experiments, as the toolchain reports them.
func DescribeBuild(ctx context.Context, l lab.Layout, tcs []*toolchain.Toolchain) (Build, error) {
	var b Build
	var err error
	if b.BaseVersion, err = l.BaseVersion(); err != nil {
		return b, err
	}
	if b.SeriesSHA256, err = l.SeriesHash(); err != nil {
		return b, err
	}
	for _, tc := range tcs {
		info, err := tc.Describe(ctx)
		if err != nil {
			return b, err
		}
		b.Toolchains = append(b.Toolchains, info)
	}
	return b, nil
}

// Changed reports how cur differs from old in the machine (GOMAXPROCS included) or the binaries:
// the cells of a results directory started in old do not compare with cells run in cur.
func Changed(old, cur Env) error {
	if m, n := old.MachineLine(), cur.MachineLine(); m != n {
		return fmt.Errorf("machine changed (%s, now %s)", m, n)
	}
	return BuildChanged(old.Build, cur.Build)
}

// BuildChanged reports how the build cur differs from old: the patch series or a toolchain.
func BuildChanged(old, cur Build) error {
	if old.SeriesSHA256 != cur.SeriesSHA256 {
		return fmt.Errorf("patch series changed (%s, now %s)", old.SeriesSHA256, cur.SeriesSHA256)
	}
	for i, t := range cur.Toolchains {
		if i >= len(old.Toolchains) || old.Toolchains[i] != t {
			return fmt.Errorf("toolchain of %s changed since the run started", t.Variant)
		}
	}
	return nil
}

const (
	envFile   = "env.json"
	buildFile = "build.json" // written by timerlab bench --build-only
)

// WriteEnv records env in dir.
func WriteEnv(dir string, env Env) error {
	return atomicfile.WriteJSON(filepath.Join(dir, envFile), env)
}

// ReadEnv returns the environment recorded in dir.
func ReadEnv(dir string) (Env, error) {
	var env Env
	return env, readJSON(filepath.Join(dir, envFile), &env)
}

// WriteBuild records in dir what its test binaries were built from, for runs on another machine.
func WriteBuild(dir string, b Build) error {
	return atomicfile.WriteJSON(filepath.Join(dir, buildFile), b)
}

// ReadBuild returns what WriteBuild recorded in dir.
func ReadBuild(dir string) (Build, error) {
	var b Build
	return b, readJSON(filepath.Join(dir, buildFile), &b)
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// Header writes the configuration lines that open variant's raw file. Keys follow the Go
// benchmark format: they hold for every result that follows.
func (e Env) Header(w io.Writer, variant string) error {
	tc, ok := e.Toolchain(variant)
	if !ok {
		return fmt.Errorf("environment records no toolchain for variant %s", variant)
	}
	lines := [][2]string{
		{"variant", variant},
		{"go-version", tc.Version},
		{"goroot", tc.GOROOT},
		{"goexperiment", tc.GOEXPERIMENT},
		{"godebug", tc.GODEBUG},
		{"base-version", e.BaseVersion},
		{"series-sha256", e.SeriesSHA256},
		{"mode", e.Mode},
		{"date", e.Date},
		{"cpu-model", e.CPUModel},
		{"kernel", e.Kernel},
		{"cores", fmt.Sprint(e.Cores)},
		{"gomaxprocs", fmt.Sprint(e.GOMAXPROCS)},
	}
	var b bytes.Buffer
	for _, kv := range lines {
		fmt.Fprintf(&b, "%s: %s\n", kv[0], orNone(kv[1]))
	}
	b.WriteString("\n")
	_, err := w.Write(b.Bytes())
	return err
}

// orNone keeps a configuration value non-empty: an empty value would delete the key.
func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "none"
	}
	return s
}
