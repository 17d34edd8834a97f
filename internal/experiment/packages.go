package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"

	"timerlab/internal/atomicfile"
	"timerlab/internal/selection"
	"timerlab/internal/suite"
	"timerlab/internal/toolchain"
	"timerlab/internal/xbench"
)

// A pkgSet is a set that timerlab bench --pkg asked for, resolved: its name, its package, and for
// a module at a version the go.mod and go.sum that require it, which execute records under the
// results directory (suite.ModuleDirOf) before the first cell.
type pkgSet struct {
	arg          string // as --pkg named it
	name         string
	pkg          suite.Package
	dir          string // where go commands for the package ran while it was resolved
	goMod, goSum []byte
	modCopy      string // the module's copy in dir, which goMod replaces it by (copyModule)
}

// resolvePackages resolves every argument of args into a set of the benchmarks that bench
// selects there, with the toolchains tcs (the first the one that lists the benchmarks):
//
//   - an argument that begins with '/' or '.' is a directory holding a package of a local module;
//   - PATH@VERSION is a package of a module at a version (any version query go get takes), which
//     go get downloads through the module proxy into a module of its own made in work;
//   - any other argument is a package of the standard library.
//
// The package's test binary is built with every toolchain, into work. A package that does not
// exist, one that does not build with a variant (named, with the first error), and a pattern that
// selects no benchmark are refused (selection.Error): one line, and nothing written but in work.
func resolvePackages(ctx context.Context, tcs []*toolchain.Toolchain, args []string, bench, work string) ([]pkgSet, error) {
	if len(tcs) == 0 {
		return nil, errors.New("no toolchain to build the packages with")
	}
	var out []pkgSet
	for _, arg := range args {
		ps, err := resolvePackage(ctx, tcs, arg, bench, work)
		if err != nil {
			return nil, err
		}
		for _, o := range out {
			if o.name == ps.name {
				return nil, selection.Errorf("--pkg: %s and %s make the same set, %s: name one of them", o.arg, arg, ps.name)
			}
		}
		out = append(out, ps)
	}
	return out, nil
}

// resolvePackage resolves one argument of resolvePackages.
func resolvePackage(ctx context.Context, tcs []*toolchain.Toolchain, arg, bench, work string) (pkgSet, error) {
	if err := suite.CheckPattern(bench); err != nil {
		return pkgSet{}, selection.Errorf("--bench: %v", err)
	}
	first := tcs[0]
	ps := pkgSet{arg: arg, pkg: suite.Package{Bench: bench}}
	var dir string // where go commands for the package run
	switch {
	case isLocalDir(arg):
		abs, err := filepath.Abs(arg)
		if err != nil {
			return ps, err
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return ps, selection.Errorf("--pkg %s: no such directory", arg)
		}
		path, err := goLine(ctx, first, abs, "list", "-f", "{{.ImportPath}}", ".")
		if err != nil {
			return ps, selection.Errorf("--pkg %s: no Go package there: %s", arg, err)
		}
		ps.pkg.Path, ps.pkg.Dir, dir = path, abs, abs
		ps.name = suite.PackageSetName(path)
	case isModuleVersion(arg):
		path, query, _ := strings.Cut(arg, "@")
		if path == "" || query == "" {
			return ps, selection.Errorf("--pkg %s: want PATH@VERSION", arg)
		}
		dir = filepath.Join(work, "mod-"+suite.PackageSetName(arg))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return ps, err
		}
		if _, err := goLine(ctx, first, dir, "mod", "init", "timerlab.invalid/pkg"); err != nil {
			return ps, err
		}
		if _, err := goLine(ctx, first, dir, "get", "-t", arg); err != nil {
			return ps, selection.Errorf("--pkg %s: %s", arg, err)
		}
		version, err := goLine(ctx, first, dir, "list", "-f", "{{.Module.Version}}", path)
		if err != nil {
			return ps, selection.Errorf("--pkg %s: %s", arg, err)
		}
		ps.pkg.Path, ps.pkg.Version = path, version
		ps.name = suite.PackageSetName(path + "@" + version)
		if ps.goMod, err = os.ReadFile(filepath.Join(dir, "go.mod")); err != nil {
			return ps, err
		}
		if ps.goSum, err = os.ReadFile(filepath.Join(dir, "go.sum")); errors.Is(err, os.ErrNotExist) {
			err = nil // a module without dependencies
		} else if err != nil {
			return ps, err
		}
	default:
		dir = filepath.Join(first.GOROOT, "src")
		std, err := goLine(ctx, first, dir, "list", "-f", "{{.Standard}}", arg)
		if err != nil || std != "true" || strings.HasPrefix(arg, "vendor/") {
			return ps, selection.Errorf("--pkg %s: no such package in the standard library "+
				"(a module's package is PATH@VERSION, a local one a directory: ./DIR)", arg)
		}
		ps.pkg.Path = arg
		ps.name = suite.PackageSetName(arg)
	}
	var listed []string
	for i, tc := range tcs {
		bin := filepath.Join(work, ps.name+"-"+tc.Variant.Name+".test")
		if _, err := goLine(ctx, tc, dir, "test", "-c", "-o", bin, ps.pkg.Path); err != nil {
			return ps, selection.Errorf("--pkg %s does not build with %s: %s", arg, tc.Variant.Name, err)
		}
		if i > 0 {
			continue
		}
		pkgDir, err := goLine(ctx, tc, dir, "list", "-f", "{{.Dir}}", ps.pkg.Path)
		if err != nil {
			return ps, err
		}
		// Run what the pattern selects once: a benchmark whose name matches the top level
		// reports nothing where no sub-benchmark matches the levels below.
		cmd := tc.Command(ctx, pkgDir, bin, "-test.run=^$", "-test.bench="+bench, "-test.benchtime=1x",
			"-test.cpu=1", "-test.count=1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return ps, selection.Errorf("--pkg %s: its benchmarks fail with %s: %v: %s", arg, tc.Variant.Name, err,
				lastLine(out.String()))
		}
		r := benchfmt.NewReader(&out, bin)
		for r.Scan() {
			if res, ok := r.Result().(*benchfmt.Result); ok {
				top, _, _ := strings.Cut(string(res.Name.Full()), "/")
				if !slices.Contains(listed, top) {
					listed = append(listed, top)
				}
			}
		}
	}
	if len(listed) == 0 {
		return ps, selection.Errorf("--pkg %s: no benchmark matches --bench %s", arg, bench)
	}
	ps.pkg.Expect, ps.dir = listed, dir
	if err := ps.pkg.Validate(); err != nil {
		return ps, selection.Errorf("--pkg %s: %v", arg, err)
	}
	return ps, nil
}

