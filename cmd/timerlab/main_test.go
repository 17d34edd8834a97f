package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"timerlab/internal/labtest"
)

// TestEndToEnd runs the commands as CI does, on a one-set quick matrix with two fake toolchains:
// bench, then report and verify of what it wrote; verify must refuse a truncated chart, and
// bench --prebuilt the flags that shape a matrix.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	build := labtest.FakeBuild(t, "heap", "upstream")
	out, docs := filepath.Join(build, "results"), filepath.Join(build, "docs")
	bench := []string{"--quick", "--variants", "heap,upstream", "--sets", "std-context", "--rounds", "1", "--out", out}
	if err := benchCmd(t.Context(), bench); err != nil {
		t.Fatal(err)
	}
	if err := reportCmd(t.Context(), []string{"--results", out, "--docs", docs}); err != nil {
		t.Fatal(err)
	}
	if err := verifyCmd(t.Context(), []string{out, "--docs", docs}); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(docs, "results.md"))
	if !strings.Contains(string(md), "| WithTimeout/concurrency=40-") {
		t.Errorf("report lacks the WithTimeout row:\n%s", md)
	}
	os.WriteFile(filepath.Join(docs, "results", "cost-vs-n.svg"), []byte("<svg>"), 0o644)
	if err := verifyCmd(t.Context(), []string{"--docs", docs, out}); err == nil {
		t.Error("verify passed a truncated chart")
	}
	err := benchCmd(t.Context(), []string{"--prebuilt", "--out", out, "--rounds", "2"})
	if err == nil || !strings.Contains(err.Error(), "drop --rounds") {
		t.Errorf("--prebuilt --rounds 2: %v, want it refused", err)
	}
}

// TestHelp checks that timerlab alone, help, -h and --help print the synopsis of every command, to
// stdout when asked for (exit 0) and to stderr when no command was given (exit 2); that help
// COMMAND and COMMAND -h print the command's flags; and that bench's help lists the sets, the group
// headline and the checkout's variants.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, nil} {
		var out, errOut strings.Builder
		code := run(args, &out, &errOut)
		text, wantCode := out.String(), 0
		if args == nil {
			text, wantCode = errOut.String(), 2
		}
		if code != wantCode {
			t.Errorf("timerlab %q: exit %d, want %d", args, code, wantCode)
		}
		for _, c := range commands {
			if !strings.Contains(text, "timerlab "+c.name+" ") || !strings.Contains(text, c.what) {
				t.Errorf("timerlab %q: the synopsis lacks %s:\n%s", args, c.name, text)
			}
		}
	}
	for _, args := range [][]string{{"help", "bench"}, {"bench", "-h"}} {
		var out, errOut strings.Builder
		if code := run(args, &out, &errOut); code != 0 {
			t.Errorf("timerlab %q: exit %d (%s)", args, code, errOut.String())
		}
		for _, want := range []string{"usage: timerlab bench [--quick]", "-rounds int", "benchmark sets (--sets",
			"  std-time-ops ", "[when named]", "  wakeups ", "aliases run it", "  headline ", "std-time-ops, timers, deadline, wakeups",
			"variants (--variants", "  heap ", "  slack-1ms ", "alias of slack, GODEBUG=timerslack=1ms",
			"  floor ", "the null floor runs it", "  null "} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("timerlab %q lacks %q:\n%s", args, want, out.String())
			}
		}
	}
	var out, errOut strings.Builder
	if code := run([]string{"report", "-h"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "-results string") {
		t.Errorf("report -h: exit %d:\n%s", code, out.String())
	}
}

