package matrix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
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
	Progress io.Writer // one line per cell; nil for none
}

// Run executes every cell not yet done, in order, and stops at the first failure. Cells already
// done are kept as they are; partial outputs of an interrupted run are discarded and redone.
func (r *Runner) Run(ctx context.Context, cells []Cell) error {
	todo := r.pending(cells)
	r.logf("%d of %d cells to do (%d done before)", len(todo), len(cells), len(cells)-len(todo))
	start := time.Now()
	var spent timings
	for i, c := range todo {
		r.logf("[%d/%d] %s (%d left after this%s)", i+1, len(todo), c, len(todo)-i-1, spent.eta(todo[i:]))
		began := time.Now()
		if err := r.execute(ctx, c); err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
		spent.add(c.Kind, time.Since(began))
	}
	r.logf("%d cells done in %s; all %d cells asked for are done", len(todo),
		time.Since(start).Round(time.Second), len(cells))
	return nil
}

// timings accumulates how long the cells of each kind took.
type timings struct {
	total [Profile + 1]time.Duration
	count [Profile + 1]int
}

func (t *timings) add(k Kind, d time.Duration) {
	t.total[k] += d
	t.count[k]++
}

// eta estimates the time rest will take, as ", about 3m0s to go": each cell at the mean of its
// kind so far, or of all cells when none of its kind has run yet.
func (t *timings) eta(rest []Cell) string {
	var all time.Duration
	n := 0
	for k := range t.total {
		all += t.total[k]
		n += t.count[k]
	}
	if n == 0 {
		return ""
	}
	var left time.Duration
	for _, c := range rest {
		if t.count[c.Kind] > 0 {
			left += t.total[c.Kind] / time.Duration(t.count[c.Kind])
		} else {
			left += all / time.Duration(n)
		}
	}
	return fmt.Sprintf(", about %s to go", left.Round(time.Second))
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

// execute runs one cell into its partial file and renames that into place on success.
func (r *Runner) execute(ctx context.Context, c Cell) error {
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

func (r *Runner) logf(format string, args ...any) {
	if r.Progress != nil {
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
	if !reflect.DeepEqual(have, spec) {
		return false, fmt.Errorf("%s holds another matrix (%+v, want %+v): use another --out or remove it", dir, have, spec)
	}
	return true, nil
}

// ReadSpec returns the matrix recorded in dir.
func ReadSpec(dir string) (Spec, error) {
	var spec Spec
	data, err := os.ReadFile(filepath.Join(dir, specFile))
	if err != nil {
		return spec, fmt.Errorf("%s is not a results directory: %w", dir, err)
	}
	return spec, json.Unmarshal(data, &spec)
}
