package matrix

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"timerlab/internal/atomicfile"
)

// recorder is an Executor that writes the cell's name and remembers what it ran.
type recorder struct {
	ran  []Cell
	fail map[Cell]bool
}

func (r *recorder) Execute(_ context.Context, c Cell, out string) error {
	r.ran = append(r.ran, c)
	if r.fail[c] {
		os.WriteFile(out, []byte("half"), 0o644)
		return errors.New("boom")
	}
	return os.WriteFile(out, []byte(c.String()), 0o644)
}

func testSpec() Spec {
	return Spec{Variants: []string{"heap", "upstream"}, Sets: []string{"a", "b"}, Rounds: 2, Count: 1}
}

func TestCellsInterleaveVariants(t *testing.T) {
	var runs []string
	for _, c := range testSpec().Cells() {
		if c.Kind == Run {
			runs = append(runs, c.String())
		}
	}
	want := []string{ // each round starts one variant further on
		"run heap a round 1", "run upstream a round 1", "run heap b round 1", "run upstream b round 1",
		"run upstream a round 2", "run heap a round 2", "run upstream b round 2", "run heap b round 2",
	}
	if strings.Join(runs, "\n") != strings.Join(want, "\n") {
		t.Errorf("run order:\n%s\nwant:\n%s", strings.Join(runs, "\n"), strings.Join(want, "\n"))
	}
}

// TestOnlyRestrictsVariant checks a variant that Only names gets cells for its sets alone, of every
// kind, while the others keep every set.
func TestOnlyRestrictsVariant(t *testing.T) {
	spec := testSpec()
	spec.Variants = append(spec.Variants, "slack-1ms")
	spec.Only = map[string][]string{"slack-1ms": {"b"}}
	var got []string
	for _, c := range spec.Cells() {
		if c.Variant == "slack-1ms" {
			got = append(got, c.String())
		}
	}
	want := []string{"build slack-1ms b", "run slack-1ms b round 1", "run slack-1ms b round 2", "profile slack-1ms b"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("slack-1ms cells:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n, all := len(spec.Cells()), len(testSpec().Cells()); n != all+len(want) {
		t.Errorf("%d cells, want the %d of heap and upstream plus slack-1ms's %d", n, all, len(want))
	}
	if len(spec.RunCells("slack-1ms")) != 2 || len(spec.RunCells("heap")) != 4 {
		t.Errorf("RunCells: slack-1ms %v, heap %v", spec.RunCells("slack-1ms"), spec.RunCells("heap"))
	}
	if spec.Runs("slack-1ms", "a") || !spec.Runs("heap", "a") {
		t.Error("Runs disagrees with Only")
	}
}

// TestCountSetsHaveNoProfiles checks a set of instruction counts gets build and run cells, rotated
// as any set's, and no profile cells, beside a set of timings that keeps its own.
func TestCountSetsHaveNoProfiles(t *testing.T) {
	spec := testSpec()
	spec.Counts = map[string]Count{"b": {Pkg: "time", Bench: []string{"BenchmarkStop"}}}
	var got []string
	for _, c := range spec.Cells() {
		if c.Set == "b" {
			got = append(got, c.String())
		}
	}
	want := []string{"build heap b", "build upstream b", "run heap b round 1", "run upstream b round 1",
		"run upstream b round 2", "run heap b round 2"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("cells of the count set:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(testSpec().Cells()) - len(spec.Cells()); n != 2 {
		t.Errorf("the count set has %d cells fewer than a set of timings, want 2 (its profiles)", n)
	}
	if spec.Profiled("b") || !spec.Profiled("a") {
		t.Error("Profiled disagrees with Counts")
	}
}

func TestResumeKeepsDoneCellsAndRedoesPartialOnes(t *testing.T) {
	dir := t.TempDir()
	cells := testSpec().Cells()
	done, half := cells[0], cells[1]
	write(t, filepath.Join(dir, done.Path()), "kept")
	write(t, atomicfile.Partial(filepath.Join(dir, half.Path())), "half-written")

	rec := &recorder{}
	if err := (&Runner{Dir: dir, Exec: rec}).Run(context.Background(), cells); err != nil {
		t.Fatal(err)
	}
	if len(rec.ran) != len(cells)-1 {
		t.Errorf("ran %d cells, want %d", len(rec.ran), len(cells)-1)
	}
	for _, c := range rec.ran {
		if c == done {
			t.Errorf("re-ran finished cell %s", c)
		}
	}
	if got := read(t, filepath.Join(dir, done.Path())); got != "kept" {
		t.Errorf("finished cell output = %q, want it kept", got)
	}
	if got := read(t, filepath.Join(dir, half.Path())); got != half.String() {
		t.Errorf("half-written cell output = %q, want it redone", got)
	}
	if _, err := os.Stat(atomicfile.Partial(filepath.Join(dir, half.Path()))); err == nil {
		t.Error("partial file left behind")
	}
}

func TestFailedCellIsNotDone(t *testing.T) {
	dir := t.TempDir()
	cells := testSpec().Cells()
	bad := cells[2]
	rec := &recorder{fail: map[Cell]bool{bad: true}}
	err := (&Runner{Dir: dir, Exec: rec}).Run(context.Background(), cells)
	if err == nil || !strings.Contains(err.Error(), bad.String()) {
		t.Fatalf("Run error = %v, want one naming %s", err, bad)
	}
	for _, p := range []string{bad.Path(), atomicfile.Partial(bad.Path())} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("failed cell left %s", p)
		}
	}
	// The next run starts at the failed cell.
	rec = &recorder{}
	if err := (&Runner{Dir: dir, Exec: rec}).Run(context.Background(), cells); err != nil {
		t.Fatal(err)
	}
	if len(rec.ran) == 0 || rec.ran[0] != bad {
		t.Errorf("resumed run started with %v, want %s", rec.ran, bad)
	}
}