// isLocalDir reports whether the --pkg argument arg names a directory: it begins with '/' or '.'.
func isLocalDir(arg string) bool {
	return strings.HasPrefix(arg, "/") || strings.HasPrefix(arg, ".")
}

// isModuleVersion reports whether the --pkg argument arg names a module's package at a version:
// PATH@VERSION, not a directory.
func isModuleVersion(arg string) bool {
	return !isLocalDir(arg) && strings.Contains(arg, "@")
}

// goLine runs tc's go with args in dir and returns its trimmed output; a failure's error is the
// first line of what go said, without the "# package" lines that precede a compiler's errors.
func goLine(ctx context.Context, tc *toolchain.Toolchain, dir string, args ...string) (string, error) {
	cmd := tc.Go(ctx, dir, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := firstLine(stderr.String()); msg != "" {
			return "", errors.New(msg)
		}
		return "", fmt.Errorf("go %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// lastLine returns the last line of s that is not empty.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// firstLine returns the first line of s that says something: not empty, not a "# package" header.
func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "# ") {
			return line
		}
	}
	return ""
}

// writeModules records in out the module of every set of a module at a version, which its build
// cells run go test -c in.
func writeModules(out string, sets []pkgSet) error {
	for _, ps := range sets {
		if ps.goMod == nil {
			continue
		}
		dir := filepath.Join(out, suite.ModuleDirOf(ps.name))
		if err := atomicfile.WriteFile(filepath.Join(dir, "go.mod"), ps.goMod); err != nil {
			return err
		}
		if ps.goSum != nil {
			if err := atomicfile.WriteFile(filepath.Join(dir, "go.sum"), ps.goSum); err != nil {
				return err
			}
		}
		if ps.modCopy != "" {
			if err := xbench.CopyTree(ps.modCopy, filepath.Join(dir, modCopyDir)); err != nil {
				return err
			}
		}
	}
	return nil
}

// modCopyDir is where copyModule puts the copy, relative to the module that requires it.
const modCopyDir = "mod"

// copyModule moves ps, a module's package at a version, out of the module cache. A build may
// then add a file to it with an overlay, which go refuses beneath the module cache. It copies the
// module into ps.dir/mod and replaces the module by the copy in ps.dir's go.mod. The copy holds
// what the module cache verified against go.sum. writeModules records it beside the go.mod.
func copyModule(ctx context.Context, tc *toolchain.Toolchain, ps *pkgSet) error {
	line, err := goLine(ctx, tc, ps.dir, "list", "-f", "{{.Module.Path}} {{.Module.Dir}}", ps.pkg.Path)
	if err != nil {
		return err
	}
	mod, src, ok := strings.Cut(line, " ")
	if !ok || src == "" {
		return fmt.Errorf("--pkg %s: go list names no module directory: %q", ps.arg, line)
	}
	dst := filepath.Join(ps.dir, modCopyDir)
	if err := xbench.CopyTree(src, dst); err != nil {
		return err
	}
	goModPath := filepath.Join(dst, "go.mod")
	if _, err := os.Stat(goModPath); errors.Is(err, fs.ErrNotExist) { // a module from before modules
		if err := os.WriteFile(goModPath, []byte("module "+mod+"\n"), 0o644); err != nil {
			return err
		}
	}
	if _, err := goLine(ctx, tc, ps.dir, "mod", "edit", "-replace="+mod+"=./"+modCopyDir); err != nil {
		return err
	}
	ps.modCopy = dst
	ps.goMod, err = os.ReadFile(filepath.Join(ps.dir, "go.mod"))
	return err
}
