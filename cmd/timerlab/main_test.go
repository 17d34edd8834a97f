package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	md := benchReportVerify(t, out, docs, "--quick", "--variants", "heap,upstream", "--sets", "std-context", "--rounds", "1")
	if !strings.Contains(md, "| WithTimeout/concurrency=40-") {
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

// benchReportVerify runs bench with args into out, then report of out into docs and verify of
// both, as CI does, and returns the report's results.md.
func benchReportVerify(t *testing.T, out, docs string, args ...string) string {
	t.Helper()
	if err := benchCmd(t.Context(), append(args, "--out", out)); err != nil {
		t.Fatal(err)
	}
	if err := reportCmd(t.Context(), []string{"--results", out, "--docs", docs}); err != nil {
		t.Fatal(err)
	}
	if err := verifyCmd(t.Context(), []string{out, "--docs", docs}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(docs, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(md)
}

// TestBenchPackage runs a local module's benchmark as a set of its own with two fake toolchains,
// then report and verify of what it wrote: the report names the set after the package.
func TestBenchPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	build := labtest.FakeBuild(t, "heap", "upstream")
	mod := t.TempDir()
	for f, text := range map[string]string{
		"go.mod":       "module example.com/mine\n\ngo 1.22\n",
		"mine.go":      "package mine\n",
		"mine_test.go": "package mine\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc BenchmarkStopTimer(b *testing.B) {\n\tfor range b.N {\n\t\ttime.AfterFunc(time.Hour, func() {}).Stop()\n\t}\n}\n",
	} {
		os.WriteFile(filepath.Join(mod, f), []byte(text), 0o644)
	}
	out, docs := filepath.Join(build, "results-pkg"), filepath.Join(build, "docs")
	md := benchReportVerify(t, out, docs, "--pkg", mod, "--bench", "StopTimer", "--variants", "heap,upstream", "--rounds", "1")
	for _, want := range []string{"pkg-example-com-mine", "| StopTimer-"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// TestHelp checks that timerlab alone, help, -h and --help print the synopsis of every command, to
// stdout when asked for (exit 0) and to stderr when no command was given (exit 2); that help
// COMMAND and COMMAND -h print the command's flags, help -h and help help help's own; and that
// bench's help lists the sets, the group headline and the checkout's variants.
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
			if !strings.Contains(text, "timerlab "+c.name) || !strings.Contains(strings.Join(strings.Fields(text), " "), c.what) {
				t.Errorf("timerlab %q: the synopsis lacks %s:\n%s", args, c.name, text)
			}
		}
	}
	for _, args := range [][]string{{"help", "bench"}, {"bench", "-h"}, {"bench", "--help"}} {
		var out, errOut strings.Builder
		if code := run(args, &out, &errOut); code != 0 {
			t.Errorf("timerlab %q: exit %d (%s)", args, code, errOut.String())
		}
		for _, want := range []string{"usage: timerlab bench [--quick]", "  --rounds N\n", "  --sets a,b|headline\n",
			"benchmark sets (--sets", "  std-time-ops ", "[when named]", "  wakeups ", "aliases run it", "  headline ",
			"std-time-ops, timers, deadline,", "wakeups, precision", "variants (--variants", "  heap ", "  slack-1ms ",
			"alias of slack, GODEBUG=timerslack=1ms", "  floor ", "the null floor runs it", "  null "} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("timerlab %q lacks %q:\n%s", args, want, out.String())
			}
		}
	}
	for _, args := range [][]string{{"help", "-h"}, {"help", "--help"}, {"help", "help"}} {
		var out, errOut strings.Builder
		if code := run(args, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "usage: timerlab help [COMMAND]\n") {
			t.Errorf("timerlab %q: exit %d, %q %q; want help's usage", args, code, out.String(), errOut.String())
		}
	}
	var out, errOut strings.Builder
	if code := run([]string{"report", "-h"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "  --results DIR\n") {
		t.Errorf("report -h: exit %d:\n%s", code, out.String())
	}
}

