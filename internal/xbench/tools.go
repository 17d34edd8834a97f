package xbench

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"timerlab/internal/atomicfile"
	"timerlab/internal/lab"
	"timerlab/internal/results"
	"timerlab/internal/suite"
)

// The environment variables that name local checkouts, for machines whose module proxy refuses
// golang.org/x/benchmarks or that cannot reach etcd's repository.
const (
	SrcEnv     = "TIMERLAB_XBENCH_SRC" // a git checkout of golang.org/x/benchmarks at the pinned commit
	EtcdSrcEnv = "TIMERLAB_ETCD_SRC"   // a git checkout of etcd at the pinned tag
)

// Tools are sweet and bent installed at the pin, with the sources they build from.
type Tools struct {
	Pin   Pin    `json:"pin"`
	Sweet string `json:"sweet"` // the sweet command
	Bent  string `json:"bent"`  // the bent command
	// Benchmarks is golang.org/x/benchmarks' source at the pin (the module's directory in the
	// module cache, or a checkout): sweet builds its benchmarks' drivers from Benchmarks/sweet/benchmarks.
	Benchmarks string `json:"benchmarks"`
	// Etcd is etcd's source at the pin, which sweet's etcd benchmark builds (make build writes
	// its bin/ there); "" where Install could not get it (EtcdError says why), which blocks only
	// the sets that build etcd (NeedEtcd).
	Etcd      string `json:"etcd"`
	EtcdError string `json:"etcd_error,omitempty"`
}

// NeedEtcd reports, in one line saying how to provide it, that etcd's source is not installed,
// where one of sets builds etcd (sweet's etcd benchmark).
func (t *Tools) NeedEtcd(sets []suite.Set) error {
	if t.Etcd != "" {
		return nil
	}
	for _, s := range sets {
		if slices.Contains(s.XBenchNames(), "etcd") {
			return fmt.Errorf("set %s builds etcd %s, whose source timerlab xbench could not get (%s): run it again "+
				"with %s naming a git checkout of etcd at %s, or where the clone or the module proxy works",
				s.Name, t.Pin.EtcdVersion, t.EtcdError, EtcdSrcEnv, t.Pin.EtcdVersion)
		}
	}
	return nil
}

const toolsFile = "tools.json"

// SweetBenchDir is sweet run's -bench-dir.
func (t *Tools) SweetBenchDir() string {
	return filepath.Join(t.Benchmarks, "sweet", "benchmarks")
}

// missing is the one line that says how to install the tools.
func missing(l lab.Layout, pin Pin, why string) error {
	return fmt.Errorf("sweet and bent at %s@%s are not installed in %s (%s): run `timerlab xbench` (make xbench), "+
		"which runs go install %s/...@%s, or, where the module proxy refuses it, builds them from the checkout %s names "+
		"(commit %s of %s), with etcd %s from %s or the checkout %s names",
		pin.Module, pin.Version, Dir(l), why, pin.Module, pin.Version, SrcEnv, pin.Commit(), pin.Repo,
		pin.EtcdVersion, pin.EtcdRepo, EtcdSrcEnv)
}