func TestClaimRefusesAnotherMatrix(t *testing.T) {
	dir := t.TempDir()
	spec := testSpec()
	if err := Claim(dir, spec); err != nil {
		t.Fatal(err)
	}
	if err := Claim(dir, spec); err != nil {
		t.Fatalf("claiming the same matrix again: %v", err)
	}
	spec.Rounds++
	if err := Claim(dir, spec); err == nil {
		t.Error("claiming a different matrix succeeded")
	}
	if got, err := ReadSpec(dir); err != nil || got.Rounds != spec.Rounds-1 {
		t.Errorf("ReadSpec = %+v, %v", got, err)
	}
	spec.Rounds--
	spec.Only = map[string][]string{"upstream": {"a"}}
	if err := Claim(dir, spec); err == nil {
		t.Error("claiming the matrix with other sets for a variant succeeded")
	}
	spec.Only = nil
	spec.Counts = map[string]Count{"b": {Pkg: "time", Bench: []string{"BenchmarkStop"}}}
	if claimed, err := CheckClaim(dir, spec); err == nil || claimed {
		t.Errorf("CheckClaim of the matrix counting instructions of b: %v, %v; want it refused", claimed, err)
	}
	if claimed, err := CheckClaim(t.TempDir(), spec); err != nil || claimed {
		t.Errorf("CheckClaim of an empty directory: %v, %v; want it free", claimed, err)
	}
	// A matrix begun before the profile cells' count was recorded resumes with it; one that
	// recorded another count does not.
	spec.Counts = nil
	spec.ProfileCount = ProfileCount
	if claimed, err := CheckClaim(dir, spec); err != nil || !claimed {
		t.Errorf("CheckClaim of the matrix with its profile count now recorded: %v, %v; want it claimed", claimed, err)
	}
	other := t.TempDir()
	spec.ProfileCount = 1
	if err := Claim(other, spec); err != nil {
		t.Fatal(err)
	}
	spec.ProfileCount = ProfileCount
	if claimed, err := CheckClaim(other, spec); err == nil || claimed {
		t.Errorf("CheckClaim of a matrix whose profile cells ran -count=1: %v, %v; want it refused", claimed, err)
	}
}

