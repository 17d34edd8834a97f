package xbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/BurntSushi/toml"

	"timerlab/internal/atomicfile"
	"timerlab/internal/configs"
	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/suite"
	"timerlab/internal/toolchain"
)

// WorkDir is the directory, under a results directory, where sweet and bent work: sweet's work
// directory (the benchmarks' builds) and the stand-in assets, and bent's directory (its copies of
// the GOROOTs, its test binaries, its module directories). It holds nothing the report reads, and
// can be removed once the matrix is done.
const WorkDir = "xbench"

// Executor runs the cells of a matrix's Sweet and Bent sets (matrix.Executor), one at a time.
//
// A build cell has the tool build the set's benchmarks with the variant's toolchain: sweet in a
// short run (sweet always builds before it runs; this run fails early and warms the build cache for
// the rounds), bent without running (-N 0). Its file lists the binaries built, each checked to be
// built by the variant's toolchain. A run cell is one `sweet run -count N` or `bent -N N` of the
// set with the variant alone, its output in Go benchmark format; a profile cell is one more run
// with sweet's cpuprofile diagnostic or bent's cpuprofile wrapper, the CPU profiles it writes
// merged into one. After every cell the binaries that ran are checked again; a prebuilt cell
// (pack.go) checks the staged binaries before it runs them.
type Executor struct {
	Dir   string // the results directory
	Tools *Tools // sweet and bent at the pin
	// Toolchains holds each variant's toolchain and Infos what the build recorded of it (its go
	// version, GOEXPERIMENT and GODEBUG, which the configurations pass on), by variant name.
	Toolchains map[string]*toolchain.Toolchain
	Infos      map[string]toolchain.Info
	Sets       map[string]suite.Set // by set name
	Count      int                  // runs per run cell: sweet's -count, bent's -N
	// EtcdRequests is the requests of each etcd benchmark in a prebuilt run (etcdLoad); 0:
	// sweet's load. A run with the tools runs sweet's load whatever it is.
	EtcdRequests int
	// Stage has each build cell stage its binaries for a prebuilt run (timerlab bench
	// --build-only: pack.go). Without Tools, the cells run from the binaries staged so (prebuilt).
	Stage   bool
	Timeout time.Duration // limit for one cell
	Log     io.Writer
}

var _ matrix.Executor = (*Executor)(nil)

// Execute implements matrix.Executor.
func (x *Executor) Execute(ctx context.Context, c matrix.Cell, out string) error {
	set, ok := x.Sets[c.Set]
	if !ok || set.Tool == suite.GoTest {
		return fmt.Errorf("no set %s of sweet or bent", c.Set)
	}
	ctx, cancel := context.WithTimeout(ctx, x.Timeout)
	defer cancel()
	info, ok := x.Infos[c.Variant]
	if ok && x.Tools == nil {
		return x.prebuilt(ctx, set, c, info, out)
	}
	tc := x.Toolchains[c.Variant]
	if !ok || tc == nil {
		return fmt.Errorf("variant %s: no toolchain to build %s with here: build it where the toolchains are "+
			"(timerlab bench --build-only), and run it with --prebuilt", c.Variant, c.Set)
	}
	if set.Tool == suite.Sweet {
		return x.sweet(ctx, set, c, info, out)
	}
	return x.bent(ctx, set, c, tc, info, out)
}

func (x *Executor) count(c matrix.Cell) int {
	if c.Kind == matrix.Run {
		return x.Count
	}
	return 1
}

