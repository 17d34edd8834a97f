package xbench

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"timerlab/internal/configs"
	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/suite"
	"timerlab/internal/toolchain"
)

// A pack is a results directory that timerlab bench --build-only made for a machine with no
// toolchain, no network and no sweet or bent: beside each build cell of a set of
// golang.org/x/benchmarks, the binaries the tool built, which timerlab bench --prebuilt runs there
// without the tool.
//
// What a prebuilt run keeps of the tools: the same binaries, built by the tools with the variant's
// toolchain; the same driver arguments, counts and order (sweet runs a benchmark -count times in a
// row; bent runs each of its benchmarks once a round) and CPU profiles; the same stand-in assets;
// sweet's etcd cluster and load client, started by its driver (etcd-bench) as under sweet, with
// sweet's load unless the pack sets its requests (Executor.EtcdRequests, etcdLoad); the GODEBUG
// and GOEXPERIMENT the configurations set (envexec, RunEnv). What it drops: the tools' builds and
// their checks of their own environment; bent's minimal environment (a prebuilt binary runs in
// the caller's, without its Go settings, and with no GOROOT), and its runs from the package's
// source directory (the bent set's benchmarks read no files).

// stageDir is where a build cell's binaries are staged for a prebuilt run: beside the cell's file
// (bin/VARIANT/SET.test), bin/VARIANT/SET.d, which holds sweet's bin directory of each benchmark
// (SET.d/BENCH/...) or bent's test binary of each suite (SET.d/SUITE.test).
func stageDir(dir string, c matrix.Cell) string {
	return filepath.Join(dir, "bin", c.Variant, c.Set+".d")
}