// TestRefusedCommandLines checks that what timerlab cannot do as asked is refused with exit status
// 2 and one line naming the command: an unknown command, stray arguments, unknown flags, a flag
// without its value, and values out of range; all before anything runs.
func TestRefusedCommandLines(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bnech"}, `timerlab: unknown command "bnech" (timerlab help lists them)`},
		{[]string{"help", "nosuch"}, `timerlab help: unknown command "nosuch"`},
		{[]string{"bench", "timers"}, `timerlab bench: unexpected argument "timers": the command takes flags only`},
		{[]string{"bench", "--rounds", "-1"}, "timerlab bench: --rounds -1: want 1 or more"},
		{[]string{"bench", "--rounds", "0"}, "timerlab bench: --rounds 0: want 1 or more"},
		{[]string{"bench", "--count", "0"}, "timerlab bench: --count 0: want 1 or more"},
		{[]string{"bench", "--timeout", "0s"}, "timerlab bench: --timeout 0s: want a duration above 0"},
		{[]string{"bench", "--timeout"}, "timerlab bench: flag needs an argument: -timeout (timerlab bench -h lists its flags)"},
		{[]string{"bench", "--round", "3"}, "timerlab bench: flag provided but not defined: -round"},
		{[]string{"bench", "--build-only", "--prebuilt"}, "timerlab bench: --build-only and --prebuilt: want one of them"},
		{[]string{"report", "build/results"}, `timerlab report: unexpected argument "build/results"`},
		{[]string{"configs", "x"}, `timerlab configs: unexpected argument "x"`},
		{[]string{"xbench", "now"}, `timerlab xbench: unexpected argument "now"`},
		{[]string{"instr", "--rounds", "0"}, "timerlab instr: --rounds 0: want 1 or more"},
		{[]string{"verify"}, "timerlab verify: want a results directory"},
		{[]string{"verify", "a", "b"}, `timerlab verify: unexpected argument "b"`},
	} {
		var out, errOut strings.Builder
		code := run(tc.args, &out, &errOut)
		lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
		if code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], tc.want) || out.Len() > 0 {
			t.Errorf("timerlab %q: exit %d, stderr %q; want exit 2 and one line starting %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}

// TestMalformedMatrixNamesFile checks that a results directory whose matrix.json does not parse is
// refused by report and verify with a line naming the file.
func TestMalformedMatrixNamesFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "matrix.json"), []byte(`{"rounds": "six"}`), 0o644)
	for _, args := range [][]string{{"report", "--results", dir, "--docs", t.TempDir()}, {"verify", dir}} {
		var out, errOut strings.Builder
		code := run(args, &out, &errOut)
		if code != 1 || !strings.Contains(errOut.String(), filepath.Join(dir, "matrix.json")+": json: cannot unmarshal") {
			t.Errorf("timerlab %q: exit %d, %q; want the file named", args, code, errOut.String())
		}
	}
}

