package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"timerlab/internal/matrix"
	"timerlab/internal/results"
	"timerlab/internal/selection"
	"timerlab/internal/stats"
	"timerlab/internal/suite"
)

// TestVerdict checks the verdict of testdata/wheel, a run of 12 rounds whose benchstat output the
// entry of docs/log keeps: the wheel significantly cheaper than heap on the timeout among 4M timers
// (-21.61%, p=0.000) and not elsewhere, the null timer set cheaper everywhere; each cell with its
// interval, the interval of a significant ratio away from 1 and that of another holding it.
func TestVerdict(t *testing.T) {
	r, err := LoadPartial("testdata/wheel")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	r.writeVerdict(&b)
	for _, want := range []string{
		"| figure | wheel | null | reading |",
		"| a timeout started and stopped, 1K timers live (`timers` TimeoutVsN/N=1K) | ×1.02 (0.90–1.12) ~ | ×0.60 (0.56–0.69) | better: null |",
		"| a timeout started and stopped, 4M timers live (`timers` TimeoutVsN/N=4M) | ×0.79 (0.72–0.88) | ×0.55 (0.51–0.60) | better: wheel, null |",
		"| a timer started and stopped among 4M live ones (`timers` CostVsN/N=4M) | ×1.11 (0.93–1.30) ~ | ×0.76 (0.70–0.88) | better: null |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("verdict lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "upstream") {
		t.Errorf("the verdict speaks of upstream, which did not run:\n%s", b.String())
	}
	if strings.Contains(b.String(), "TimeoutVsNGCOff") {
		t.Errorf("a row for a figure the matrix did not measure:\n%s", b.String())
	}
}

// TestGeomeanMatchesBenchstat checks the geomean row of testdata/wheel's sec/op against the one
// benchstat printed for the same run (docs/log's entry of the null floor): 316.6n, 302.1n -4.60%,
// 204.1n -35.54%; and that each row shows its change where benchstat found one.
func TestGeomeanMatchesBenchstat(t *testing.T) {
	r, err := LoadPartial("testdata/wheel")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	r.writeResults(&b)
	for _, want := range []string{
		"| geomean | sec/op | 316.6n | 302.1n -4.6% | 204.1n -36% |",
		"| TimeoutVsN/N=4M-2 | sec/op | 445.2n ± 8% | 349.0n ± 13% -22% (p=0.000) | 245.6n ± 17% -45% (p=0.000) |",
		"| CostVsN/N=1K-2 | sec/op | 234.3n ± 21% | 242.9n ± 41% ~ | 166.7n ± 20% -29% (p=0.000) |",
		"| geomean | B/op | 112.0 | 112.0 0% | 112.0 0% |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("results lack %q:\n%s", want, b.String())
		}
	}
}

// TestNullFloor checks where the report puts the null floor (testdata/null: heap, wheel and null
// on the floor set, null restricted to it): in the set's table beside the variants whose floor it
// is, and neither in the verdict, which judges timer sets, nor in the slack sweep.
func TestNullFloor(t *testing.T) {
	r, err := LoadPartial("testdata/null")
	if err != nil {
		t.Fatal(err)
	}
	if !r.isNull("null") || r.isNull("wheel") {
		t.Fatalf("isNull: null %v, wheel %v; want the variant built with timernull alone", r.isNull("null"), r.isNull("wheel"))
	}
	if got := r.verdictVariants(); !slices.Equal(got, []string{"wheel"}) {
		t.Errorf("verdict variants %v, want wheel alone", got)
	}
	if got := r.sweepVariants(); len(got) != 0 {
		t.Errorf("slack sweep variants %v, want none", got)
	}
	if main, sweep := r.setVariants("floor"); !slices.Equal(main, []string{"heap", "wheel", "null"}) || len(sweep) != 0 {
		t.Errorf("floor's tables: main %v, aliases %v; want heap, wheel and null in one", main, sweep)
	}
}