// stage copies the binaries of a build cell into stageDir: sweet's bin directory of each of the
// set's benchmarks (from), or bent's test binaries (each file of from, named SUITE.test).
//
// The copies lose their symbol tables and debug information (strip --strip-all), which the Go
// runtime never reads: a CPU profile names functions from the binary's own tables (pclntab), and
// `go version` reads its build information. etcd's three binaries shrink from 87 MB to 62 MB
// (17 MB with xz), so that a pack of four variants fits the 64 MiB a lent machine takes.
func stage(dir string, c matrix.Cell, from map[string]string) error {
	strip, err := Strip()
	if err != nil {
		return err
	}
	final := stageDir(dir, c)
	tmp := final + ".partial"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // gone after the rename; left by an error otherwise
	for name, src := range from {
		info, err := os.Stat(src)
		if err != nil {
			return err
		}
		if !info.IsDir() {
			if err := stripCopy(strip, src, filepath.Join(tmp, name)); err != nil {
				return err
			}
			continue
		}
		entries, err := os.ReadDir(src)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := stripCopy(strip, filepath.Join(src, e.Name()), filepath.Join(tmp, name, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := os.RemoveAll(final); err != nil {
		return err
	}
	return os.Rename(tmp, final)
}

// Strip returns the path of strip, which stage needs, or an error that says how to install it.
func Strip() (string, error) {
	strip, err := exec.LookPath("strip")
	if err != nil {
		return "", fmt.Errorf("strip is not installed, and a pack needs its binaries stripped to fit: " +
			"install binutils (scripts/install-deps.sh does)")
	}
	return strip, nil
}

// stripCopy writes src to dst without its symbol tables and debug information (strip).
func stripCopy(strip, src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if out, err := exec.Command(strip, "--strip-all", "-o", dst, src).CombinedOutput(); err != nil {
		return fmt.Errorf("strip %s: %v: %s", src, err, strings.TrimSpace(string(out)))
	}
	return os.Chmod(dst, 0o755)
}

// sweetInvocations returns, for one of sweet's benchmarks, the command lines sweet's harness runs
// (sweet/harnesses: etcd.go, local.go), with bin its bin directory, assets the assets directory
// (assets/BENCH/...) and tmp a directory etcd's runs may write (its data; emptied after each run,
// as sweet empties it).
//
// load, when not "", is the load tool etcd-bench runs in place of bin's benchmark (etcdLoad).
func sweetInvocations(name, bin, assets, tmp, load string) ([][]string, error) {
	switch name {
	case "etcd":
		if load == "" {
			load = filepath.Join(bin, "benchmark")
		}
		var runs [][]string
		for _, b := range []string{"put", "stm"} {
			runs = append(runs, []string{filepath.Join(bin, "etcd-bench"), "-bench", b,
				"-etcd-bin", filepath.Join(bin, "etcd"), "-benchmark-bin", load, "-tmp", tmp})
		}
		return runs, nil
	case "gopher-lua":
		return [][]string{{filepath.Join(bin, "gopher-lua-bench"),
			filepath.Join(assets, name, "k-nucleotide.lua"), filepath.Join(assets, name, "input.txt")}}, nil
	case "markdown":
		return [][]string{{filepath.Join(bin, "markdown-bench"), filepath.Join(assets, name)}}, nil
	}
	return nil, fmt.Errorf("sweet's %s has no prebuilt run in timerlab (internal/xbench/pack.go)", name)
}

// etcdLoad writes dir/benchmark, a shell script that runs etcd's benchmark tool (tool) with
// requests in place of the requests sweet's driver asks for (its --total=100000), and returns its
// path. The driver takes its load tool's path (-benchmark-bin), not the load's size. Every other
// argument (clients, connections, keys, values) reaches the tool unchanged, and so do GODEBUG and
// the GOMAXPROCS the driver sets; the environment passes through /bin/sh, which keeps only
// variables with a shell's names. A run with no --total fails: the load is never sweet's
// unawares. The watch of a cell's processes sees the tool, not the shell: exec keeps the process.
func etcdLoad(dir, tool string, requests int) (string, error) {
	script := fmt.Sprintf(`#!/bin/sh
# etcd's benchmark tool, %[1]d requests in place of sweet's (timerlab bench --etcd-requests).
timerlab_total=
for timerlab_arg do
	shift
	case $timerlab_arg in --total=*) timerlab_arg=--total=%[1]d timerlab_total=1 ;; esac
	set -- "$@" "$timerlab_arg"
done
if [ -z "$timerlab_total" ]; then
	echo "timerlab: etcd's benchmark tool was run with no --total, so its load cannot be set" >&2
	exit 2
fi
unset timerlab_arg timerlab_total
exec '%[2]s' "$@"
`, requests, strings.ReplaceAll(tool, "'", `'\''`))
	path := filepath.Join(mkdirAll(dir), "benchmark")
	return path, os.WriteFile(path, []byte(script), 0o755)
}

// invocation is one run of a staged binary in a prebuilt cell.
type invocation struct {
	args   []string // the binary and its arguments
	bins   []string // the staged binaries whose processes it runs (a driver's servers too)
	result string   // the file its standard output is appended to
}

// prebuilt runs a run or profile cell of a set from the binaries a build-only run staged.
func (x *Executor) prebuilt(ctx context.Context, set suite.Set, c matrix.Cell, info toolchain.Info, out string) error {
	staged := stageDir(x.Dir, c)
	if c.Kind == matrix.Build {
		return fmt.Errorf("%s is not built, and there are no toolchains here to build it with: build it where "+
			"they are (timerlab bench --build-only)", staged)
	}
	bins, err := stagedFiles(staged)
	if err != nil {
		return fmt.Errorf("no binaries staged for %s %s in %s: build the matrix with timerlab bench --build-only "+
			"into a new directory", c.Variant, c.Set, staged)
	}
	for _, b := range bins {
		if err := CheckBuiltBy(b, info.Version); err != nil {
			return err
		}
	}
	root := filepath.Join(x.Dir, WorkDir, "prebuilt")
	cell, err := os.MkdirTemp(mkdirAll(root), ".cell-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cell)
	env := append(toolchain.RunEnv(lab.Variant{}), configs.ExecEnv(info)...)
	profiles, tmp := filepath.Join(cell, "profiles"), filepath.Join(cell, "tmp")
	var runs []invocation
	switch set.Tool {
	case suite.Sweet:
		// sweet runs each benchmark -count times in a row.
		assets := filepath.Join(root, "assets")
		if err := writeAssets(assets); err != nil {
			return err
		}
		for _, b := range set.XBench {
			if b.Name == "etcd" {
				if err := portsFree(etcdPorts); err != nil {
					return err
				}
			}
			bin := filepath.Join(staged, b.Name)
			load := ""
			if b.Name == "etcd" && x.EtcdRequests > 0 {
				load, err = etcdLoad(filepath.Join(cell, "load"), filepath.Join(bin, "benchmark"), x.EtcdRequests)
				if err != nil {
					return err
				}
			}
			for range x.count(c) {
				args, err := sweetInvocations(b.Name, bin, assets, tmp, load)
				if err != nil {
					return err
				}
				for _, a := range args {
					if c.Kind == matrix.Profile {
						// The driver's arguments come first, as sweet passes them.
						a = append([]string{a[0], "-results-dir", mkdirAll(filepath.Join(profiles, b.Name)), "-cpuprofile"}, a[1:]...)
					}
					runs = append(runs, invocation{a, filesUnder(bins, bin), filepath.Join(cell, "results", b.Name, info.Variant+".results")})
				}
			}
		}
	default:
		// bent runs each of its benchmarks once a round, for -N rounds, with -test.run=none.
		for i := range x.count(c) {
			for _, b := range set.XBench {
				bin := filepath.Join(staged, b.Suite+".test")
				a := []string{bin, "-test.run=none", "-test.bench=" + b.Bench}
				if c.Kind == matrix.Profile {
					a = append(a, "-test.cpuprofile="+filepath.Join(mkdirAll(profiles), fmt.Sprintf("%s-%d.prof", b.Name, i)))
				}
				runs = append(runs, invocation{a, []string{bin}, filepath.Join(cell, "results", "bent.stdout")})
			}
		}
	}
	cwd := mkdirAll(filepath.Join(cell, "cwd"))
	seen := newEnvWatch(nil, nil) // what every run's watch saw
	for _, run := range runs {
		mkdirAll(tmp)
		// A watch of this run's binaries alone, which looks less often once it has seen each.
		watch := newEnvWatch(run.bins, nil)
		output, err := x.runPrebuilt(ctx, cwd, env, watch, run.args)
		if err != nil {
			return err
		}
		seen.merge(watch)
		if err := appendFile(run.result, output); err != nil {
			return err
		}
		if err := os.RemoveAll(tmp); err != nil {
			return err
		}
	}
	if err := seen.check(info.Variant, info.GODEBUG); err != nil {
		return err
	}
	var data []byte
	switch {
	case c.Kind == matrix.Profile:
		var files []string
		filepath.WalkDir(profiles, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(path) == ".prof" {
				files = append(files, path)
			}
			return nil
		})
		data, err = MergeProfiles(files)
	case set.Tool == suite.Sweet:
		data, err = SweetResults(filepath.Join(cell, "results"), set, info.Variant)
	default:
		if data, err = os.ReadFile(filepath.Join(cell, "results", "bent.stdout")); err == nil {
			err = BentResults(data, set)
		}
	}
	if err != nil {
		return err
	}
	if c.Kind == matrix.Run {
		data = append([]byte(seen.record()), data...)
	}
	return os.WriteFile(out, data, 0o644)
}

// stagedFiles lists the files under a stage directory; none is an error.
func stagedFiles(staged string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(staged, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, path)
		}
		return nil
	})
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("%s holds no binaries", staged)
	}
	return files, err
}

