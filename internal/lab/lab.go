// Package lab knows the layout of a timerlab checkout: where the variant list, the base pin, the
// patch series and the built toolchains live. It mirrors scripts/lib.sh, including the environment
// variables that redirect each path, so that the harness and the scripts always agree.
package lab

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Baseline is the variant every other variant is compared against.
const Baseline = "heap"

// Layout holds the absolute paths of one checkout's inputs and outputs.
type Layout struct {
	Root     string // the repository root (holds variants.conf by default)
	Build    string // TIMERLAB_BUILD: build outputs, toolchains under Build/toolchains
	BaseConf string // TIMERLAB_BASE_CONF
	Variants string // TIMERLAB_VARIANTS
	Patches  string // TIMERLAB_PATCHES
	Overlay  string // TIMERLAB_OVERLAY
}

// FindRoot walks up from dir to the first directory holding both go.mod and variants.conf.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if isFile(filepath.Join(d, "go.mod")) && isFile(filepath.Join(d, "variants.conf")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no timerlab checkout (go.mod and variants.conf) at or above %s", dir)
		}
	}
}

// NewLayout returns the layout of the checkout at root, honouring the TIMERLAB_* overrides that
// scripts/lib.sh honours.
func NewLayout(root string) Layout {
	env := func(key, def string) string {
		if v := os.Getenv(key); v != "" {
			return absFrom(root, v)
		}
		return filepath.Join(root, def)
	}
	return Layout{
		Root:     root,
		Build:    env("TIMERLAB_BUILD", "build"),
		BaseConf: env("TIMERLAB_BASE_CONF", "base.conf"),
		Variants: env("TIMERLAB_VARIANTS", "variants.conf"),
		Patches:  env("TIMERLAB_PATCHES", "patches"),
		Overlay:  env("TIMERLAB_OVERLAY", "src-overlay"),
	}
}

// The report timerlab report renders, in a docs directory (by default the checkout's docs/): the
// page, and the directory of its charts (SVG), which holds nothing else.
const (
	ReportFile = "results.md"
	ChartDir   = "results"
)

// Docs is the checkout's docs directory, where timerlab report writes by default.
func (l Layout) Docs() string {
	return filepath.Join(l.Root, "docs")
}

// Results is where timerlab bench writes a matrix by default: build/results, or build/results-quick
// for the quick one.
func (l Layout) Results(quick bool) string {
	if quick {
		return filepath.Join(l.Build, "results-quick")
	}
	return filepath.Join(l.Build, "results")
}

// FirstResults is where make writes the first answer, the matrix of the headline sets.
func (l Layout) FirstResults() string {
	return filepath.Join(l.Build, "results-first")
}

// XBenchResults is where a matrix of the sets of golang.org/x/benchmarks alone goes by default,
// apart from the main matrix: its cells take minutes, its rounds are fewer.
func (l Layout) XBenchResults() string {
	return filepath.Join(l.Build, "results-xbench")
}

// FirstInstrResults is where make writes the first answer's instruction counts (timerlab instr).
func (l Layout) FirstInstrResults() string {
	return filepath.Join(l.Build, "results-first-instr")
}

// InstrResults is where timerlab instr writes its matrix of instruction counts by default.
func (l Layout) InstrResults() string {
	return filepath.Join(l.Build, "results-instr")
}

// ToolchainDir is the GOROOT that scripts/build-toolchain.sh writes for variant name.
func (l Layout) ToolchainDir(name string) string {
	return filepath.Join(l.Build, "toolchains", name)
}

// BaseVersion returns the version= value of the base pin, e.g. "go1.27.4".
func (l Layout) BaseVersion() (string, error) {
	data, err := os.ReadFile(l.BaseConf)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "version="); ok && v != "" {
			return v, nil
		}
	}
	return "", fmt.Errorf("%s names no version=", l.BaseConf)
}

// SeriesHash returns the hash of the patch series and the overlay that scripts/lib.sh's series_hash
// prints, the one definition of it. Toolchains are stamped with it (ToolchainStamp), and Open
// refuses a toolchain whose stamp differs (CheckStamp), so the hash a report records is the series
// its toolchains were built from.
func (l Layout) SeriesHash() (string, error) {
	return l.libsh("series_hash")
}

// StampFile is the file in a toolchain that holds its ToolchainStamp, written by
// scripts/build-toolchain.sh.
const StampFile = ".timerlab-stamp"

// ToolchainStamp returns what scripts/lib.sh's toolchain_stamp prints for variant name: the hash of
// the base's sum, the variant's line of variants.conf and its series, everything its toolchain is
// built from.
func (l Layout) ToolchainStamp(name string) (string, error) {
	return l.libsh("toolchain_stamp", name)
}

