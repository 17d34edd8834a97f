// Package lab knows the layout of a timerlab checkout: where the variant list, the base pin, the
// patch series and the built toolchains live. It mirrors scripts/lib.sh, including the environment
// variables that redirect each path, so that the harness and the scripts always agree.
package lab

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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

// XBenchResults is where a matrix of the sets of golang.org/x/benchmarks alone goes by default,
// apart from the main matrix: its cells take minutes, its rounds are fewer.
func (l Layout) XBenchResults() string {
	return filepath.Join(l.Build, "results-xbench")
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
// it prints.
func (l Layout) libsh(fn string, args ...string) (string, error) {
	libsh := filepath.Join(l.Root, "scripts", "lib.sh")
	cmd := exec.Command("bash", append([]string{"-c", `source "$1" && shift && "$@"`, "bash", libsh, fn}, args...)...)
	cmd.Env = append(os.Environ(), "TIMERLAB_BUILD="+l.Build, "TIMERLAB_BASE_CONF="+l.BaseConf,
		"TIMERLAB_VARIANTS="+l.Variants, "TIMERLAB_PATCHES="+l.Patches, "TIMERLAB_OVERLAY="+l.Overlay)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s from %s: %v: %s", fn, libsh, err, bytes.TrimSpace(stderr.Bytes()))
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

// aliasPrefix marks the series column of an alias row: "@slack" runs with slack's toolchain.
const aliasPrefix = "@"

// ReadVariants parses the variant list: one variant per line, '#' starts a comment line, fields
// name series goexp godebug text, '-' meaning none. The order of the file is kept. Every alias
// names a row of the file with a toolchain of its own, and leaves goexp to it ("-").
func ReadVariants(path string) ([]Variant, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var vs []Variant
	lines := map[string]int{} // variant -> line number, for errors
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := parseVariant(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if first, dup := lines[v.Name]; dup {
			return nil, fmt.Errorf("%s:%d: %s is listed twice (first at line %d)", path, n, v.Name, first)
		}
		vs = append(vs, v)
		lines[v.Name] = n
	}
	for i, v := range vs {
		if err := resolveAlias(vs, &vs[i]); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, lines[v.Name], err)
		}
	}
	return vs, nil
}

// parseVariant parses one row; an alias's Toolchain is its target, not yet checked.
func parseVariant(line string) (Variant, error) {
	f := strings.Fields(line)
	if len(f) < 4 {
		return Variant{}, fmt.Errorf("want name series goexp godebug text, got %q", line)
	}
	v := Variant{Name: f[0], Series: f[1], Goexp: dash(f[2]), Godebug: dash(f[3]),
		Text: strings.Join(f[4:], " "), Toolchain: f[0]}
	switch target, alias := strings.CutPrefix(v.Series, aliasPrefix); {
	case alias && target == v.Name:
		return v, fmt.Errorf("%s: an alias of itself", v.Name)
	case alias && v.Goexp != "":
		return v, fmt.Errorf("%s: an alias runs its target's toolchain, so its goexp must be -, not %s", v.Name, v.Goexp)
	case alias:
		v.Toolchain = target
	case v.Series != "all" && v.Series != "none":
		return v, fmt.Errorf("%s: series %q: want all, none or @VARIANT", v.Name, v.Series)
	}
	return v, nil
}

// resolveAlias checks that the alias v (if it is one) names a variant of vs with a toolchain of its
// own, and gives v that variant's GOEXPERIMENT, which its toolchain has baked in.
func resolveAlias(vs []Variant, v *Variant) error {
	if !v.IsAlias() {
		return nil
	}
	i := indexOf(vs, v.Toolchain)
	switch {
	case i < 0:
		return fmt.Errorf("%s: alias of unknown variant %q (known: %s)", v.Name, v.Toolchain, strings.Join(Names(vs), " "))
	case vs[i].IsAlias():
		return fmt.Errorf("%s: alias of %s, which is itself an alias (of %s): name a variant with a toolchain of its own",
			v.Name, v.Toolchain, vs[i].Toolchain)
	}
	v.Goexp = vs[i].Goexp
	return nil
}

// Select returns the variants named in names, in the order of names; empty names selects all.
func Select(all []Variant, names []string) ([]Variant, error) {
	if len(names) == 0 {
		return all, nil
	}
	var out []Variant
	for _, n := range names {
		i := indexOf(all, n)
		if i < 0 {
			return nil, fmt.Errorf("unknown variant %q (known: %s)", n, strings.Join(Names(all), " "))
		}
		if indexOf(out, n) >= 0 {
			return nil, fmt.Errorf("variant %q named twice: its samples would count twice", n)
		}
		out = append(out, all[i])
	}
	return out, nil
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
