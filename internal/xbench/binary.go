package xbench

import (
	"debug/buildinfo"
	"fmt"
	"strings"
)

// GoVersion returns the Go version a binary built by a toolchain records, from the toolchain's
// `go version` line: "go version go1.27.4-timerlab.wheel X:timerwheel linux/amd64" gives
// "go1.27.4-timerlab.wheel X:timerwheel", which is what `go version BINARY` prints for it.
func GoVersion(versionLine string) (string, error) {
	f := strings.Fields(versionLine)
	if len(f) < 4 || f[0] != "go" || f[1] != "version" {
		return "", fmt.Errorf("not a go version line: %q", versionLine)
	}
	return strings.Join(f[2:len(f)-1], " "), nil
}

// CheckBuiltBy reports an error unless the binary bin was built by the toolchain whose `go version`
// line is versionLine: a benchmark built by another Go (a toolchain the build downloaded, as etcd's
// does without GOTOOLCHAIN=local, or the machine's) would not measure the variant.
func CheckBuiltBy(bin, versionLine string) error {
	want, err := GoVersion(versionLine)
	if err != nil {
		return err
	}
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return fmt.Errorf("%s: %v", bin, err)
	}
	if bi.GoVersion != want {
		return fmt.Errorf("%s was built by %s, not by the variant's toolchain (%s)", bin, bi.GoVersion, want)
	}
	return nil
}
