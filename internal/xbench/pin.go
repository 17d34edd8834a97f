// Package xbench drives golang.org/x/benchmarks: it installs sweet and bent at the version
// xbench.conf pins, with the etcd source sweet's etcd benchmark builds, and runs the matrix cells
// of the Sweet and Bent benchmark sets with them (Executor). Neither tool nor any of their code is
// part of timerlab: they are installed under build/xbench and driven through their commands.
package xbench

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"timerlab/internal/lab"
)

// Pin is what xbench.conf pins: one commit of golang.org/x/benchmarks, as the pseudo-version go
// install takes, and the etcd release sweet's etcd benchmark builds, with its commit.
type Pin struct {
	Module      string // golang.org/x/benchmarks
	Version     string // a pseudo-version: v0.0.0-YYYYMMDDhhmmss-abcdefabcdef
	Repo        string // the git repository of Module, for checkouts
	EtcdRepo    string
	EtcdVersion string // the tag sweet clones, e.g. v3.6.0
	EtcdCommit  string // the commit of that tag, 40 hex digits
	// EtcdModules are etcd's modules at EtcdVersion, from which the tree sweet builds is
	// assembled where the clone fails: one line each, "DIR MODULE SUM" (etcdModules).
	EtcdModules string
}

// An etcdModule is one of etcd's modules at the pinned version: the directory it takes in etcd's
// tree and its go.sum hash of the module's zip (h1:).
type etcdModule struct {
	Dir, Module, Sum string
}

// etcdModules returns the pin's etcd modules, in order.
func (p Pin) etcdModules() []etcdModule {
	var out []etcdModule
	for _, line := range strings.Split(p.EtcdModules, "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			out = append(out, etcdModule{Dir: f[0], Module: f[1], Sum: f[2]})
		}
	}
	return out
}

// PinFile is the pin of a checkout; Dir is where the tools and sources are installed.
func PinFile(l lab.Layout) string { return filepath.Join(l.Root, "xbench.conf") }

// Dir is where timerlab xbench installs the tools (bin/) and sources (src/) of a checkout.
func Dir(l lab.Layout) string { return filepath.Join(l.Build, "xbench") }

var (
	pseudoVersion = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+-(?:0\.)?[0-9]{14}-([0-9a-f]{12})$`)
	fullCommit    = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// Commit is the abbreviated commit (12 hex digits) of the pinned pseudo-version.
func (p Pin) Commit() string {
	return pseudoVersion.FindStringSubmatch(p.Version)[1]
}

// ReadPin parses the key=value lines of an xbench.conf ('#' starts a comment line).
func ReadPin(path string) (Pin, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Pin{}, err
	}
	kv := map[string]string{}
	var modules []string
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return Pin{}, fmt.Errorf("%s:%d: want key=value, got %q", path, n+1, line)
		}
		if k == "etcd_module" {
			f := strings.Fields(v)
			if len(f) != 3 || !strings.HasPrefix(f[2], "h1:") || filepath.IsAbs(f[0]) || strings.Contains(f[0], "..") {
				return Pin{}, fmt.Errorf("%s:%d: want etcd_module=DIR MODULE h1:SUM, got %q", path, n+1, v)
			}
			modules = append(modules, strings.Join(f, " "))
			continue
		}
		kv[k] = v
	}
	p := Pin{Module: kv["module"], Version: kv["version"], Repo: kv["repo"], EtcdRepo: kv["etcd_repo"],
		EtcdVersion: kv["etcd_version"], EtcdCommit: kv["etcd_commit"], EtcdModules: strings.Join(modules, "\n")}
	switch {
	case p.Module == "" || p.Repo == "" || p.EtcdRepo == "" || p.EtcdVersion == "":
		return p, fmt.Errorf("%s: want module=, version=, repo=, etcd_repo=, etcd_version= and etcd_commit=", path)
	case !pseudoVersion.MatchString(p.Version):
		return p, fmt.Errorf("%s: version=%s is not the pseudo-version of one commit (v0.0.0-YYYYMMDDhhmmss-abcdefabcdef)",
			path, p.Version)
	case !fullCommit.MatchString(p.EtcdCommit):
		return p, fmt.Errorf("%s: etcd_commit=%s: want the 40 hex digits of the commit %s names", path, p.EtcdCommit, p.EtcdVersion)
	}
	return p, nil
}