// Open returns the tools timerlab xbench installed for the checkout l, each checked against the
// pin: sweet and bent built from the pinned module version, golang.org/x/benchmarks' source and
// etcd's at the pinned commits. Anything missing or at another version is an error of one line
// saying how to install them.
func Open(ctx context.Context, l lab.Layout) (*Tools, error) {
	pin, err := ReadPin(PinFile(l))
	if err != nil {
		return nil, err
	}
	var t Tools
	data, err := os.ReadFile(filepath.Join(Dir(l), toolsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, missing(l, pin, "no "+toolsFile)
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, missing(l, pin, fmt.Sprintf("%s: %v", toolsFile, err))
	}
	if t.Pin.record() != pin.record() {
		return nil, missing(l, pin, fmt.Sprintf("they were installed for %s@%s and etcd %s", t.Pin.Module, t.Pin.Version,
			t.Pin.EtcdCommit))
	}
	t.Pin = pin // the releases are the pin's; an etcd tree's modules are checked against the pin's (checkEtcd)
	if err := t.check(ctx); err != nil {
		return nil, missing(l, pin, err.Error())
	}
	return &t, nil
}

// check verifies the installed tools and sources against t.Pin.
func (t *Tools) check(ctx context.Context) error {
	for _, bin := range []string{t.Sweet, t.Bent} {
		if err := t.Pin.CheckTool(bin); err != nil {
			return err
		}
	}
	if err := t.Pin.checkSource(ctx, t.Benchmarks); err != nil {
		return err
	}
	if t.Etcd == "" {
		return nil
	}
	return t.Pin.checkEtcd(ctx, t.Etcd)
}

// etcdMark is the file, in an etcd tree assembled from the module proxy, that records the modules
// it was assembled from (Pin.EtcdModules, at Pin.EtcdVersion).
const etcdMark = ".timerlab-etcd-modules"

// etcdMarkText is what etcdMark holds for the pin.
func (p Pin) etcdMarkText() string {
	return fmt.Sprintf("etcd %s from the module proxy:\n%s\n", p.EtcdVersion, p.EtcdModules)
}

// checkEtcd reports an error unless dir is etcd's source at the pin: a git checkout of the pinned
// commit, or a tree assembled from the pinned modules, as its etcdMark records.
func (p Pin) checkEtcd(ctx context.Context, dir string) error {
	mark, err := os.ReadFile(filepath.Join(dir, etcdMark))
	if errors.Is(err, fs.ErrNotExist) {
		return checkCommit(ctx, dir, p.EtcdCommit)
	}
	if err != nil {
		return err
	}
	if string(mark) != p.etcdMarkText() {
		return fmt.Errorf("%s was assembled from other modules than xbench.conf's etcd_module lines (%s)", dir, etcdMark)
	}
	return nil
}

// CheckTool reports an error unless the command bin was built from the pinned module version, as
// its build information records it: go install at the version, or a build in a clean checkout of
// the pinned commit, which the go command stamps with the same pseudo-version.
func (p Pin) CheckTool(bin string) error {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return fmt.Errorf("%s: %v", bin, err)
	}
	if bi.Main.Path != p.Module || bi.Main.Version != p.Version {
		return fmt.Errorf("%s is %s@%s, not %s@%s", bin, bi.Main.Path, bi.Main.Version, p.Module, p.Version)
	}
	return nil
}

// checkSource reports an error unless dir is golang.org/x/benchmarks' source at the pin: the
// module's directory in the module cache (path@version, which the go command verified), or a
// clean git checkout of the commit.
func (p Pin) checkSource(ctx context.Context, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "sweet", "benchmarks")); err != nil {
		return fmt.Errorf("%s is not golang.org/x/benchmarks' source: %v", dir, err)
	}
	if filepath.Base(dir) == filepath.Base(p.Module)+"@"+p.Version {
		return nil
	}
	return checkCheckout(ctx, dir, p.Commit())
}

// checkCheckout reports an error unless dir is a git checkout of commit (a prefix of its hash)
// with no change to its tracked files and no untracked file.
func checkCheckout(ctx context.Context, dir, commit string) error {
	if err := checkCommit(ctx, dir, commit); err != nil {
		return err
	}
	status, err := git(ctx, dir, "status", "--porcelain")
	if err != nil {
		return err
	}
	if status != "" {
		return fmt.Errorf("the checkout %s has changes (git status: %s)", dir, strings.ReplaceAll(status, "\n", "; "))
	}
	return nil
}