// CheckStamp reports an error if the toolchain of variant name at root was built from another base,
// variants.conf line or patch series than the checkout holds now: a rebuild that was not run, or
// that failed and kept the previous toolchain. Results of such a toolchain would be recorded under
// the wrong series. A toolchain without a stamp was not built by build-toolchain.sh (a GOROOT put
// there by hand) and is taken as it is.
func (l Layout) CheckStamp(name, root string) error {
	have, err := os.ReadFile(filepath.Join(root, StampFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	want, err := l.ToolchainStamp(name)
	if err != nil {
		return err
	}
	if got := strings.TrimSpace(string(have)); got != want {
		return fmt.Errorf("the toolchain at %s is out of date: built from another base, variants.conf line or patch series "+
			"than the checkout holds (stamp %.12s, now %.12s); rebuild it with scripts/build-toolchain.sh %s", root, got, want, name)
	}
	return nil
}

// libsh runs the function fn of scripts/lib.sh with args and the layout's paths, and returns what
// it prints. An error lib.sh reports with its die is the error, as it says it.
func (l Layout) libsh(fn string, args ...string) (string, error) {
	libsh := filepath.Join(l.Root, "scripts", "lib.sh")
	const name = "timerlab" // $0, which die prints first
	cmd := exec.Command("bash", append([]string{"-c", `source "$1" && shift && "$@"`, name, libsh, fn}, args...)...)
	cmd.Env = append(os.Environ(), "TIMERLAB_BUILD="+l.Build, "TIMERLAB_BASE_CONF="+l.BaseConf,
		"TIMERLAB_VARIANTS="+l.Variants, "TIMERLAB_PATCHES="+l.Patches, "TIMERLAB_OVERLAY="+l.Overlay)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := string(bytes.TrimSpace(stderr.Bytes()))
		if said, ok := strings.CutPrefix(msg, name+": error: "); ok && !strings.Contains(said, "\n") {
			return "", errors.New(said)
		}
		return "", fmt.Errorf("%s from %s: %v: %s", fn, libsh, err, msg)
	}
	return strings.TrimSpace(string(out)), nil
}

// Variant is one line of variants.conf.
//
// A row whose series is "@TARGET" is an alias: it has no build of its own and runs with the
// toolchain of TARGET, a row with a toolchain of its own, under its own GODEBUG. This is how one
// toolchain is measured at several settings of a run-time knob in one interleaved run.
type Variant struct {
	Name    string
	Series  string // "all", "none", or "@TARGET" for an alias
	Goexp   string // GOEXPERIMENT default baked into the toolchain; "" for none (an alias: its target's)
	Godebug string // GODEBUG the variant documents for its binaries; "" for none (an alias: its own)
	Text    string
	// Toolchain is the variant whose built toolchain this one runs with: Name itself, or an
	// alias's target. ReadVariants always sets it.
	Toolchain string
}

// IsAlias reports whether v runs with another variant's toolchain.
func (v Variant) IsAlias() bool {
	return v.Toolchain != v.Name
}

// ReadVariants returns the variants of the layout's variant list, in its order. The list is read
// and checked by scripts/lib.sh's variant_rows, the one reading of variants.conf, which the scripts
// use too: a bad row (a name listed twice, an unknown series, an alias of an unknown variant or of
// another alias, an alias with a goexp of its own) is one line naming the file and the line. An
// alias gets its target's GOEXPERIMENT, which its target's toolchain has baked in.
func (l Layout) ReadVariants() ([]Variant, error) {
	out, err := l.libsh("variant_rows")
	if err != nil {
		return nil, err
	}
	var vs []Variant
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			return nil, fmt.Errorf("variant_rows of scripts/lib.sh printed %q: want 7 fields separated by tabs", line)
		}
		vs = append(vs, Variant{Name: f[0], Series: f[1], Goexp: dash(f[2]), Godebug: dash(f[3]), Toolchain: f[4], Text: f[5]})
	}
	for i, v := range vs {
		if v.IsAlias() {
			vs[i].Goexp = vs[indexOf(vs, v.Toolchain)].Goexp
		}
	}
	return vs, nil
}

// SlackExperiment is the GOEXPERIMENT of timer slack (docs/slack.md).
const SlackExperiment = "timerslack"

// HasSlack reports whether a toolchain built with the GOEXPERIMENT goexp (variants.conf's goexp
// column, as `go env GOEXPERIMENT` reports it) has timer slack: goexp names SlackExperiment.
func HasSlack(goexp string) bool {
	return slices.Contains(strings.Split(goexp, ","), SlackExperiment)
}

// Slack reports whether v has timer slack (HasSlack of its GOEXPERIMENT, its target's for an alias).
func (v Variant) Slack() bool {
	return HasSlack(v.Goexp)
}

// NullExperiment is the GOEXPERIMENT of the null floor (docs/wheel.md): not a timer set but a
// measuring instrument, the heap with every AfterFunc timer kept out of the timer sets. Its
// AfterFunc timers never fire, so it runs only the sets marked Floor (suite.Set).
const NullExperiment = "timernull"

// IsNull reports whether a toolchain built with the GOEXPERIMENT goexp is the null floor: goexp
// names NullExperiment.
func IsNull(goexp string) bool {
	return slices.Contains(strings.Split(goexp, ","), NullExperiment)
}

// Null reports whether v is the null floor (IsNull of its GOEXPERIMENT).
func (v Variant) Null() bool {
	return IsNull(v.Goexp)
}

// Names returns the variants' names, in order.
func Names(vs []Variant) []string {
	var names []string
	for _, v := range vs {
		names = append(names, v.Name)
	}
	return names
}

// BaselineFirst returns names reordered so the baseline, when present, comes first.
func BaselineFirst(names []string) []string {
	out := []string{}
	for _, n := range names {
		if n == Baseline {
			out = append([]string{n}, out...)
		} else {
			out = append(out, n)
		}
	}
	return out
}

func indexOf(vs []Variant, name string) int {
	for i, v := range vs {
		if v.Name == name {
			return i
		}
	}
	return -1
}

func dash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

func absFrom(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
