package main

import (
	"os"
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