// checkCommit reports an error unless the git checkout dir is at commit (a prefix of its hash).
func checkCommit(ctx context.Context, dir, commit string) error {
	head, err := git(ctx, dir, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	if !strings.HasPrefix(head, commit) {
		return fmt.Errorf("the checkout %s is at commit %.12s, the pin (xbench.conf) is %s", dir, head, commit)
	}
	return nil
}

// git runs git in dir and returns its trimmed output; an error holds its stderr.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git -C %s %s: %v: %s", dir, strings.Join(args, " "), err, firstLine(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// Install gets sweet, bent and etcd's source at the pin of the checkout l into Dir(l), unless they
// are there already, and returns them. It prefers the checkouts the environment names (SrcEnv,
// EtcdSrcEnv), checked to be at the pinned commits; without them it runs go install at the pinned
// version and clones etcd's tag. Where neither way works, the error is one line naming both. What
// an install that fails leaves behind is removed; what is installed already is replaced only once
// its replacement is complete.
func Install(ctx context.Context, l lab.Layout, log io.Writer) (*Tools, error) {
	if t, err := Open(ctx, l); err == nil {
		fmt.Fprintf(log, "timerlab: sweet and bent at %s@%s are installed in %s\n", t.Pin.Module, t.Pin.Version, Dir(l))
		if t.Etcd == "" {
			return t, addEtcd(ctx, t, Dir(l), log)
		}
		return t, nil
	}
	pin, err := ReadPin(PinFile(l))
	if err != nil {
		return nil, err
	}
	dir := Dir(l)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(dir, ".install-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	t := &Tools{Pin: pin, Sweet: filepath.Join(dir, "bin", "sweet"), Bent: filepath.Join(dir, "bin", "bent"),
		Etcd: filepath.Join(dir, "src", "etcd")}
	in := installer{ctx: ctx, pin: pin, tmp: tmp, log: log}
	benchmarks, err := in.tools()
	if err != nil {
		return nil, err
	}
	if err := in.etcd(t.Etcd); err != nil {
		if os.Getenv(EtcdSrcEnv) != "" {
			return nil, err // the checkout named is refused: a mistake to say, not to install around
		}
		// Only the sets that build etcd need it (NeedEtcd): the rest install and run.
		fmt.Fprintf(log, "timerlab: warning: %v (sweet-etcd cannot run until timerlab xbench gets it)\n", err)
		t.Etcd, t.EtcdError = "", err.Error()
	}
	// Everything is in tmp: move it into place.
	t.Benchmarks = benchmarks
	if strings.HasPrefix(benchmarks, tmp) {
		t.Benchmarks = filepath.Join(dir, "src", "benchmarks")
		if err := replace(benchmarks, t.Benchmarks); err != nil {
			return nil, err
		}
	}
	for _, bin := range []string{t.Sweet, t.Bent} {
		if err := replace(filepath.Join(tmp, "bin", filepath.Base(bin)), bin); err != nil {
			return nil, err
		}
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, toolsFile), append(data, '\n')); err != nil {
		return nil, err
	}
	if err := t.check(ctx); err != nil {
		return nil, err
	}
	etcd := fmt.Sprintf(", and etcd %s", pin.EtcdVersion)
	if t.Etcd == "" {
		etcd = ", without etcd"
	}
	fmt.Fprintf(log, "timerlab: installed sweet and bent at %s@%s%s, in %s\n", pin.Module, pin.Version, etcd, dir)
	return t, nil
}

// addEtcd gets etcd's source for tools installed without it (Tools.Etcd ""), into dir/src/etcd, and
// records it in dir's tools file. Where it still cannot be had, tools stay as they were: an
// error if the checkout EtcdSrcEnv names is refused, a warning on log otherwise.
func addEtcd(ctx context.Context, t *Tools, dir string, log io.Writer) error {
	tmp, err := os.MkdirTemp(dir, ".install-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	in := installer{ctx: ctx, pin: t.Pin, tmp: tmp, log: log}
	etcd := filepath.Join(dir, "src", "etcd")
	if err := in.etcd(etcd); err != nil {
		if os.Getenv(EtcdSrcEnv) != "" {
			return err
		}
		fmt.Fprintf(log, "timerlab: warning: %v (sweet-etcd cannot run until timerlab xbench gets it)\n", err)
		return nil
	}
	t.Etcd, t.EtcdError = etcd, ""
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, toolsFile), append(data, '\n')); err != nil {
		return err
	}
	fmt.Fprintf(log, "timerlab: installed etcd %s in %s\n", t.Pin.EtcdVersion, etcd)
	return nil
}

// installer does the steps of Install in its temporary directory.
type installer struct {
	ctx context.Context
	pin Pin
	tmp string // tmp/bin gets the commands
	log io.Writer
}