// TestReportRefusesWhatVerifyRefuses breaks a copy of the report's recorded results in ways verify
// refuses, and checks that report refuses each the same way (exit 1, one line naming the cause,
// nothing written) unless --partial, which renders what nothing is missing from and opens with
// what is; and that verify --docs refuses a report rendered from other results.
func TestReportRefusesWhatVerifyRefuses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		break_  func(dir string)
		want    string
		partial bool // --partial renders it
	}{
		{"empty raw file", func(dir string) { os.WriteFile(filepath.Join(dir, "raw", "upstream.txt"), nil, 0o644) },
			"raw/upstream.txt: no benchmark results", true},
		{"missing profile", func(dir string) { os.Remove(filepath.Join(dir, "profiles", "heap", "timers.pb.gz")) },
			"profiles/heap/timers.pb.gz: missing", true},
		{"rounds -3", func(dir string) { editMatrix(t, dir, `"rounds": 3`, `"rounds": -3`) }, "rounds -3: want 1 or more", false},
		{"empty matrix", func(dir string) { os.WriteFile(filepath.Join(dir, "matrix.json"), []byte("{}"), 0o644) },
			`matrix.json lacks "quick", "variants", "sets", "rounds", "count"`, false},
		{"unknown variants", func(dir string) { editMatrix(t, dir, `"upstream"`, `"upstream", "ghost", "spook"`) },
			`names the variants "ghost", "spook", whose toolchains`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, docs := copyRecorded(t), t.TempDir()
			tc.break_(dir)
			for _, args := range [][]string{{"verify", dir}, {"report", "--results", dir, "--docs", docs}} {
				var out, errOut strings.Builder
				code := run(args, &out, &errOut)
				lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
				if code != 1 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
					t.Errorf("timerlab %q: exit %d, stderr %q; want exit 1 and one line with %q", args[:1], code, errOut.String(), tc.want)
				}
			}
			if _, err := os.Stat(filepath.Join(docs, "results.md")); err == nil {
				t.Error("the refused report wrote results.md")
			}
			var out, errOut strings.Builder
			code := run([]string{"report", "--partial", "--results", dir, "--docs", docs}, &out, &errOut)
			md, _ := os.ReadFile(filepath.Join(docs, "results.md"))
			switch {
			case !tc.partial && code != 1:
				t.Errorf("report --partial: exit %d, want 1: nothing can be made of it", code)
			case tc.partial && (code != 0 || !strings.Contains(string(md), "**A partial report.**") ||
				!strings.Contains(string(md), "\n- "+tc.want)):
				t.Errorf("report --partial: exit %d (%s), results.md:\n%.1200s\nwant it to open with %q", code, errOut.String(), md, tc.want)
			}
		})
	}
	dir, docs := copyRecorded(t), t.TempDir()
	if code := run([]string{"report", "--results", dir, "--docs", docs}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("report of the recorded results: exit %d", code)
	}
	other := copyRecorded(t)
	editMatrix(t, other, `"rounds": 3`, `"rounds": 2`)
	var out, errOut strings.Builder
	if code := run([]string{"verify", "--docs", docs, other}, &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "was rendered from other results than") {
		t.Errorf("verify --docs of a report of other results: exit %d, %q", code, errOut.String())
	}
}

// copyRecorded copies the results the report's tests render into a temporary directory.
func copyRecorded(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := exec.Command("cp", "-R", "../../internal/report/testdata/results/.", dir).Run(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// editMatrix replaces old with new in dir's matrix.json.
func editMatrix(t *testing.T, dir, old, new string) {
	t.Helper()
	path := filepath.Join(dir, "matrix.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s holds no %q", path, old)
	}
	os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644)
}

// TestReportDefaultsToMakesResults checks that timerlab report with no --results renders what make
// wrote (build/results-first) where make full's build/results holds no matrix, and make full's
// where it does; and says which it rendered.
func TestReportDefaultsToMakesResults(t *testing.T) {
	build := t.TempDir()
	t.Setenv("TIMERLAB_BUILD", build)
	first := filepath.Join(build, "results-first")
	if err := exec.Command("cp", "-R", "../../internal/report/testdata/results", first).Run(); err != nil {
		t.Fatal(err)
	}
	docs := t.TempDir()
	var out, errOut strings.Builder
	if code := run([]string{"report", "--docs", docs}, &out, &errOut); code != 0 ||
		!strings.Contains(errOut.String(), "timerlab: rendering "+first+"\n") {
		t.Errorf("report after make: exit %d, %q; want %s rendered", code, errOut.String(), first)
	}
	if md, err := os.ReadFile(filepath.Join(docs, "results.md")); err != nil || !strings.Contains(string(md), "from results-first.") {
		t.Errorf("results.md: %v\n%.300s", err, md)
	}
	full := filepath.Join(build, "results")
	if err := exec.Command("cp", "-R", "../../internal/report/testdata/xbench", full).Run(); err != nil {
		t.Fatal(err)
	}
	errOut.Reset()
	if code := run([]string{"report", "--docs", docs, "--xbench", "none"}, &out, &errOut); code != 0 ||
		!strings.Contains(errOut.String(), "timerlab: rendering "+full+"\n") {
		t.Errorf("report after make full: exit %d, %q; want %s rendered", code, errOut.String(), full)
	}
}