// TestReadSpecValidates checks that a matrix.json no timerlab bench could have written is refused
// in one line naming the file and what is wrong: a field missing (all of them named), one
// unknown, no variant, a set twice, rounds or count below 1, a name that cannot be a file's, a
// restriction or a count set of a variant or set the matrix lacks, an etcd load below a request
// per client or of a matrix without sweet-etcd; and that a pack's etcd load reads back.
func TestReadSpecValidates(t *testing.T) {
	const good = `{"quick": true, "variants": ["heap", "slack-12.5pct"], "sets": ["a", "b"], "rounds": 3, "count": 1, ` +
		`"only": {"slack-12.5pct": ["b"]}, "counts": {"a": {"pkg": "time", "bench": ["BenchmarkStop"]}}}`
	dir := t.TempDir()
	path := filepath.Join(dir, "matrix.json")
	write(t, path, good)
	if _, err := ReadSpec(dir); err != nil {
		t.Fatalf("a valid matrix.json: %v", err)
	}
	etcd := strings.Replace(strings.Replace(good, `"b"]`, `"sweet-etcd"]`, 1), `"count": 1`, `"count": 1, "etcd_requests": 5000`, 1)
	etcd = strings.Replace(etcd, `["b"]}`, `["sweet-etcd"]}`, 1)
	write(t, path, etcd)
	if spec, err := ReadSpec(dir); err != nil || spec.EtcdRequests != 5000 {
		t.Fatalf("a pack's matrix.json with its etcd load: %+v, %v", spec, err)
	}
	for _, tc := range []struct{ json, want string }{
		{`{}`, `lacks "quick", "variants", "sets", "rounds", "count"`},
		{`{"variants": ["heap"], "sets": ["a"], "rounds": 1, "count": 1}`, `lacks "quick"`},
		{strings.Replace(good, `"rounds": 3`, `"rounds": -3`, 1), "rounds -3: want 1 or more"},
		{strings.Replace(good, `"count": 1`, `"count": 0`, 1), "count 0: want 1 or more"},
		{strings.Replace(good, `["heap", "slack-12.5pct"]`, `[]`, 1), "names no variant"},
		{strings.Replace(good, `["a", "b"]`, `[]`, 1), "names no benchmark set"},
		{strings.Replace(good, `["a", "b"]`, `["a", "b", "a"]`, 1), `benchmark set "a" named twice`},
		{strings.Replace(good, `["heap", "slack-12.5pct"]`, `["heap", "../x"]`, 1), `variant "../x": want letters`},
		{strings.Replace(good, `"only": {"slack-12.5pct"`, `"only": {"ghost"`, 1), `only: "ghost" is none of its variants`},
		{strings.Replace(good, `"only": {"slack-12.5pct": ["b"]}`, `"only": {"slack-12.5pct": ["c"]}`, 1), `only: slack-12.5pct runs "c", none of its sets`},
		{strings.Replace(good, `"counts": {"a"`, `"counts": {"z"`, 1), `counts: "z" is none of its sets`},
		{strings.Replace(good, `"count": 1`, `"count": 1, "etcd_requests": -1`, 1), "etcd_requests -1: want 1000 or more"},
		{strings.Replace(good, `"count": 1`, `"count": 1, "etcd_requests": 999`, 1), "etcd_requests 999: want 1000 or more"},
		{strings.Replace(good, `"count": 1`, `"count": 1, "etcd_requests": 5000`, 1), "etcd_requests 5000: the matrix runs no sweet-etcd"},
		{strings.Replace(good, `"quick": true`, `"quick": true, "round": 3`, 1), `unknown field "round"`},
		{`{"rounds": "six"}`, "cannot unmarshal"},
	} {
		write(t, path, tc.json)
		_, err := ReadSpec(dir)
		if err == nil || !strings.HasPrefix(err.Error(), path) || !strings.Contains(err.Error(), tc.want) ||
			strings.Contains(err.Error(), "\n") {
			t.Errorf("matrix.json %s: %v, want one line naming the file and %q", tc.json, err, tc.want)
		}
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestETAPerSet checks the estimate of what is left: each cell at the mean of its kind and set, or of
// its kind where its set has none, or of all cells where its kind has none; the set's share apart.
func TestETAPerSet(t *testing.T) {
	var tm timings
	if _, _, ok := tm.eta([]Cell{{Kind: Run, Set: "a"}}, "a"); ok {
		t.Error("an estimate with nothing timed")
	}
	tm.add(Cell{Kind: Build, Set: "a"}, 10*time.Second)
	for range 3 {
		tm.add(Cell{Kind: Run, Set: "a"}, 2*time.Second)
	}
	tm.add(Cell{Kind: Run, Set: "b"}, 8*time.Second)
	// run a: 2s (its set's mean, where the runs' mean would say 3.5s); run b: 8s; profile a: no
	// profile has run, so the mean of all five cells, 24s / 5 = 4.8s; build b: no build of b has
	// run, so the builds' mean, 10s.
	rest := []Cell{{Kind: Run, Set: "a"}, {Kind: Run, Set: "b"}, {Kind: Profile, Set: "a"}, {Kind: Build, Set: "b"}}
	inSet, all, ok := tm.eta(rest, "a")
	if !ok || inSet != 6800*time.Millisecond || all != 24800*time.Millisecond {
		t.Errorf("eta = %v in a, %v in all, want 6.8s and 24.8s", inSet, all)
	}
}

// fakeClock advances by step on every reading.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(step)
		return t
	}
}