// tools installs sweet and bent into tmp/bin and returns the directory of the source they were
// built from: the module cache's, or a checkout under tmp.
func (in installer) tools() (string, error) {
	p := in.pin
	if src := os.Getenv(SrcEnv); src != "" {
		if err := checkCheckout(in.ctx, src, p.Commit()); err != nil {
			return "", fmt.Errorf("%s: %v", SrcEnv, err)
		}
		clone := filepath.Join(in.tmp, "benchmarks")
		if err := in.clone(src, clone); err != nil {
			return "", err
		}
		fmt.Fprintf(in.log, "timerlab: building sweet and bent from %s (%s) at %s\n", src, SrcEnv, p.Commit())
		// -buildvcs=true: the go command then stamps the module's version from the commit, the
		// pseudo-version of the pin, which CheckTool reads back.
		if _, err := in.goCmd(clone, "install", "-buildvcs=true", "./sweet/cmd/sweet", "./cmd/bent"); err != nil {
			return "", err
		}
		return clone, nil
	}
	fmt.Fprintf(in.log, "timerlab: go install %s/sweet/cmd/sweet and %s/cmd/bent at %s\n", p.Module, p.Module, p.Version)
	_, err := in.goCmd(in.tmp, "install", p.Module+"/sweet/cmd/sweet@"+p.Version, p.Module+"/cmd/bent@"+p.Version)
	if err != nil {
		return "", fmt.Errorf("cannot get %s@%s: %v; where the module proxy refuses it, set %s to a git checkout of %s "+
			"at commit %s and run again", p.Module, p.Version, err, SrcEnv, p.Repo, p.Commit())
	}
	out, err := in.goCmd(in.tmp, "mod", "download", "-json", p.Module+"@"+p.Version)
	if err != nil {
		return "", err
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal([]byte(out), &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: no directory in %q", p.Module, p.Version, out)
	}
	return mod.Dir, nil
}

// etcd puts etcd's source at the pin into dest, unless it is there already: a clone of the
// checkout EtcdSrcEnv names, else of the pinned tag, else a tree assembled from the module proxy's
// zips of the pinned modules (fromProxy).
func (in installer) etcd(dest string) error {
	p := in.pin
	if p.checkEtcd(in.ctx, dest) == nil {
		return nil
	}
	clone := filepath.Join(in.tmp, "etcd")
	if src := os.Getenv(EtcdSrcEnv); src != "" {
		if err := checkCommit(in.ctx, src, p.EtcdCommit); err != nil {
			return fmt.Errorf("%s: %v", EtcdSrcEnv, err)
		}
		if err := in.clone(src, clone); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(in.log, "timerlab: git clone %s at %s\n", p.EtcdRepo, p.EtcdVersion)
		cmd := exec.CommandContext(in.ctx, "git", "clone", "-q", "--depth", "1", "--branch", p.EtcdVersion, p.EtcdRepo, clone)
		if out, err := cmd.CombinedOutput(); err != nil {
			cloneErr := lastLine(string(out))
			os.RemoveAll(clone)
			proxyErr := errors.New("xbench.conf pins no etcd_module")
			if len(p.etcdModules()) > 0 {
				fmt.Fprintf(in.log, "timerlab: git clone failed (%s); assembling etcd %s from the module proxy\n", cloneErr,
					p.EtcdVersion)
				if proxyErr = in.fromProxy(clone); proxyErr == nil {
					return replace(clone, dest)
				}
			}
			return fmt.Errorf("cannot get etcd %s: git clone %s: %s; from the module proxy: %v; set %s to a git checkout "+
				"of etcd at %s (commit %.12s) and run again", p.EtcdVersion, p.EtcdRepo, cloneErr, proxyErr, EtcdSrcEnv,
				p.EtcdVersion, p.EtcdCommit)
		}
		if err := checkCommit(in.ctx, clone, p.EtcdCommit); err != nil {
			return fmt.Errorf("etcd %s from %s: %v (the tag moved?)", p.EtcdVersion, p.EtcdRepo, err)
		}
	}
	return replace(clone, dest)
}

// fromProxy assembles etcd's tree at the pin in dest from the module proxy: each pinned module's
// zip (go mod download, which the checksum database verifies) checked against the pinned sum and
// copied to its directory, files writable and scripts executable as in a checkout (a zip keeps no
// modes), and etcdMark written last.
func (in installer) fromProxy(dest string) error {
	p := in.pin
	for _, m := range p.etcdModules() {
		// go mod download -json says why it failed in its output's Error, not on stderr.
		out, err := in.goCmd(in.tmp, "mod", "download", "-json", m.Module+"@"+p.EtcdVersion)
		var mod struct{ Dir, Sum, Error string }
		if jsonErr := json.Unmarshal([]byte(out), &mod); mod.Error != "" || err != nil || jsonErr != nil || mod.Dir == "" {
			why := firstLine(mod.Error)
			if why == "" && err != nil {
				why = err.Error()
			}
			return fmt.Errorf("go mod download %s@%s: %s", m.Module, p.EtcdVersion, why)
		}
		if mod.Sum != m.Sum {
			return fmt.Errorf("%s@%s has sum %s, xbench.conf pins %s", m.Module, p.EtcdVersion, mod.Sum, m.Sum)
		}
		if err := CopyTree(mod.Dir, filepath.Join(dest, m.Dir)); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dest, etcdMark), []byte(p.etcdMarkText()), 0o644)
}