// TestHelpFits checks that every help, the synopsis and each command's, fits in 100 columns and
// names each flag as its usage line does, --name.
func TestHelpFits(t *testing.T) {
	helps := [][]string{{"help"}}
	for _, c := range commands {
		helps = append(helps, []string{c.name, "-h"})
	}
	dash := regexp.MustCompile(`(^|[\s\[(])-[a-z][a-z-]`) // -h, help's own, is the one short flag
	for _, args := range helps {
		var out, errOut strings.Builder
		if code := run(args, &out, &errOut); code != 0 {
			t.Errorf("timerlab %q: exit %d", args, code)
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if n := len([]rune(line)); n > 100 {
				t.Errorf("timerlab %q: a line of %d columns: %q", args, n, line)
			}
			if m := dash.FindString(line); m != "" && !strings.Contains(line, "-test.") {
				t.Errorf("timerlab %q: a flag with one dash: %q", args, line)
			}
		}
	}
}

// TestRefusedCommandLines checks that what timerlab cannot do as asked is refused with exit status
// 2 and one line naming the command: an unknown command, stray arguments, unknown flags (all of
// them), a flag without its value or with a value it refuses, a list that names nothing, unknown
// variants and sets (all of them), values out of range; all before anything runs.
func TestRefusedCommandLines(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bnech"}, `timerlab: unknown command "bnech" (timerlab help lists them)`},
		{[]string{"help", "nosuch"}, `timerlab help: unknown command "nosuch"`},
		{[]string{"help", "bench", "report"}, "timerlab help: want at most one command, got 2: bench report"},
		{[]string{"bench", "timers"}, `timerlab bench: unexpected argument "timers": the command takes flags only`},
		{[]string{"bench", "--rounds", "-1"}, "timerlab bench: --rounds -1: want 1 or more"},
		{[]string{"bench", "--rounds", "0"}, "timerlab bench: --rounds 0: want 1 or more"},
		{[]string{"bench", "--rounds", "six"}, `timerlab bench: --rounds "six": parse error`},
		{[]string{"bench", "--count", "0"}, "timerlab bench: --count 0: want 1 or more"},
		{[]string{"bench", "--timeout", "0s"}, "timerlab bench: --timeout 0s: want a duration above 0"},
		{[]string{"bench", "--timeout"}, "timerlab bench: flag needs an argument: --timeout (timerlab bench -h lists its flags)"},
		{[]string{"bench", "--round", "3"}, "timerlab bench: unknown flag --round (timerlab bench -h lists its flags)"},
		{[]string{"bench", "--round", "3", "--quick", "--varients=heap", "-x"}, "timerlab bench: unknown flags --round, --varients, --x"},
		{[]string{"bench", "--build-only", "--prebuilt"}, "timerlab bench: --build-only and --prebuilt: want one of them"},
		{[]string{"bench", "--build-only", "--etcd-requests", "0"}, "timerlab bench: --etcd-requests 0: want 1000 or more"},
		{[]string{"bench", "--etcd-requests", "5000", "--sets", "sweet-etcd"}, "timerlab bench: --etcd-requests sets the load of a pack's etcd runs: give --build-only too"},
		{[]string{"bench", "--build-only", "--etcd-requests", "5000", "--sets", "wakeups"}, "timerlab bench: --etcd-requests 5000: the matrix runs no sweet-etcd"},
		{[]string{"bench", "--prebuilt", "--etcd-requests", "5000"}, "timerlab bench: --prebuilt runs the matrix recorded in"},
		{[]string{"bench", "--variants", ","}, `timerlab bench: --variants ",": names nothing`},
		{[]string{"bench", "--variants="}, `timerlab bench: --variants "": names nothing`},
		{[]string{"bench", "--sets", " , "}, `timerlab bench: --sets " , ": names nothing`},
		{[]string{"bench", "--variants", "whel,heap,slak"}, `timerlab bench: --variants: unknown variants "whel" and "slak" (known: upstream heap `},
		{[]string{"bench", "--variants", "heap,heap"}, `timerlab bench: --variants: variant "heap" named twice`},
		{[]string{"bench", "--sets", "timres,deadline,nosuch"}, `timerlab bench: --sets: unknown benchmark sets "timres" and "nosuch" (known: std-time `},
		{[]string{"bench", "--sets", "std-time,std-time-ops"}, "timerlab bench: --sets: benchmark sets std-time and std-time-ops both run"},
		{[]string{"bench", "--sweep-sets", "wakeup"}, `timerlab bench: --sweep-sets: unknown benchmark set "wakeup"`},
		{[]string{"bench", "--variants", "null", "--sets", "timers"}, "timerlab bench: --variants: no variant left to run: " +
			"null (the null floor: its AfterFunc timers never fire) runs only on the sets floor, none of them selected"},
		{[]string{"bench", "--build-only", "--pkg", "time"}, "timerlab bench: --build-only: --pkg's sets run in their package's directory"},
		{[]string{"bench", "--bench", "Stop"}, "timerlab bench: --bench selects the benchmarks of --pkg's packages: name them with --pkg"},
		{[]string{"report", "build/results"}, `timerlab report: unexpected argument "build/results"`},
		{[]string{"configs", "x"}, `timerlab configs: unexpected argument "x"`},
		{[]string{"configs", "--variants", "ghost,spook"}, `timerlab configs: --variants: unknown variants "ghost" and "spook"`},
		{[]string{"configs", "--variants", "null"}, "timerlab configs: --variants: null is the null floor"},
		{[]string{"xbench", "now"}, `timerlab xbench: unexpected argument "now"`},
		{[]string{"instr", "--rounds", "0"}, "timerlab instr: --rounds 0: want 1 or more"},
		{[]string{"instr", "--variants", "heap,nosuch"}, `timerlab instr: --variants: unknown variant "nosuch"`},
		{[]string{"instr", "--bench", "Reset/a("}, `timerlab instr: --bench: -test.bench pattern "Reset/a(": error parsing regexp`},
		{[]string{"bench", "--pkg", "time", "--bench", "a["}, `timerlab bench: --bench: -test.bench pattern "a[": error parsing regexp`},
		{[]string{"verify"}, "timerlab verify: want one results directory, got 0 (usage: timerlab verify [--docs DIR] RESULTS_DIR)"},
		{[]string{"verify", "a", "b"}, "timerlab verify: want one results directory, got 2: a b (usage: timerlab verify [--docs DIR] RESULTS_DIR)"},
		{[]string{"verify", "a", "--docs", "d", "b"}, "timerlab verify: want one results directory, got 2: a b"},
		{[]string{"verify", "--doc", "d", "a"}, "timerlab verify: unknown flag --doc"},
	} {
		var out, errOut strings.Builder
		code := run(tc.args, &out, &errOut)
		lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
		if code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], tc.want) || out.Len() > 0 {
			t.Errorf("timerlab %q: exit %d, stderr %q; want exit 2 and one line starting %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}

// TestMissingToolchains checks that the toolchains a matrix lacks are one line that names them all
// and the command that builds them, and that nothing is said of the variants the command line did
// not name (the alias and the null floor, which run other sets).
func TestMissingToolchains(t *testing.T) {
	build := labtest.FakeBuild(t)
	conf := filepath.Join(build, "variants.conf")
	os.WriteFile(conf, []byte("upstream none - - pristine\nheap all - - baseline\nslack all timerslack - slack\n"+
		"slack-1ms @slack - timerslack=1ms sweep\nnull all timernull - the null floor\n"), 0o644)
	var out, errOut strings.Builder
	code := run([]string{"bench", "--quick", "--sets", "std-context", "--out", filepath.Join(build, "r")}, &out, &errOut)
	want := "timerlab bench: no toolchain of upstream, heap, slack in " + filepath.Join(build, "toolchains") +
		": build them with `for v in upstream heap slack; do scripts/build-toolchain.sh $v || break; done`\n"
	if code != 1 || errOut.String() != want {
		t.Errorf("bench without toolchains: exit %d, stderr\n%s\nwant exit 1 and\n%s", code, errOut.String(), want)
	}
	if _, err := os.Stat(filepath.Join(build, "r")); err == nil {
		t.Error("the refused bench created its results directory")
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
// where it does; says which it rendered; and before either says how to make one.
func TestReportDefaultsToMakesResults(t *testing.T) {
	build := t.TempDir()
	t.Setenv("TIMERLAB_BUILD", build)
	var out, errOut strings.Builder
	want := "timerlab report: no results to render: neither " + filepath.Join(build, "results") + " (make full's) nor " +
		filepath.Join(build, "results-first") + " (make's) holds a matrix; run make, or name the results with --results\n"
	if code := run([]string{"report"}, &out, &errOut); code != 1 || errOut.String() != want {
		t.Errorf("report before make: exit %d, %q; want exit 1 and %q", code, errOut.String(), want)
	}
	first := filepath.Join(build, "results-first")
	if err := exec.Command("cp", "-R", "../../internal/report/testdata/results", first).Run(); err != nil {
		t.Fatal(err)
	}
	docs := t.TempDir()
	errOut.Reset()
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

// TestReportOfMakesSeries checks what make's report (--results build/results-first) takes of
// build/results-xbench: its section where it ran the same patch series, nothing but a line on
// stderr where it ran another; and that a report of results of another series than the checkout's
// opens with a line naming both.
func TestReportOfMakesSeries(t *testing.T) {
	build := t.TempDir()
	t.Setenv("TIMERLAB_BUILD", build)
	first, xb := filepath.Join(build, "results-first"), filepath.Join(build, "results-xbench")
	for src, dst := range map[string]string{"results": first, "xbench": xb} {
		if err := exec.Command("cp", "-R", "../../internal/report/testdata/"+src, dst).Run(); err != nil {
			t.Fatal(err)
		}
	}
	render := func() (string, string) {
		t.Helper()
		docs := t.TempDir()
		var out, errOut strings.Builder
		if code := run([]string{"report", "--results", first, "--docs", docs, "--instr", "none"}, &out, &errOut); code != 0 {
			t.Fatalf("report: exit %d: %s", code, errOut.String())
		}
		md, err := os.ReadFile(filepath.Join(docs, "results.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(md), errOut.String()
	}
	md, stderr := render()
	if want := "timerlab: the golang.org/x/benchmarks matrix in " + xb + " left out: it ran patch series f2f6279f, these results 483a63fb\n"; !strings.Contains(stderr, want) ||
		strings.Contains(md, "## golang.org/x/benchmarks") {
		t.Errorf("an x/benchmarks matrix of another series: stderr %q, want %q and no section", stderr, want)
	}
	if want := "**Not the code's series.** These results ran with patch series `483a63fb`; the checkout that rendered them is at series `"; !strings.Contains(md, want) {
		t.Errorf("results of another series than the checkout's: the report lacks %q:\n%.600s", want, md)
	}
	env := filepath.Join(xb, "env.json")
	data, _ := os.ReadFile(env)
	os.WriteFile(env, []byte(strings.Replace(string(data), "f2f6279f23aa69ec5472ffb4fb954f7610db9ab5ae5bd3df48ad6b618a4ec82e",
		"483a63fb9c3db9a0290eb6bc80f1ce0f9b2ea8d61b31a4610629c3021b35ddf6", 1)), 0o644)
	md, stderr = render()
	if !strings.Contains(stderr, "timerlab: the golang.org/x/benchmarks section from "+xb+"\n") || !strings.Contains(md, "## golang.org/x/benchmarks") {
		t.Errorf("an x/benchmarks matrix of the same series: stderr %q; want its section", stderr)
	}
	// An x/benchmarks matrix that cannot be rendered (here: a raw file gone) leaves make's report
	// without the section, not without a report.
	os.Remove(filepath.Join(xb, "raw", "heap.txt"))
	md, stderr = render()
	if !strings.Contains(stderr, "timerlab: the golang.org/x/benchmarks matrix in "+xb+" left out: ") || strings.Contains(md, "## golang.org/x/benchmarks") {
		t.Errorf("an incomplete x/benchmarks matrix: stderr %q; want it left out", stderr)
	}
}

// TestVerifyWarnsOfMissingBenchmark checks that verify passes runs that all ran but lack a
// benchmark a set expects (it skipped itself, or the toolchain lacks it), and warns of it.
func TestVerifyWarnsOfMissingBenchmark(t *testing.T) {
	dir := copyRecorded(t)
	raw := filepath.Join(dir, "raw", "heap.txt")
	data, _ := os.ReadFile(raw)
	var kept []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "BenchmarkDeadlineChurn") {
			kept = append(kept, line)
		}
	}
	os.WriteFile(raw, []byte(strings.Join(kept, "\n")), 0o644)
	var out, errOut strings.Builder
	want := "timerlab: warning: set deadline: no results for BenchmarkDeadlineChurn with heap\ntimerlab: " + dir + " verified\n"
	if code := run([]string{"verify", dir}, &out, &errOut); code != 0 || errOut.String() != want {
		t.Errorf("verify: exit %d, stderr %q; want exit 0 and %q", code, errOut.String(), want)
	}
}
