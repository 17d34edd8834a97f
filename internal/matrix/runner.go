package matrix

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"timerlab/internal/atomicfile"
)

// Executor does the work of one cell, writing its output to the file out (which does not exist
// when Execute is called). It returns an error if the output must not be kept.
type Executor interface {
	Execute(ctx context.Context, c Cell, out string) error
}

// Runner executes cells in a results directory.
type Runner struct {
	Dir      string    // the results directory
	Exec     Executor  // does the work
	Progress io.Writer // a line per cell, and one per Heartbeat while a cell runs; nil for none
	// Heartbeat is how often a line says that a long cell is still running; 0 for every
	// DefaultHeartbeat.
	Heartbeat time.Duration

	now func() time.Time // the clock; time.Now if nil
	mu  sync.Mutex       // serializes the lines of the heartbeat and of the cells
}

// DefaultHeartbeat is how often a cell that runs long says so: a cell of the full matrix takes
// seconds to minutes (sweet's etcd: several).
const DefaultHeartbeat = 30 * time.Second

// Run executes every cell not yet done, in order, and stops at the first failure. Cells already
// done are kept as they are; partial outputs of an interrupted run are discarded and redone. Each
// cell's line says how long the run has taken and, from the cells done so far, about how long
// the rest of the cell's set and the rest of the matrix will take.
func (r *Runner) Run(ctx context.Context, cells []Cell) error {
	todo := r.pending(cells)
	r.logf("%d of %d cells to do (%d done before)", len(todo), len(cells), len(cells)-len(todo))
	start := r.clock()
	var spent timings
	for i, c := range todo {
		line := fmt.Sprintf("[%d/%d] %s (%s elapsed", i+1, len(todo), c, r.clock().Sub(start).Round(time.Second))
		if set, all, ok := spent.eta(todo[i:], c.Set); ok {
			line += fmt.Sprintf("; about %s to go in %s, %s in all", set.Round(time.Second), c.Set, all.Round(time.Second))
		}
		r.logf("%s)", line)
		began := r.clock()
		if err := r.execute(ctx, c); err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
		spent.add(c, r.clock().Sub(began))
	}
	r.logf("%d cells done in %s; all %d cells asked for are done", len(todo),
		r.clock().Sub(start).Round(time.Second), len(cells))
	if len(todo) > 0 {
		r.logf("time per set: %s", spent.perSet(todo))
	}
	return nil
}

func (r *Runner) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

// timings accumulates how long the cells took: by kind and set, by kind, and in all.
type timings struct {
	bySet  map[kindSet]mean
	byKind [Profile + 1]mean
	all    mean
}

type kindSet struct {
	kind Kind
	set  string
}

// mean is a running mean of durations.
type mean struct {
	total time.Duration
	n     int
}

func (m mean) value() (time.Duration, bool) {
	if m.n == 0 {
		return 0, false
	}
	return m.total / time.Duration(m.n), true
}

func (t *timings) add(c Cell, d time.Duration) {
	if t.bySet == nil {
		t.bySet = map[kindSet]mean{}
	}
	k := kindSet{c.Kind, c.Set}
	t.bySet[k] = mean{t.bySet[k].total + d, t.bySet[k].n + 1}
	t.byKind[c.Kind].total += d
	t.byKind[c.Kind].n++
	t.all.total += d
	t.all.n++
}

// perSet says how long the cells of each set of cells took, in their order: "a 1m0s (8 cells), b ...",
// the figures to plan a matrix by.
func (t *timings) perSet(cells []Cell) string {
	var sets []string
	total := map[string]time.Duration{}
	n := map[string]int{}
	for k, m := range t.bySet {
		total[k.set] += m.total
		n[k.set] += m.n
	}
	for _, c := range cells {
		if !slices.Contains(sets, c.Set) {
			sets = append(sets, c.Set)
		}
	}
	var parts []string
	for _, set := range sets {
		parts = append(parts, fmt.Sprintf("%s %s (%d cells)", set, total[set].Round(time.Second), n[set]))
	}
	return strings.Join(parts, ", ")
}