// sweet runs one cell of a Sweet set.
func (x *Executor) sweet(ctx context.Context, set suite.Set, c matrix.Cell, info toolchain.Info, out string) error {
	root := filepath.Join(x.Dir, WorkDir, "sweet")
	work, assets := filepath.Join(root, "work"), filepath.Join(root, "assets")
	if err := writeAssets(assets); err != nil {
		return err
	}
	if slices.Contains(set.XBenchNames(), "etcd") {
		// sweet clones etcd into work/etcd/src unless it is there.
		if err := symlink(x.Tools.Etcd, filepath.Join(work, "etcd", "src")); err != nil {
			return err
		}
		if err := portsFree(etcdPorts); err != nil {
			return err
		}
	}
	cell, err := os.MkdirTemp(root, ".cell-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cell) // sweet's logs: etcd's are ~120 MB a run
	config, err := configs.Sweet([]toolchain.Info{info}, c.Kind == matrix.Profile)
	if err != nil {
		return err
	}
	configFile, results := filepath.Join(root, configName(info.Variant, c.Kind == matrix.Profile)), filepath.Join(cell, "results")
	if err := atomicfile.WriteFile(configFile, config); err != nil {
		return err
	}
	args := []string{"run", "-count", strconv.Itoa(x.count(c)), "-bench-dir", x.Tools.SweetBenchDir(),
		"-assets-dir", assets, "-work-dir", work, "-results", results, "-stop-on-error",
		"-run", strings.Join(set.XBenchNames(), ",")}
	var bins []string
	for _, name := range set.XBenchNames() {
		bins = append(bins, filepath.Join(work, name, info.Variant, "bin"))
	}
	var watch *envWatch
	if c.Kind == matrix.Build {
		args = append(args, "-short")
	} else {
		watch = newEnvWatch(nil, bins)
	}
	if _, err := x.run(ctx, root, toolchain.RunEnv(lab.Variant{}), watch, x.Tools.Sweet, append(args, configFile)...); err != nil {
		return err
	}
	if err := watch.check(info.Variant, info.GODEBUG); err != nil {
		return err
	}
	manifest, err := checkBinaries(bins, info)
	if err != nil {
		return err
	}
	var data []byte
	switch c.Kind {
	case matrix.Build:
		if x.Stage {
			from := map[string]string{}
			for i, name := range set.XBenchNames() {
				from[name] = bins[i]
			}
			if err := stage(x.Dir, c, from); err != nil {
				return err
			}
		}
		data = []byte(fmt.Sprintf("# The binaries sweet built for %s with %s's toolchain (under %s):\n%s", set.Name,
			info.Variant, work, manifest))
	case matrix.Run:
		data, err = SweetResults(results, set, info.Variant)
		data = append([]byte(watch.record()), data...)
	default:
		var profs []string
		for _, name := range set.XBenchNames() {
			found, _ := filepath.Glob(filepath.Join(results, name, info.Variant+".debug", "*-cpu.prof"))
			profs = append(profs, found...)
		}
		data, err = MergeProfiles(profs)
	}
	if err != nil {
		return err
	}
	return os.WriteFile(out, data, 0o644)
}

// configName is the file, in sweet's or bent's directory, of the configuration of variant's runs,
// with the CPU profiler or without.
func configName(variant string, profile bool) string {
	return fmt.Sprintf("timerlab-%s-%s.toml", variant, map[bool]string{false: "run", true: "cpuprofile"}[profile])
}

// run runs a tool's command (run, below), first saying what it runs on x.Log.
func (x *Executor) run(ctx context.Context, dir string, env []string, watch *envWatch, name string, args ...string) ([]byte, error) {
	fmt.Fprintf(x.Log, "timerlab:   (cd %s && %s %s)\n", dir, filepath.Base(name), strings.Join(args, " "))
	return run(ctx, dir, env, watch, name, args...)
}

// etcdPorts are the ports sweet's etcd cluster listens on: three servers, a client and a peer
// port each.
var etcdPorts = []int{2379, 2380, 2381, 2382, 2383, 2384}

// portsFree reports an error naming the first of ports something listens on at 127.0.0.1.
func portsFree(ports []int) error {
	for _, p := range ports {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			return fmt.Errorf("port %d is in use, and sweet's etcd cluster needs %d-%d free: stop what listens there",
				p, ports[0], ports[len(ports)-1])
		}
		l.Close()
	}
	return nil
}

// symlink makes link point to target, replacing a link that points elsewhere.
func symlink(target, link string) error {
	if have, err := os.Readlink(link); err == nil && have == target {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	if err := os.Remove(link); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Symlink(target, link)
}

// checkBinaries checks that every file in the directories dirs was built by info's toolchain, and
// returns a line for each: its path and Go version. A directory without files is an error.
func checkBinaries(dirs []string, info toolchain.Info) (string, error) {
	var b strings.Builder
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return "", fmt.Errorf("no binaries built: %v", err)
		}
		if len(entries) == 0 {
			return "", fmt.Errorf("no binaries built in %s", dir)
		}
		for _, e := range entries {
			bin := filepath.Join(dir, e.Name())
			if err := CheckBuiltBy(bin, info.Version); err != nil {
				return "", err
			}
			v, _ := GoVersion(info.Version)
			fmt.Fprintf(&b, "%s %s\n", bin, v)
		}
	}
	return b.String(), nil
}

