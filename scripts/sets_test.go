package scripts_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addSet makes patch set name: a checkout of the base with one commit per subject, each adding a
// line to runtime/time.go, extracted into patches/NAME. A subject ending in "NEWFILE" also adds
// runtime/new.go with the header given by newHeader.
func (w *world) addSet(t *testing.T, name, newHeader string, subjects ...string) {
	t.Helper()
	dir := "build/work/" + name
	os.RemoveAll(w.path(dir))
	w.git(t, ".", "clone", "-q", "--shared", w.path("build/base/"+fakeVersion), w.path(dir))
	for i, s := range subjects {
		timeGo := dir + "/src/runtime/time.go"
		w.write(t, timeGo, w.read(t, timeGo)+"// change "+string(rune('a'+i))+"\n")
		if strings.HasSuffix(s, "NEWFILE") {
			w.write(t, dir+"/src/runtime/new.go", newHeader+"\npackage runtime\n")
		}
		if strings.HasSuffix(s, "LINUXFILE") {
			w.write(t, dir+"/src/internal/runtime/syscall/linux/new.go", newHeader+"\npackage linux\n")
		}
		w.git(t, dir, "add", "-A")
		w.git(t, dir, "commit", "-q", "-m", s)
	}
	w.mustRun(t, "extract-patches.sh", "--set", name, w.path(dir))
}

// TestPatchSet checks a patch set end to end: extracted into patches/SET, named as a variant's
// series, round-tripped by check-series.sh, built with its patches and without the shared series'
// or the overlay, and stamped with a hash of its own, so that a change to the set does not make the
// shared series' toolchains stale, and one to the shared series does not make the set's stale.
func TestPatchSet(t *testing.T) {
	w := newWorld(t)
	w.addSet(t, "pw", "", "runtime: one", "runtime: two")
	if got := w.read(t, "patches/pw/0002-runtime-two.patch"); !strings.Contains(got, "+// change b") {
		t.Fatalf("patches/pw/0002-runtime-two.patch lacks its change:\n%s", got)
	}
	w.write(t, "variants.conf", w.read(t, "variants.conf")+"pw pw - timerslack=1 a set\npw-off @pw - timerslack=0 its alias\n")
	w.mustRun(t, "check-series.sh")
	w.mustRun(t, "build-toolchain.sh", "heap")
	w.mustRun(t, "build-toolchain.sh", "pw")
	tc := w.read(t, "build/toolchains/pw/src/runtime/time.go")
	if !strings.Contains(tc, "// change b") || strings.Contains(tc, "(timerlab)") {
		t.Errorf("pw's toolchain has not its set's runtime alone:\n%s", tc)
	}
	if w.exists("build/toolchains/pw/src/runtime/timelab.go") {
		t.Errorf("pw's toolchain has the shared overlay")
	}
	stamp := func(v string) string { return w.read(t, "build/toolchains/"+v+"/.timerlab-stamp") }
	heapStamp, pwStamp := stamp("heap"), stamp("pw")
	w.addSet(t, "pw", "", "runtime: one", "runtime: two", "runtime: three")
	if r := w.run(t, "build-toolchain.sh", "heap"); !strings.Contains(r.stdout, "up to date") {
		t.Errorf("a change to set pw made heap's toolchain stale:\n%s", r.stdout)
	}
	w.mustRun(t, "build-toolchain.sh", "pw")
	if stamp("pw") == pwStamp || stamp("heap") != heapStamp {
		t.Errorf("stamps after a change to set pw: pw %s (was %s), heap %s (was %s)", stamp("pw"), pwStamp, stamp("heap"), heapStamp)
	}
	// A hand edit of the set fails the round trip.
	p := w.path("patches/pw/0001-runtime-one.patch")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, append(b, '\n'), 0o644)
	if r := w.run(t, "check-series.sh"); r.code == 0 || !strings.Contains(r.stderr, "patches/pw differs") {
		t.Errorf("check-series.sh passed a set edited by hand: exit %d\n%s", r.code, r.stderr)
	}
}