// eta estimates how long the cells of rest will take, those of set and all of them: each cell at
// the mean of the cells of its kind and set done so far, or of its kind where none of its set has
// run, or of all cells where none of its kind has (a set's runs take from a second to minutes,
// its profile about one run, its build as long as its package takes to compile). false before any
// cell has run.
func (t *timings) eta(rest []Cell, set string) (inSet, all time.Duration, ok bool) {
	if t.all.n == 0 {
		return 0, 0, false
	}
	for _, c := range rest {
		d, ok := t.bySet[kindSet{c.Kind, c.Set}].value()
		if !ok {
			if d, ok = t.byKind[c.Kind].value(); !ok {
				d, _ = t.all.value()
			}
		}
		all += d
		if c.Set == set {
			inSet += d
		}
	}
	return inSet, all, true
}

// pending returns the cells whose output file does not exist yet.
func (r *Runner) pending(cells []Cell) []Cell {
	var todo []Cell
	for _, c := range cells {
		if _, err := os.Stat(filepath.Join(r.Dir, c.Path())); err != nil {
			todo = append(todo, c)
		}
	}
	return todo
}

// execute runs one cell into its partial file and renames that into place on success. While
// it runs, a line every Heartbeat says it still does.
func (r *Runner) execute(ctx context.Context, c Cell) error {
	stop := r.heartbeat(c)
	defer stop()
	final := filepath.Join(r.Dir, c.Path())
	partial := atomicfile.Partial(final)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return err
	}
	if err := os.Remove(partial); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := r.Exec.Execute(ctx, c, partial); err != nil {
		os.Remove(partial)
		return err
	}
	if _, err := os.Stat(partial); err != nil {
		return fmt.Errorf("executor wrote no output: %w", err)
	}
	return os.Rename(partial, final)
}

// heartbeat starts the lines that say c still runs, and returns what stops them.
func (r *Runner) heartbeat(c Cell) (stop func()) {
	every := r.Heartbeat
	if every <= 0 {
		every = DefaultHeartbeat
	}
	if r.Progress == nil {
		return func() {}
	}
	began := r.clock()
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				r.logf("... %s still running (%s so far)", c, r.clock().Sub(began).Round(time.Second))
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

func (r *Runner) logf(format string, args ...any) {
	if r.Progress != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		fmt.Fprintf(r.Progress, "timerlab: "+format+"\n", args...)
	}
}

const specFile = "matrix.json"

// Claim records spec as the matrix of dir, or checks that dir already holds this very matrix.
func Claim(dir string, spec Spec) error {
	claimed, err := CheckClaim(dir, spec)
	if err != nil || claimed {
		return err
	}
	return atomicfile.WriteJSON(filepath.Join(dir, specFile), spec)
}

// CheckClaim reports whether dir holds the matrix spec already (claimed), and refuses a dir that
// holds another; it writes nothing.
func CheckClaim(dir string, spec Spec) (claimed bool, err error) {
	path := filepath.Join(dir, specFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var have Spec
	if err := json.Unmarshal(data, &have); err != nil {
		return false, fmt.Errorf("%s: %v", path, err)
	}
	if have.ProfileCount == 0 {
		have.ProfileCount = spec.ProfileCount // begun before it was recorded
	}
	if !reflect.DeepEqual(have, spec) {
		return false, fmt.Errorf("%s holds another matrix (%+v, want %+v): use another --out or remove it", dir, have, spec)
	}
	return true, nil
}

// ReadSpec returns the matrix recorded in dir; a file that is malformed, lacks a field or fails
// Validate is an error naming it.
func ReadSpec(dir string) (Spec, error) {
	var spec Spec
	path := filepath.Join(dir, specFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return spec, fmt.Errorf("%s is not a results directory: %w", dir, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return spec, fmt.Errorf("%s: %v", path, err)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&spec); err != nil {
		return spec, fmt.Errorf("%s: %v", path, err)
	}
	var missing []string
	for _, f := range []string{"quick", "variants", "sets", "rounds", "count"} {
		if _, ok := fields[f]; !ok {
			missing = append(missing, strconv.Quote(f))
		}
	}
	if len(missing) > 0 {
		return spec, fmt.Errorf("%s lacks %s: not a matrix timerlab bench wrote", path, strings.Join(missing, ", "))
	}
	if err := spec.Validate(); err != nil {
		return spec, fmt.Errorf("%s: %v", path, err)
	}
	return spec, nil
}