// TestProgressLines checks each cell's line: its place, the time elapsed, and from the second cell
// on the time left in its set and in all, from a clock that advances 10s per reading.
func TestProgressLines(t *testing.T) {
	var out strings.Builder
	cells := testSpec().Cells()[:3] // the builds of heap a, heap b, upstream a
	r := &Runner{Dir: t.TempDir(), Exec: &recorder{}, Progress: &out, now: fakeClock(10 * time.Second)}
	if err := r.Run(context.Background(), cells); err != nil {
		t.Fatal(err)
	}
	// The clock is read at the start (10s), for each cell's line, as the cell begins, as its
	// heartbeat begins and as it ends: each cell takes 20s, and the lines come at 20s, 60s, 100s.
	for _, want := range []string{
		"timerlab: [1/3] build heap a (10s elapsed)\n",
		"timerlab: [2/3] build heap b (50s elapsed; about 20s to go in b, 40s in all)\n",
		"timerlab: [3/3] build upstream a (1m30s elapsed; about 20s to go in a, 20s in all)\n",
		"timerlab: 3 cells done in 2m10s;",
		"timerlab: time per set: a 40s (2 cells), b 20s (1 cells)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, out.String())
		}
	}
}

// blocker is an Executor that returns once its cell's heartbeat has been written.
type blocker struct{ beat chan struct{} }

func (b *blocker) Execute(_ context.Context, c Cell, out string) error {
	select {
	case <-b.beat:
	case <-time.After(10 * time.Second): // a guard against a hang, not a measurement
		return errors.New("no heartbeat")
	}
	return os.WriteFile(out, []byte(c.String()), 0o644)
}

// beatWriter signals beat on the first line saying a cell is still running.
type beatWriter struct {
	strings.Builder
	beat chan struct{}
	once bool
}

func (w *beatWriter) Write(p []byte) (int, error) {
	if !w.once && strings.Contains(string(p), "still running") {
		w.once = true
		close(w.beat)
	}
	return w.Builder.Write(p)
}

// TestHeartbeat checks a cell that runs past the heartbeat's period gets a line saying so, naming
// it, and that the heartbeat stops with the cell: nothing is written after the last line.
func TestHeartbeat(t *testing.T) {
	beat := make(chan struct{})
	out := &beatWriter{beat: beat}
	cells := testSpec().Cells()[:1]
	r := &Runner{Dir: t.TempDir(), Exec: &blocker{beat: beat}, Progress: out, Heartbeat: time.Millisecond}
	if err := r.Run(context.Background(), cells); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	text := out.String()
	r.mu.Unlock()
	if !strings.Contains(text, "timerlab: ... build heap a still running (") {
		t.Errorf("no heartbeat line:\n%s", text)
	}
	if !regexp.MustCompile(`timerlab: time per set: a \d+s \(1 cells\)\n$`).MatchString(text) {
		t.Errorf("a line after the run's last:\n%s", text)
	}
}