// copyDir copies a recorded results directory of testdata into a temporary one.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := exec.Command("cp", "-R", src+"/.", dir).Run(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestLoadRefusesWhatItCannotRender checks a results directory naming a set or a variant the
// report cannot describe, or with a malformed matrix.json, is refused in one line naming the file,
// rather than rendered with blank sections.
func TestLoadRefusesWhatItCannotRender(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(spec *matrix.Spec)
		raw    string // a file to write under the directory instead
		want   string
	}{
		{"unknown set", func(s *matrix.Spec) { s.Sets = append(s.Sets, "nosuch") }, "",
			`matrix.json names the benchmark set "nosuch", unknown to this timerlab`},
		{"unknown variant", func(s *matrix.Spec) { s.Variants = append(s.Variants, "ghost") }, "",
			`matrix.json names the variant "ghost", whose toolchain`},
		{"no sets", func(s *matrix.Spec) { s.Sets = nil }, "", "matrix.json: names no benchmark set"},
		{"no rounds", func(s *matrix.Spec) { s.Rounds = -3 }, "", "matrix.json: rounds -3: want 1 or more"},
		{"malformed", nil, "{\"quick\": tru", "matrix.json: invalid character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, "testdata/slack")
			data := []byte(tc.raw)
			if tc.change != nil {
				spec, err := matrix.ReadSpec(dir)
				if err != nil {
					t.Fatal(err)
				}
				tc.change(&spec)
				data, _ = json.Marshal(spec)
			}
			os.WriteFile(filepath.Join(dir, "matrix.json"), data, 0o644)
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Load: %v, want one line with %q", err, tc.want)
			}
		})
	}
	dir := copyDir(t, "testdata/slack")
	os.Remove(filepath.Join(dir, results.RawPath("slack-1ms")))
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "raw/slack-1ms.txt: missing") {
		t.Errorf("Load without a variant's raw file: %v", err)
	}
}

// TestSweepHoldsAliasesOfHeap renders testdata/slack with its slack-0 recast as pwait2, an alias
// of heap (no slack experiment): it is in the slack sweep's table, as the peer slack is measured
// against, and not in the verdict, which judges no alias.
func TestSweepHoldsAliasesOfHeap(t *testing.T) {
	dir := copyDir(t, "testdata/slack")
	for _, f := range []string{"matrix.json", "env.json", "raw/slack-0.txt"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ReplaceAll(string(data), "slack-0", "pwait2")
		s = strings.ReplaceAll(s, "timerslack=0", "epollpwait2=1")
		os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644)
	}
	os.Rename(filepath.Join(dir, "raw/slack-0.txt"), filepath.Join(dir, "raw/pwait2.txt"))
	r, err := LoadPartial(dir) // testdata/slack has no profiles
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range r.Env.Toolchains {
		if tc.Variant == "pwait2" {
			r.Env.Toolchains[i].GOEXPERIMENT = "" // heap's toolchain
		}
	}
	var sweep, verdict bytes.Buffer
	r.writeSummaries(&sweep)
	r.writeVerdict(&verdict)
	if !strings.Contains(sweep.String(), "| pwait2 | epollpwait2=1 | 0 | ×1.29 (—) ~ |") {
		t.Errorf("the sweep lacks pwait2:\n%s", sweep.String())
	}
	if strings.Contains(verdict.String(), "pwait2") || strings.Contains(verdict.String(), "slack-1ms") {
		t.Errorf("the verdict judges an alias:\n%s", verdict.String())
	}
}

