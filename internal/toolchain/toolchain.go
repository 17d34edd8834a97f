// Package toolchain runs commands with one variant's Go toolchain, isolated from whatever Go and
// settings the caller's environment holds.
package toolchain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"timerlab/internal/lab"
)

// Toolchain is a built GOROOT for one variant. An alias variant gets its target's GOROOT and keeps
// its own GODEBUG.
type Toolchain struct {
	Variant lab.Variant
	GOROOT  string // absolute; GOROOT/bin/go exists
}

// A NotBuiltError is a variant whose toolchain (its target's, for an alias) is not built, or is
// out of date: built from another base, variants.conf line or patch series than the checkout holds
// (lab.Layout.CheckStamp).
type NotBuiltError struct {
	Variant lab.Variant
	Root    string // the GOROOT it would run with
	Stale   error  // why the toolchain there is out of date; nil when there is none
}

func (e *NotBuiltError) Error() string {
	if e.Stale != nil {
		return fmt.Sprintf("variant %s: %v", e.Variant.Name, e.Stale)
	}
	uses := ""
	if e.Variant.IsAlias() {
		uses = fmt.Sprintf("%s's toolchain, ", e.Variant.Toolchain)
	}
	return fmt.Sprintf("variant %s: no toolchain at %s (%smissing %s; build it with scripts/build-toolchain.sh %s)",
		e.Variant.Name, e.Root, uses, filepath.Join(e.Root, "bin", "go"), e.Variant.Toolchain)
}

// Open returns the toolchain variant v runs with (v.Toolchain's), or a NotBuiltError naming the
// variant and the missing path, or saying that the toolchain is out of date.
func Open(l lab.Layout, v lab.Variant) (*Toolchain, error) {
	root := l.ToolchainDir(v.Toolchain)
	gobin := filepath.Join(root, "bin", "go")
	if st, err := os.Stat(gobin); err != nil || st.IsDir() {
		return nil, &NotBuiltError{Variant: v, Root: root}
	}
	if err := l.CheckStamp(v.Toolchain, root); err != nil {
		return nil, &NotBuiltError{Variant: v, Root: root, Stale: err}
	}
	return &Toolchain{Variant: v, GOROOT: root}, nil
}

// OpenAll opens the toolchain of every variant of vs, in its order. The toolchains that are not
// built or out of date are one error, one line: it names them all, with the variants that run
// with them, and the command that builds them.
func OpenAll(l lab.Layout, vs []lab.Variant) ([]*Toolchain, error) {
	var tcs []*Toolchain
	var missing, stale, build []string
	users := map[string][]string{} // toolchain -> the aliases among vs that run with it
	for _, v := range vs {
		tc, err := Open(l, v)
		var nb *NotBuiltError
		switch {
		case errors.As(err, &nb):
			if !slices.Contains(build, v.Toolchain) {
				build = append(build, v.Toolchain)
				if nb.Stale != nil {
					stale = append(stale, v.Toolchain)
				} else {
					missing = append(missing, v.Toolchain)
				}
			}
			if v.IsAlias() {
				users[v.Toolchain] = append(users[v.Toolchain], v.Name)
			}
			continue
		case err != nil:
			return nil, err
		}
		tcs = append(tcs, tc)
	}
	if len(build) == 0 {
		return tcs, nil
	}
	named := func(names []string) string {
		var out []string
		for _, n := range names {
			if u := users[n]; len(u) > 0 {
				n += " (" + strings.Join(u, ", ") + " run with it)"
			}
			out = append(out, n)
		}
		return strings.Join(out, ", ")
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, fmt.Sprintf("no toolchain of %s in %s", named(missing), filepath.Join(l.Build, "toolchains")))
	}
	if len(stale) > 0 {
		parts = append(parts, fmt.Sprintf("the toolchain of %s out of date (built from another base, variants.conf "+
			"line or patch series than the checkout holds)", named(stale)))
	}
	cmd := "scripts/build-toolchain.sh " + build[0]
	if len(build) > 1 {
		cmd = "for v in " + strings.Join(build, " ") + "; do scripts/build-toolchain.sh $v || break; done"
	}
	return nil, fmt.Errorf("%s: build %s with `%s`", strings.Join(parts, "; "), plural(len(build), "it", "them"), cmd)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Env returns the environment for this toolchain's commands and binaries: RunEnv's, plus