// TestPatchSetRefused checks the one-line refusals: a series that names no set, and a set for
// apply-patches.sh that does not exist.
func TestPatchSetRefused(t *testing.T) {
	w := newWorld(t)
	w.write(t, "variants.conf", w.read(t, "variants.conf")+"pw pw - - no such set\n")
	r := w.run(t, "build-toolchain.sh", "heap")
	if r.code == 0 || !strings.Contains(r.stderr, "series 'pw' (want all, none, @VARIANT or a patch set: none)") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("a series naming no set: exit %d, stderr %q", r.code, r.stderr)
	}
	r = w.run(t, "apply-patches.sh", "--set", "nope", w.path("build/work/nope"))
	if r.code == 0 || !strings.Contains(r.stderr, "no patch set 'nope'") || w.exists("build/work/nope") {
		t.Errorf("apply-patches.sh --set nope: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestExportCL checks export-cl.sh: the set's commits but the lab's ("timerlab:" subjects), as
// format-patch files that apply to the base with git am, by EXPORT_AUTHOR; and its refusals, each
// one line with nothing written: a series of fewer than two commits, a patch that names timerlab, a
// new file without Go's copyright header, an unknown name, an OUT that exists.
func TestExportCL(t *testing.T) {
	w := newWorld(t)
	goHeader := "// Copyright 2026 The Go Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style\n// license that can be found in the LICENSE file.\n"
	w.addSet(t, "good", goHeader, "runtime: move", "runtime: change NEWFILE", "timerlab: a counter for the lab")
	w.write(t, "variants.conf", w.read(t, "variants.conf")+"good good - - a set\n")
	out := w.path("out")
	r := w.runEnv(t, []string{"EXPORT_AUTHOR=A Gopher <a@example.com>"}, "export-cl.sh", "good", out)
	if r.code != 0 {
		t.Fatalf("export-cl.sh good: exit %d\n%s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.patch"))
	if len(files) != 2 {
		t.Fatalf("exported %d patches, want 2 (the lab's commit left out): %v", len(files), files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if !strings.Contains(string(b), "\nFrom: A Gopher <a@example.com>\n") || strings.Contains(strings.ToLower(string(b)), "timerlab") {
			t.Errorf("%s: want From: A Gopher and no timerlab:\n%s", filepath.Base(f), b)
		}
	}
	w.git(t, ".", "clone", "-q", "--shared", w.path("build/base/"+fakeVersion), w.path("am"))
	w.git(t, "am", append([]string{"am", "-q"}, files...)...)
	// The variant's name exports its set too.
	if r := w.run(t, "export-cl.sh", "good", w.path("out2")); r.code != 0 {
		t.Errorf("export-cl.sh by variant name: exit %d\n%s", r.code, r.stderr)
	}

	w.addSet(t, "one", "", "runtime: the change")
	w.addSet(t, "named", "", "runtime: move", "runtime: change for timerlab")
	w.addSet(t, "header", "// Copyright 2026 Somebody Else. All rights reserved.\n", "runtime: move", "runtime: change NEWFILE")
	for _, tc := range []struct{ name, out, want string }{
		{"one", "o1", "want at least two"},
		{"named", "o2", "the export names timerlab"},
		{"header", "o3", "lacks Go's copyright header"},
		{"nope", "o4", "no patch set 'nope'"},
		{"heap", "o5", "not a patch set"},
		{"good", "out", "exists"},
	} {
		r := w.run(t, "export-cl.sh", tc.name, w.path(tc.out))
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("export-cl.sh %s: exit %d, stderr %q, want one line with %q", tc.name, r.code, r.stderr, tc.want)
		}
		if tc.out != "out" && w.exists(tc.out) {
			t.Errorf("export-cl.sh %s left %s", tc.name, tc.out)
		}
	}
	if left, _ := filepath.Glob(w.path(".export.*")); len(left) != 0 {
		t.Errorf("export-cl.sh left scratch directories: %v", left)
	}
}

// TestCheckExports checks that check-exports.sh exports a set, applies it onto the base and builds
// the packages it changes with the release's commands, for linux/amd64 and, with --full, vetted
// and for five more ports; that a failing build stops it in one line naming the set and the port;
// and that it says so in one line when the release's commands are missing.
func TestCheckExports(t *testing.T) {
	w := newWorld(t)
	goHeader := "// Copyright 2026 The Go Authors. All rights reserved.\n"
	w.addSet(t, "good", goHeader, "runtime: move", "runtime: change NEWFILE")
	r := w.run(t, "check-exports.sh", "good")
	if r.code == 0 || !strings.Contains(r.stderr, "release's commands") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("without the release's commands: exit %d, stderr %q; want one line", r.code, r.stderr)
	}
	w.makeBaseCmds(t)
	r = w.mustRun(t, "check-exports.sh", "good")
	if log := w.read(t, "build/cross.log"); log != "build linux/amd64:\n" {
		t.Errorf("check-exports.sh good built %q, want one build for linux/amd64", log)
	}
	if !strings.Contains(r.stdout, "2 commits: runtime: move; runtime: change NEWFILE") {
		t.Errorf("check-exports.sh does not name the commits it applied:\n%s", r.stdout)
	}
	os.Remove(w.path("build/cross.log"))
	w.mustRun(t, "check-exports.sh", "--full")
	log := w.read(t, "build/cross.log")
	for _, port := range []string{"linux/amd64", "linux/386", "linux/arm", "linux/arm64", "darwin/arm64", "windows/amd64"} {
		if !strings.Contains(log, "vet "+port+":\n") || !strings.Contains(log, "build "+port+":\n") {
			t.Errorf("--full did not vet and build for %s:\n%s", port, log)
		}
	}
	r = w.runEnv(t, []string{"FAKE_CROSS_FAIL=linux/arm64:"}, "check-exports.sh", "--full", "good")
	if r.code == 0 || !strings.Contains(r.stderr, "good: go build") || !strings.Contains(r.stderr, "linux/arm64") {
		t.Errorf("a failing build: exit %d, stderr %q; want the set and the port named", r.code, r.stderr)
	}

	// A package of one system is built for that system's ports only.
	w.addSet(t, "linuxonly", goHeader, "runtime: move", "internal/runtime/syscall/linux: add LINUXFILE")
	os.Remove(w.path("build/cross-pkgs.log"))
	w.mustRun(t, "check-exports.sh", "--full", "linuxonly")
	ports := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(w.read(t, "build/cross-pkgs.log")), "\n") {
		f := strings.Fields(line) // go's arguments (vet or build, then the packages), then the port
		port, pkgs := f[len(f)-1], strings.Join(f[1:len(f)-1], " ")
		if pkgs == "std" {
			continue
		}
		ports[port] = true
		if has := strings.Contains(pkgs, "internal/runtime/syscall/linux"); has != strings.HasPrefix(port, "linux/") {
			t.Errorf("check-exports.sh --full: %q: want internal/runtime/syscall/linux on Linux ports only", line)
		}
	}
	if !ports["darwin/arm64"] || !ports["windows/amd64"] {
		t.Errorf("check-exports.sh --full built the runtime on %v, want darwin/arm64 and windows/amd64 too", ports)
	}
}
