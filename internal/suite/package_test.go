package suite

import (
	"slices"
	"strings"
	"testing"
)

// TestPackageSetName checks that a package's set is named after it, safe in file names.
func TestPackageSetName(t *testing.T) {
	for arg, want := range map[string]string{
		"net/http":                          "pkg-net-http",
		"golang.org/x/net/http2@v0.30.0":    "pkg-golang-org-x-net-http2-v0-30-0",
		"example.com/My_Mod/v2":             "pkg-example-com-my-mod-v2",
		"gopkg.in/yaml.v3@v3.0.1+incompat/": "pkg-gopkg-in-yaml-v3-v3-0-1-incompat",
	} {
		if got := PackageSetName(arg); got != want {
			t.Errorf("PackageSetName(%q) = %q, want %q", arg, got, want)
		}
		if !validName.MatchString(PackageSetName(arg)) {
			t.Errorf("PackageSetName(%q) is no valid set name", arg)
		}
	}
}

// TestSplitPattern checks that a -test.bench pattern splits into alternatives and levels as the
// testing package splits it: not at a '|' or '/' in brackets, in parentheses, or escaped.
func TestSplitPattern(t *testing.T) {
	for pattern, want := range map[string][]string{
		"Reset":                 {"Reset"},
		"Reset/impl=func":       {"Reset", "impl=func"},
		"(a/b|c)/d":             {"(a/b|c)", "d"},
		`x\/y/[/]`:              {`x\/y`, "[/]"},
		"^Benchmark(A|B)$/n=1/": {"^Benchmark(A|B)$", "n=1", ""},
	} {
		if got := splitPattern(pattern, '/'); !slices.Equal(got, want) {
			t.Errorf("splitPattern(%q, '/') = %q, want %q", pattern, got, want)
		}
	}
	for pattern, want := range map[string]string{
		"(a/b)/c":                         "(a/b)",
		"Reset/impl=func|^BenchmarkStop$": "Reset|^BenchmarkStop$",
		"(A|B)/x|C/[|]":                   "(A|B)|C",
	} {
		if got := TopPattern(pattern); got != want {
			t.Errorf("TopPattern(%q) = %q, want %q", pattern, got, want)
		}
	}
	if err := CheckPattern("a/b|c/("); err == nil {
		t.Error("CheckPattern passed a level of the second alternative that is no regexp")
	}
}

// TestPackageSet checks the set a package makes: where its go commands run, its pattern, and
// that a package no set can be made of is refused.
func TestPackageSet(t *testing.T) {
	for _, tc := range []struct {
		p    Package
		from Module
		dir  string
	}{
		{Package{Path: "time", Bench: "Stop", Expect: []string{"Stop"}}, Std, "/go/src"},
		{Package{Path: "m/p", Dir: "/home/u/m/p", Bench: ".", Expect: []string{"X"}}, External, "/home/u/m/p"},
		{Package{Path: "m/p", Version: "v1.2.3", Bench: ".", Expect: []string{"X"}}, External, "/r/packages/pkg-x"},
	} {
		s := tc.p.Set("pkg-x")
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", tc.p, err)
		}
		if s.From != tc.from || s.ModuleDir("/go", "/repo", "/r") != tc.dir || s.Pattern() != tc.p.Bench || !s.Sweep || s.Floor {
			t.Errorf("%+v: set %+v, module dir %s", tc.p, s, s.ModuleDir("/go", "/repo", "/r"))
		}
	}
	for _, tc := range []struct {
		p    Package
		want string
	}{
		{Package{Bench: ".", Expect: []string{"X"}}, "names no package"},
		{Package{Path: "p", Expect: []string{"X"}}, "no -test.bench pattern"},
		{Package{Path: "p", Bench: "Y"}, "no benchmark matched Y"},
		{Package{Path: "p", Bench: ".", Expect: []string{"X"}, Dir: "/d", Version: "v1.0.0"}, "both a directory and a version"},
		{Package{Path: "p", Bench: ".", Expect: []string{"X"}, Dir: "d"}, "is not absolute"},
		{Package{Path: "p", Bench: "a/(", Expect: []string{"X"}}, "error parsing regexp"},
	} {
		if err := tc.p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.p, err, tc.want)
		}
	}
}
