package xbench

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// What a benchmark process ran with is checked where it ran. sweet and bent pass a variant's
// GODEBUG on to its binaries through their configurations (internal/configs); a tool that dropped
// or changed it would run one variant's binaries as another, since an alias of a toolchain differs
// from it in GODEBUG alone. While a run or profile cell runs, an envWatch reads the environment of
// each process of the tool's process group whose executable is one of the cell's binaries, from
// Linux's /proc. The cell fails unless at least one such process was seen and each saw the
// variant's GODEBUG; a run cell's output records what they saw.

// watchPeriod is how often an envWatch looks for new processes until it has seen a process of
// every binary it expects; then it looks every watchSlowPeriod, for processes started later (a
// driver's servers, a benchmark's next run). A look reads /proc's directory and each process's
// stat: about 2 ms of CPU with 90 processes on the 2-core machine, a fifth of a core at
// watchPeriod, under 1% at watchSlowPeriod. A prebuilt cell watches each run apart, with the
// binaries of that run alone, so the fast looks last until that run has started each of its
// binaries. A benchmark process lives for seconds (a benchmark's -benchtime, an etcd server's run).
const (
	watchPeriod     = 10 * time.Millisecond
	watchSlowPeriod = 250 * time.Millisecond
)

// envWatch records the GODEBUG of the processes that run a cell's binaries.
type envWatch struct {
	// Set by newEnvWatch, read only after. Paths are resolved as /proc/PID/exe shows them.
	files map[string]bool // the cell's binaries
	dirs  map[string]bool // directories whose every file is one of the cell's binaries

	// Set by start, before the watching goroutine runs.
	pgid  int
	done  chan struct{} // closed by stop
	ended chan struct{} // closed when the watching goroutine returns

	// Written by the watching goroutine until ended is closed, read after.
	seen map[seenProc]int // processes, by binary and GODEBUG
	pids map[int]string   // the binary each counted process ran, by pid
}

type seenProc struct{ bin, godebug string }

// newEnvWatch returns a watch of the processes running one of the files, or a file in one of the
// dirs, or nil where there is no /proc to read (the checks of a nil watch pass).
func newEnvWatch(files, dirs []string) *envWatch {
	if runtime.GOOS != "linux" {
		return nil
	}
	w := &envWatch{files: map[string]bool{}, dirs: map[string]bool{}, seen: map[seenProc]int{}, pids: map[int]string{}}
	for _, f := range files {
		w.files[resolve(f)] = true
	}
	for _, d := range dirs {
		w.dirs[resolve(d)] = true
	}
	return w
}

// resolve returns path made absolute with its symbolic links resolved, as far as it exists.
func resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	if dir := filepath.Dir(abs); dir != abs {
		return filepath.Join(resolve(dir), filepath.Base(abs))
	}
	return abs
}

// start watches the process group pgid until stop.
func (w *envWatch) start(pgid int) {
	if w == nil {
		return
	}
	w.pgid, w.done, w.ended = pgid, make(chan struct{}), make(chan struct{})
	w.pids = map[int]string{} // another group's pids may be reused
	go func() {
		defer close(w.ended)
		for {
			w.scan()
			period := watchPeriod
			if !w.pending() {
				period = watchSlowPeriod
			}
			select {
			case <-w.done:
				w.scan()
				return
			case <-time.After(period):
			}
		}
	}()
}

// stop ends the watch started by start, once its last scan is done.
func (w *envWatch) stop() {
	if w == nil || w.done == nil {
		return
	}
	close(w.done)
	<-w.ended
}

// match reports whether exe, a /proc/PID/exe link, is one of the cell's binaries.
func (w *envWatch) match(exe string) bool {
	exe = strings.TrimSuffix(exe, " (deleted)")
	return w.files[exe] || w.dirs[filepath.Dir(exe)]
}