// TestFormats checks the digits the report gives its figures.
func TestFormats(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{sig(982.8, 2), "980"},
		{sig(0.0532, 2), "0.053"},
		{sig(1.35, 3), "1.35"},
		{sig(12345, 2), "12000"},
		{durationText(982813), "980µs"},
		{durationText(1170018), "1.2ms"},
		{durationText(53250), "53µs"},
		{durationText(0), "0"},
		{ratioText(0.7012), "0.70"},
		{ratioText(12.4), "12"},
		{ratioText(0.0345), "0.035"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestMatrixName checks the opening line's name for each kind of matrix: the first answer's sets
// are not called a full matrix, nor is a matrix of one set.
func TestMatrixName(t *testing.T) {
	var every []string
	for _, s := range selection.Default(suite.Sets(false)) {
		every = append(every, s.Name)
	}
	for _, tc := range []struct {
		mode string
		sets []string
		want string
	}{
		{"quick", []string{"std-time", "timers"}, "A quick matrix"},
		{"full", selection.HeadlineSets, "The first answer's matrix (make: the headline sets)"},
		{"full", every, "A full matrix"},
		{"full", append(slices.Clone(every), "sweet-etcd"), "A full matrix"},
		{"full", []string{"timers"}, "A matrix"},
		{"full", every[1:], "A matrix"},
	} {
		r := &Report{Spec: matrix.Spec{Sets: tc.sets}, Env: results.Env{Mode: tc.mode}}
		if got := r.matrixName(); got != tc.want {
			t.Errorf("%s matrix of %v: %q, want %q", tc.mode, tc.sets, got, tc.want)
		}
	}
}

// sleeps returns six runs of bench/wakeups' SubMsSleep for variant: each sleep takes nsPerOp,
// ends ratio times as late as asked for and costs cpu, and wakeupsPerSleep timer wakeups, which
// the benchmark reports per second (times 1 + i/100 in run i, so that the runs differ).
func sleeps(variant string, nsPerOp, ratio, wakeupsPerSleep, cpu float64) string {
	s := "variant: " + variant + "\npkg: timerlab/bench/wakeups\n"
	for i := range 6 {
		f := 1 + float64(i)/100
		s += fmt.Sprintf("BenchmarkSubMsSleep-2 1000 %g ns/op %g ratio-p50 %g timer-wakeups/s %g cpu-ns/op\n",
			nsPerOp, ratio*f, wakeupsPerSleep*f/(nsPerOp/1e9), cpu*f)
	}
	return s
}

// sleepsReport is a report of heap, slack and wheel on the sleeps: slack's end on time (×0.60)
// with twice heap's timer wakeups per sleep, though 2.5 times as many a second, since each sleep
// takes less time, and twice its CPU; the wheel's end as late as heap's with 1.5 times the wakeups
// per sleep.
func sleepsReport(t *testing.T) *Report {
	t.Helper()
	text := sleeps("heap", 50000, 2.0, 0.2, 3000) + sleeps("slack", 40000, 1.2, 0.4, 6000) +
		sleeps("wheel", 50000, 2.0, 0.3, 3000)
	res := parseResults(t, text, "sleeps")
	return &Report{Spec: matrix.Spec{Variants: []string{"heap", "slack", "wheel"}, Sets: []string{"wakeups"}},
		Variants: []string{"heap", "slack", "wheel"}, Index: stats.NewIndex(res)}
}

// TestVerdictOfPrecision checks the price of precision: timer wakeups are judged per sleep, not
// per second; slack's, higher while its sleeps end on time, are that precision's price, not
// worse, in the table and in its paragraph; the wheel's, higher with no such gain, are worse.
// Every interval is the ratio times the 6th smallest and the 6th largest of the 36 ratios
// (1+j/100)/(1+i/100), i, j < 6: 0.971 and 1.029.
func TestVerdictOfPrecision(t *testing.T) {
	var b bytes.Buffer
	sleepsReport(t).writeVerdict(&b)
	v := b.String()
	for _, want := range []string{
		"**slack** wins on sleeps of 0.1-1 ms: median actual / requested (×0.60). It costs more on sleeps of 20 µs-1 ms: " +
			"CPU per sleep (×2.00) and sleeps of 20 µs-1 ms: timer wakeups per sleep (×2.00), the price of sleeps that end " +
			"on time. The right choice for short sleeps that must end on time, where what it costs matters less.\n\n",
		"**wheel** wins on no figure. It costs more on sleeps of 20 µs-1 ms: timer wakeups per sleep (×1.50). " +
			"On what this run measured, heap remains the better choice.\n\n",
		"| sleeps of 0.1-1 ms: median actual / requested (`wakeups` SubMsSleep) | ×0.60 (0.58–0.62) | ×1.00 (0.97–1.03) ~ | better: slack |",
		"| sleeps of 20 µs-1 ms: timer wakeups per sleep (`wakeups` SubMsSleep) | ×2.00 (1.94–2.06) | ×1.50 (1.46–1.54) | " +
			"worse: wheel; the price of sleeps that end on time: slack |",
		"| sleeps of 20 µs-1 ms: CPU per sleep (`wakeups` SubMsSleep) | ×2.00 (1.94–2.06) | ×1.00 (0.97–1.03) ~ | worse: slack |",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the verdict lacks %q:\n%s", want, v)
		}
	}
	if i, j := strings.Index(v, "**slack**"), strings.Index(v, "| figure |"); i < 0 || j < i {
		t.Errorf("the verdict does not open with the paragraphs:\n%s", v)
	}
}

// TestVerdictOfNullFloor checks the paragraph of a null floor that a matrix ran beside the timer
// sets (testdata/wheel, its null marked as the floor): what it saves bounds any timer set's, and
// it is nobody's right choice.
func TestVerdictOfNullFloor(t *testing.T) {
	r, err := LoadPartial("testdata/wheel")
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Env.Toolchains {
		if r.Env.Toolchains[i].Variant == "null" {
			r.Env.Toolchains[i].GOEXPERIMENT = "timernull"
		}
	}
	var b bytes.Buffer
	r.writeVerdict(&b)
	want := "**null** is the null floor, a measuring instrument and not a timer set: its AfterFunc timers never fire. " +
		"What it saves, on a timeout started and stopped, 1K timers live (×0.60); a timeout started and stopped, 4M timers " +
		"live (×0.55) and a timer started and stopped among 4M live ones (×0.76), is the most any timer set could.\n\n"
	if !strings.Contains(b.String(), want) || strings.Count(b.String(), "The right choice") != 1 {
		t.Errorf("the verdict lacks\n%s\nor calls the null floor a choice:\n%s", want, b.String())
	}
}