// GOTOOLCHAIN=local, GOROOT, the toolchain's bin first in PATH, an empty GOFLAGS and GOWORK=off.
// GOEXPERIMENT is left unset so the toolchain's baked-in default applies. What the user's go env
// file sets (go env -w) still applies where the environment leaves a setting empty, as for any go
// command.
func (t *Toolchain) Env() []string {
	env := slices.DeleteFunc(RunEnv(t.Variant), func(kv string) bool { return strings.HasPrefix(kv, "PATH=") })
	return append(env,
		"GOTOOLCHAIN=local",
		"GOROOT="+t.GOROOT,
		"GOFLAGS=",
		"GOWORK=off",
		"PATH="+filepath.Join(t.GOROOT, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
	)
}

// RunEnv returns the environment for running a binary built for variant v, with or without its
// toolchain at hand: the caller's environment (its PATH included) without any Go settings that
// could select another toolchain, change the build or change how the collector runs, plus v's
// documented GODEBUG, if any. GOGC and GOMEMLIMIT are dropped, so benchmarks run with the
// collector's defaults, which is what the results record; GOMAXPROCS is kept, and recorded
// (results.Machine).
func RunEnv(v lab.Variant) []string {
	drop := map[string]bool{"GOROOT": true, "GOTOOLCHAIN": true, "GOFLAGS": true,
		"GOEXPERIMENT": true, "GODEBUG": true, "GOBIN": true, "GOWORK": true,
		"GOGC": true, "GOMEMLIMIT": true}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
		}
	}
	if v.Godebug != "" {
		env = append(env, "GODEBUG="+v.Godebug)
	}
	return env
}

// Go returns a command running this toolchain's go with args in dir.
func (t *Toolchain) Go(ctx context.Context, dir string, args ...string) *exec.Cmd {
	return t.Command(ctx, dir, filepath.Join(t.GOROOT, "bin", "go"), args...)
}

// Command returns a command running name in dir with this toolchain's environment.
func (t *Toolchain) Command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = t.Env()
	return cmd
}

// Output runs go with args in dir and returns its trimmed stdout; on failure the error holds
// stderr.
func (t *Toolchain) Output(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := t.Go(ctx, dir, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("variant %s: go %s: %v: %s", t.Variant.Name, strings.Join(args, " "), err,
			strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// Info is what the results record about a toolchain.
type Info struct {
	Variant      string
	GOROOT       string
	Version      string // `go version`
	GOEXPERIMENT string // `go env GOEXPERIMENT`
	GODEBUG      string // the GODEBUG its benchmarks run with
}

// Planned is what variants.conf alone says of v's toolchain, built or not: the GOROOT it runs
// with (its target's, for an alias), the GOEXPERIMENT baked in there, and v's own GODEBUG. Version
// is left empty.
func Planned(l lab.Layout, v lab.Variant) Info {
	return Info{Variant: v.Name, GOROOT: l.ToolchainDir(v.Toolchain), GOEXPERIMENT: v.Goexp, GODEBUG: v.Godebug}
}

// Describe asks the toolchain for its version and experiments.
func (t *Toolchain) Describe(ctx context.Context) (Info, error) {
	version, err := t.Output(ctx, t.GOROOT, "version")
	if err != nil {
		return Info{}, err
	}
	exp, err := t.Output(ctx, t.GOROOT, "env", "GOEXPERIMENT")
	if err != nil {
		return Info{}, err
	}
	return Info{Variant: t.Variant.Name, GOROOT: t.GOROOT, Version: version, GOEXPERIMENT: exp,
		GODEBUG: t.Variant.Godebug}, nil
}