// bent runs one cell of a Bent set in the results directory's bent directory.
func (x *Executor) bent(ctx context.Context, set suite.Set, c matrix.Cell, tc *toolchain.Toolchain, info toolchain.Info,
	out string) error {
	dir := filepath.Join(x.Dir, WorkDir, "bent")
	env, err := bentEnv(ctx, tc)
	if err != nil {
		return err
	}
	if err := initBent(ctx, dir, env, x.Tools.Bent); err != nil {
		return err
	}
	benchFile := filepath.Join(dir, "timerlab-"+set.Name+".toml")
	list, err := BentBenchmarks(set)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(benchFile, list); err != nil {
		return err
	}
	profile := c.Kind == matrix.Profile
	config, err := configs.Bent([]toolchain.Info{info}, profile)
	if err != nil {
		return err
	}
	configFile := filepath.Join(dir, configName(info.Variant, profile))
	if err := atomicfile.WriteFile(configFile, config); err != nil {
		return err
	}
	if err := clearBentOutput(dir, info.Variant); err != nil {
		return err
	}
	defer clearBentOutput(dir, info.Variant)
	var bins []string
	for _, xb := range set.XBench {
		bins = append(bins, filepath.Join(dir, "testbin", xb.Suite+"_"+info.Variant))
	}
	args := []string{"-r", "local", "-N", strconv.Itoa(x.count(c)), "-C", configFile, "-B", benchFile}
	var watch *envWatch
	if c.Kind == matrix.Build {
		for _, bin := range bins {
			if err := os.Remove(bin); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		args = []string{"-N", "0", "-C", configFile, "-B", benchFile} // get and build, run nothing
	} else {
		watch = newEnvWatch(bins, nil)
	}
	output, err := x.run(ctx, dir, env, watch, x.Tools.Bent, args...)
	if err != nil {
		return err
	}
	if err := watch.check(info.Variant, info.GODEBUG); err != nil {
		return err
	}
	var manifest strings.Builder
	for _, bin := range bins {
		if _, err := os.Stat(bin); err != nil {
			return fmt.Errorf("bent built no %s:\n%s", filepath.Base(bin), tail(output))
		}
		if err := CheckBuiltBy(bin, info.Version); err != nil {
			return err
		}
		v, _ := GoVersion(info.Version)
		fmt.Fprintf(&manifest, "%s %s\n", bin, v)
	}
	stdout, err := bentOutput(dir, info.Variant, "stdout")
	if err != nil {
		return err
	}
	var data []byte
	switch c.Kind {
	case matrix.Build:
		if x.Stage {
			from := map[string]string{}
			for i, xb := range set.XBench {
				from[xb.Suite+".test"] = bins[i]
			}
			if err := stage(x.Dir, c, from); err != nil {
				return err
			}
		}
		build, _ := bentOutput(dir, info.Variant, "build") // bent's build times, in benchmark format
		data = []byte(fmt.Sprintf("# The test binaries bent built for %s with %s's toolchain:\n%s%s", set.Name,
			info.Variant, manifest.String(), readOr(build)))
	case matrix.Run:
		if data, err = os.ReadFile(stdout); err == nil {
			err = BentResults(data, set)
			data = append([]byte(watch.record()), data...)
		}
	default:
		profiles, _ := bentOutput(dir, info.Variant, "profiles")
		files, _ := filepath.Glob(filepath.Join(profiles, "*.prof"))
		data, err = MergeProfiles(files)
	}
	if err != nil {
		return err
	}
	return os.WriteFile(out, data, 0o644)
}

// bentEnv is the environment bent runs in: the caller's without Go settings, with the variant's
// go first in PATH (bent's go get and go list use the go on PATH), no toolchain switching, and the
// go command's module cache (bent sets GOPATH to its own directory, which would otherwise hold a
// second copy of every module).
func bentEnv(ctx context.Context, tc *toolchain.Toolchain) ([]string, error) {
	modcache, err := tc.Output(ctx, tc.GOROOT, "env", "GOMODCACHE")
	if err != nil {
		return nil, err
	}
	env := slices.DeleteFunc(toolchain.RunEnv(lab.Variant{}), func(kv string) bool { return strings.HasPrefix(kv, "PATH=") })
	return append(env, "GOTOOLCHAIN=local", "GOWORK=off", "GOMODCACHE="+modcache,
		"PATH="+filepath.Join(tc.GOROOT, "bin")+string(os.PathListSeparator)+os.Getenv("PATH")), nil
}

// initBent makes dir a directory bent runs in (bent -I: its scripts, the cpuprofile wrapper
// among them, and its suites.toml), unless it is one.
func initBent(ctx context.Context, dir string, env []string, bent string) error {
	if _, err := os.Stat(filepath.Join(dir, "Dockerfile")); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".bent-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if _, err := run(ctx, tmp, env, nil, bent, "-I"); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// BentBenchmarks returns the bent benchmarks file (-B) of a Bent set.
func BentBenchmarks(set suite.Set) ([]byte, error) {
	type benchmark struct{ Name, Suite, Benchmarks string }
	var doc struct{ Benchmarks []benchmark }
	for _, x := range set.XBench {
		doc.Benchmarks = append(doc.Benchmarks, benchmark{x.Name, x.Suite, x.Bench})
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The benchmarks of timerlab's set %s (internal/suite), written by timerlab bench.\n", set.Name)
	err := toml.NewEncoder(&b).Encode(doc)
	return b.Bytes(), err
}

// bentOutput returns bent's output of kind (stdout, build, profiles) for config: the one path
// bench/STAMP.CONFIG.KIND.
func bentOutput(dir, config, kind string) (string, error) {
	paths, err := bentOutputs(dir, config)
	if err != nil {
		return "", err
	}
	var found []string
	for _, p := range paths {
		if strings.HasSuffix(p, "."+kind) {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("bent wrote %d %s files for %s in %s/bench, want 1", len(found), kind, config, dir)
	}
	return found[0], nil
}

// bentOutputs lists what bent wrote for config in dir/bench: STAMP.CONFIG.KIND, STAMP without a dot.
func bentOutputs(dir, config string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "bench"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		_, rest, _ := strings.Cut(e.Name(), ".")
		i := strings.LastIndex(rest, ".")
		if i >= 0 && rest[:i] == config {
			paths = append(paths, filepath.Join(dir, "bench", e.Name()))
		}
	}
	return paths, nil
}

// clearBentOutput removes what bent wrote for config in dir/bench: a cell's output was taken, or
// belongs to an interrupted cell.
func clearBentOutput(dir, config string) error {
	paths, err := bentOutputs(dir, config)
	for _, p := range paths {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	return err
}

func readOr(path string) string {
	data, _ := os.ReadFile(path)
	return string(data)
}

// run runs name with args in dir, in a process group of its own that is killed if ctx ends or
// the command fails, so that no server it started outlives it (etcd's). It returns the combined
// output; an error holds its tail. watch, if any, watches the group while the command runs.
func run(ctx context.Context, dir string, env []string, watch *envWatch, name string, args ...string) ([]byte, error) {
	var buf bytes.Buffer
	if err := runGroup(ctx, dir, env, watch, &buf, &buf, name, args...); err != nil {
		return nil, fmt.Errorf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, tail(buf.Bytes()))
	}
	return buf.Bytes(), nil
}

// runStdout is run for a benchmark driver, whose standard output is its results: it returns the
// standard output alone; an error holds the tail of both. Only the last 64 KiB of both are kept:
// etcd's driver copies its servers' logs to its standard error, about 120 MB a run.
func runStdout(ctx context.Context, dir string, env []string, watch *envWatch, name string, args ...string) ([]byte, error) {
	var stdout bytes.Buffer
	both := &tailBuffer{max: 64 << 10}
	if err := runGroup(ctx, dir, env, watch, io.MultiWriter(&stdout, both), both, name, args...); err != nil {
		return nil, fmt.Errorf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, tail(both.buf))
	}
	return stdout.Bytes(), nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// runGroup runs name with args as run says, its output to stdout and stderr.
func runGroup(ctx context.Context, dir string, env []string, watch *envWatch, stdout, stderr io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Start()
	if err == nil {
		watch.start(cmd.Process.Pid)
		err = cmd.Wait()
		watch.stop()
	}
	if err != nil {
		if cmd.Process != nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%v (%v)", err, context.Cause(ctx))
		}
	}
	return err
}

// tail returns the last lines of output, enough to show why a command failed.
func tail(output []byte) string {
	lines := strings.Split(strings.TrimRight(string(output), "\n"), "\n")
	if len(lines) > 25 {
		lines = lines[len(lines)-25:]
	}
	return strings.Join(lines, "\n")
}
