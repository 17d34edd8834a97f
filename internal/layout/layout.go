// Package layout reads the sizes of the runtime's types from a binary's
// DWARF, so that a test can compare two toolchains' runtimes: the heap
// variant's patches must keep pristine upstream's layout.
package layout

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Sizes returns the byte size of each named struct type in the DWARF of
// the ELF binary at path. A name the DWARF does not describe is an error.
func Sizes(path string, names ...string) (map[string]int64, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	sizes := map[string]int64{}
	r := d.Reader()
	for len(sizes) < len(want) {
		e, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if e == nil {
			break
		}
		if e.Tag != dwarf.TagStructType {
			continue
		}
		n, _ := e.Val(dwarf.AttrName).(string)
		if !want[n] {
			continue
		}
		if s, ok := e.Val(dwarf.AttrByteSize).(int64); ok {
			sizes[n] = s
		}
	}
	for _, n := range names {
		if _, ok := sizes[n]; !ok {
			return nil, fmt.Errorf("%s: no struct type %s in its DWARF", path, n)
		}
	}
	return sizes, nil
}

// Probe builds, with the toolchain at goroot, for goos/goarch (and goarm
// if not empty), a program that uses timers, into dir, and returns the
// binary's path.
func Probe(goroot, dir, goos, goarch, goarm string) (string, error) {
	src := filepath.Join(dir, "probe.go")
	if err := os.WriteFile(src, []byte("package main\n\nimport \"time\"\n\nfunc main() { time.Sleep(1) }\n"), 0o666); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "probe-"+filepath.Base(goroot)+"-"+goarch+goarm)
	cmd := exec.Command(filepath.Join(goroot, "bin", "go"), "build", "-o", out, src)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOROOT="+goroot, "GOTOOLCHAIN=local", "GOFLAGS=", "GOWORK=off",
		"GOEXPERIMENT=", "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOARM="+goarm)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s build for %s/%s: %v\n%s", goroot, goos, goarch, err, b)
	}
	return out, nil
}
