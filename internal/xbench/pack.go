package xbench

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
// toolchain; the same driver arguments, environment (the configuration's envexec or RunEnv), counts
// and CPU profiles; the same stand-in assets; sweet's etcd cluster and load, whole (its driver,
// etcd-bench, starts the three servers and the load client as under sweet). What it drops: the
// tools' builds and their checks of their own environment, and bent's runs from the package's
// source directory (the benchmarks of the bent set read no files).

// stageDir is where a build cell's binaries are staged for a prebuilt run: beside the cell's file
// (bin/VARIANT/SET.test), bin/VARIANT/SET.d, one directory per benchmark (sweet: its bin
// directory; bent: SUITE.test).
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
	strip, err := exec.LookPath("strip")
	if err != nil {
		return fmt.Errorf("strip is not installed, and a pack needs its binaries stripped to fit: " +
			"install binutils (scripts/install-deps.sh does)")
	}
	final := stageDir(dir, c)
	tmp := final + ".partial"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
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
// (assets/BENCH/...) and tmp giving a new directory each run may write (etcd's data).
func sweetInvocations(name, bin, assets string, tmp func() string) ([][]string, error) {
	switch name {
	case "etcd":
		var runs [][]string
		for _, b := range []string{"put", "stm"} {
			runs = append(runs, []string{filepath.Join(bin, "etcd-bench"), "-bench", b,
				"-etcd-bin", filepath.Join(bin, "etcd"), "-benchmark-bin", filepath.Join(bin, "benchmark"), "-tmp", tmp()})
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

// prebuilt runs a run or profile cell of a set from the binaries a build-only run staged.
func (x *Executor) prebuilt(ctx context.Context, set suite.Set, c matrix.Cell, info toolchain.Info, out string) error {
	staged := stageDir(x.Dir, c)
	if c.Kind == matrix.Build {
		return fmt.Errorf("%s is not built, and there are no toolchains here to build it with: build it where "+
			"they are (timerlab bench --build-only)", staged)
	}
	if _, err := os.Stat(staged); err != nil {
		return fmt.Errorf("no binaries staged for %s %s in %s: build the matrix with timerlab bench --build-only "+
			"into a new directory", c.Variant, c.Set, staged)
	}
	root := filepath.Join(x.Dir, WorkDir, "prebuilt")
	cell, err := os.MkdirTemp(mkdirAll(root), ".cell-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cell)
	env := append(toolchain.RunEnv(lab.Variant{}), configs.ExecEnv(info)...)
	profiles := filepath.Join(cell, "profiles")
	var bins []string
	filepath.WalkDir(staged, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			bins = append(bins, path)
		}
		return nil
	})
	watch := newEnvWatch(bins, nil)
	var invocations [][]string
	var results []string // per invocation, the file its output goes to
	switch set.Tool {
	case suite.Sweet:
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
			tmps := 0
			tmp := func() string {
				tmps++
				return mkdirAll(filepath.Join(cell, "tmp", strconv.Itoa(tmps)))
			}
			for range x.count(c) {
				runs, err := sweetInvocations(b.Name, filepath.Join(staged, b.Name), assets, tmp)
				if err != nil {
					return err
				}
				for _, run := range runs {
					if c.Kind == matrix.Profile {
						// The driver's arguments come first, as sweet passes them.
						run = append([]string{run[0], "-results-dir", mkdirAll(filepath.Join(profiles, b.Name)), "-cpuprofile"}, run[1:]...)
					}
					invocations = append(invocations, run)
					results = append(results, filepath.Join(cell, "results", b.Name, info.Variant+".results"))
				}
			}
		}
	default:
		for _, b := range set.XBench {
			for i := range x.count(c) {
				run := []string{filepath.Join(staged, b.Suite+".test"), "-test.run=Nothing", "-test.bench=" + b.Bench}
				if c.Kind == matrix.Profile {
					run = append(run, "-test.cpuprofile="+filepath.Join(mkdirAll(profiles), fmt.Sprintf("%s-%d.prof", b.Suite, i)))
				}
				invocations = append(invocations, run)
				results = append(results, filepath.Join(cell, "results", "bent.stdout"))
			}
		}
	}
	cwd := mkdirAll(filepath.Join(cell, "cwd"))
	for i, run := range invocations {
		output, err := x.runPrebuilt(ctx, cwd, env, watch, run)
		if err != nil {
			return err
		}
		if err := appendFile(results[i], output); err != nil {
			return err
		}
	}
	if err := watch.check(info.Variant, info.GODEBUG); err != nil {
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
		data = append([]byte(watch.record()), data...)
	}
	return os.WriteFile(out, data, 0o644)
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
