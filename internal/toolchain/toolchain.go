// Package toolchain runs commands with one variant's Go toolchain, isolated from whatever Go and
// settings the caller's environment holds.
package toolchain

import (
	"bytes"
	"context"
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

// Open returns the toolchain variant v runs with (v.Toolchain's), or an error naming the variant
// and the missing path, or saying that the toolchain is out of date (lab.Layout.CheckStamp).
func Open(l lab.Layout, v lab.Variant) (*Toolchain, error) {
	root := l.ToolchainDir(v.Toolchain)
	gobin := filepath.Join(root, "bin", "go")
	if st, err := os.Stat(gobin); err != nil || st.IsDir() {
		uses := ""
		if v.IsAlias() {
			uses = fmt.Sprintf("%s's toolchain, ", v.Toolchain)
		}
		return nil, fmt.Errorf("variant %s: no toolchain at %s (%smissing %s; build it with scripts/build-toolchain.sh %s)",
			v.Name, root, uses, gobin, v.Toolchain)
	}
	if err := l.CheckStamp(v.Toolchain, root); err != nil {
		return nil, fmt.Errorf("variant %s: %v", v.Name, err)
	}
	return &Toolchain{Variant: v, GOROOT: root}, nil
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