// CheckStaged reports an error unless dir holds, for each variant, the binaries staged for each
// set of golang.org/x/benchmarks among sets: a build-only run resumed in a directory whose build
// cells a run with the tools did has none, and a machine without them could not run it.
func CheckStaged(dir string, variants []string, sets []suite.Set) error {
	for _, v := range variants {
		for _, s := range sets {
			if s.Tool == suite.GoTest {
				continue
			}
			staged := stageDir(dir, matrix.Cell{Kind: matrix.Build, Variant: v, Set: s.Name})
			if _, err := stagedFiles(staged); err != nil {
				return fmt.Errorf("no binaries staged for %s %s in %s: its build cell was done without --build-only; "+
					"build the matrix with timerlab bench --build-only into a new directory", v, s.Name, staged)
			}
		}
	}
	return nil
}

// filesUnder returns the files among files that are under dir.
func filesUnder(files []string, dir string) []string {
	var under []string
	for _, f := range files {
		if strings.HasPrefix(f, dir+string(filepath.Separator)) || f == dir {
			under = append(under, f)
		}
	}
	return under
}

// runPrebuilt runs one staged binary, with its standard output returned and its standard error
// (the drivers' logs) kept only for an error.
func (x *Executor) runPrebuilt(ctx context.Context, dir string, env []string, watch *envWatch, run []string) ([]byte, error) {
	fmt.Fprintf(x.Log, "timerlab:   (cd %s && %s)\n", dir, strings.Join(run, " "))
	return runStdout(ctx, dir, env, watch, run[0], run[1:]...)
}

func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(mkdirAllFile(path), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// mkdirAll makes dir and returns it; an error shows in the use of dir that follows.
func mkdirAll(dir string) string {
	os.MkdirAll(dir, 0o755)
	return dir
}

func mkdirAllFile(path string) string {
	mkdirAll(filepath.Dir(path))
	return path
}