// pending reports whether a binary the watch expects (a file it was given, a file now in one of
// its directories) has run in no process seen yet.
func (w *envWatch) pending() bool {
	ran := map[string]bool{}
	for p := range w.seen {
		ran[p.bin] = true
	}
	for f := range w.files {
		if !ran[f] {
			return true
		}
	}
	for d := range w.dirs {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if !ran[filepath.Join(d, e.Name())] {
				return true
			}
		}
	}
	return false
}

// scan records each process of the group that runs one of the binaries, unless it was recorded
// running that binary before. A process is looked at again when it runs another program: one
// between fork and exec still shows its parent's.
func (w *envWatch) scan() {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		proc := filepath.Join("/proc", e.Name())
		if pgrp, ok := processGroup(proc); !ok || pgrp != w.pgid {
			continue
		}
		exe, err := os.Readlink(filepath.Join(proc, "exe"))
		if err != nil || !w.match(exe) || w.pids[pid] == exe {
			continue // not yet exec'd, another program (a shell, the go command), or counted
		}
		environ, err := os.ReadFile(filepath.Join(proc, "environ"))
		if err != nil {
			continue
		}
		// A process that exits between the two reads leaves an empty environ: its exe is gone
		// once its memory is.
		if again, err := os.Readlink(filepath.Join(proc, "exe")); err != nil || again != exe {
			continue
		}
		w.pids[pid] = exe
		w.seen[seenProc{strings.TrimSuffix(exe, " (deleted)"), godebugOf(environ)}]++
	}
}

// processGroup returns the process group of the process whose /proc directory is proc.
func processGroup(proc string) (int, bool) {
	stat, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 3 {
		return 0, false
	}
	pgrp, err := strconv.Atoi(f[2])
	return pgrp, err == nil
}

// godebugOf returns the GODEBUG of a NUL-separated environment as the runtime reads it: the first
// GODEBUG= entry's value, "" where there is none.
func godebugOf(environ []byte) string {
	for _, kv := range bytes.Split(environ, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("GODEBUG=")); ok {
			return string(v)
		}
	}
	return ""
}

// merge adds what other saw to w.
func (w *envWatch) merge(other *envWatch) {
	if w == nil || other == nil {
		return
	}
	for p, n := range other.seen {
		w.seen[p] += n
	}
	maps.Copy(w.files, other.files)
	maps.Copy(w.dirs, other.dirs)
}

// check reports an error unless at least one process was seen and each saw the GODEBUG want.
func (w *envWatch) check(variant, want string) error {
	if w == nil {
		return nil
	}
	if len(w.seen) == 0 {
		return fmt.Errorf("no process of %s's binaries was seen running, so their GODEBUG is unchecked (the binaries: %s)",
			variant, strings.Join(append(slices.Sorted(maps.Keys(w.files)), slices.Sorted(maps.Keys(w.dirs))...), ", "))
	}
	for _, p := range w.sorted() {
		if p.godebug != want {
			return fmt.Errorf("%s ran with GODEBUG %s, not %s's %s: the tool did not pass the variant's environment on",
				p.bin, quoteNone(p.godebug), variant, quoteNone(want))
		}
	}
	return nil
}

// record returns a comment line per binary and GODEBUG seen, for a cell's output: what each
// process ran with, as the raw files of go test sets record their runs' GODEBUG.
func (w *envWatch) record() string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range w.sorted() {
		fmt.Fprintf(&b, "# processes of %s ran with GODEBUG %s (%d seen)\n", p.bin, quoteNone(p.godebug), w.seen[p])
	}
	return b.String()
}

func (w *envWatch) sorted() []seenProc {
	return slices.SortedFunc(maps.Keys(w.seen), func(a, b seenProc) int {
		return cmp.Or(strings.Compare(a.bin, b.bin), strings.Compare(a.godebug, b.godebug))
	})
}

// quoteNone quotes a GODEBUG, or says none.
func quoteNone(godebug string) string {
	if godebug == "" {
		return "none"
	}
	return strconv.Quote(godebug)
}