// CopyTree copies the directories and regular files under src into dest, writable by their owner
// (a module cache's are read-only): directories 0755, files 0644, and 0755 for shell scripts
// (*.sh), which etcd's make runs.
func CopyTree(src, dest string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dest, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(path, ".sh") {
			mode = 0o755
		}
		return os.WriteFile(target, data, mode)
	})
}

// clone makes dest a checkout of the commit the checkout src is at, so that what builds there (etcd's
// make writes into its tree) leaves src alone.
func (in installer) clone(src, dest string) error {
	head, err := git(in.ctx, src, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	if out, err := exec.CommandContext(in.ctx, "git", "clone", "-q", "--no-checkout", src, dest).CombinedOutput(); err != nil {
		return fmt.Errorf("git clone %s: %v: %s", src, err, lastLine(string(out)))
	}
	_, err = git(in.ctx, dest, "checkout", "-q", "--detach", head)
	return err
}

// goCmd runs the go command on PATH in dir, with its binaries going to tmp/bin, and returns its
// stdout; an error holds the last line of its stderr.
func (in installer) goCmd(dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(in.ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOBIN="+filepath.Join(in.tmp, "bin"), "GOWORK=off", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("go %s: %s", args[0], goError(stderr.String()))
	}
	return string(out), nil
}

// replace moves src to dest, in place of what dest holds (removed only once src is complete).
func replace(src, dest string) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	old := dest + ".old"
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	if err := os.Rename(dest, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(src, dest); err != nil {
		os.Rename(old, dest)
		return err
	}
	return os.RemoveAll(old)
}

// goError returns the line of a go command's stderr that says why it failed: its last "go: " line.
func goError(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if line, ok := strings.CutPrefix(lines[i], "go: "); ok {
			if _, reading, ok := strings.Cut(line, ": reading "); ok {
				return "reading " + strings.TrimSpace(reading) // the module proxy's answer
			}
			return strings.TrimSpace(line)
		}
	}
	return lastLine(stderr)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// lastLine returns the last non-empty line of s, where commands say why they failed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// record is what a results directory records of the pin: the releases, not where etcd's source
// came from (a clone of the commit, or the modules of the release: the same files).
func (p Pin) record() results.XBenchPin {
	return results.XBenchPin{Module: p.Module, Version: p.Version, Repo: p.Repo, EtcdRepo: p.EtcdRepo,
		EtcdVersion: p.EtcdVersion, EtcdCommit: p.EtcdCommit}
}

// Record records in the results directory dir the pin of tools (results.WriteXBenchPin), unless it
// is recorded there already; a directory whose cells ran with another pin is refused (their
// figures would not compare), before anything is written. With write false it only checks.
func Record(dir string, tools *Tools, write bool) error {
	have, err := results.ReadXBenchPin(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if !write {
			return nil
		}
		return results.WriteXBenchPin(dir, tools.Pin.record())
	}
	if err != nil {
		return err
	}
	if have != tools.Pin.record() {
		return fmt.Errorf("%s: its sweet and bent cells ran with %s@%s and etcd %s, these tools are %s@%s and etcd %s: "+
			"use another --out or remove it", dir, have.Module, have.Version, have.EtcdVersion, tools.Pin.Module,
			tools.Pin.Version, tools.Pin.EtcdVersion)
	}
	return nil
}
