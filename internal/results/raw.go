package results

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/perf/benchfmt"

	"timerlab/internal/atomicfile"
	"timerlab/internal/matrix"
)

// RawPath is the file holding all of variant's benchmark output, relative to a results directory.
func RawPath(variant string) string {
	return filepath.Join("raw", variant+".txt")
}

// ProfilePath is the CPU profile of variant running set, relative to a results directory.
func ProfilePath(variant, set string) string {
	return matrix.Cell{Kind: matrix.Profile, Variant: variant, Set: set}.Path()
}

// Assemble writes variant's raw file: the environment header, then the output of every run cell
// of the variant that is done, in set and round order. It returns how many run cells it took.
func Assemble(dir string, spec matrix.Spec, env Env, variant string) (int, error) {
	var b bytes.Buffer
	if err := env.Header(&b, variant); err != nil {
		return 0, err
	}
	n := 0
	for _, c := range spec.RunCells(variant) {
		data, err := os.ReadFile(filepath.Join(dir, c.Path()))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(&b, "# %s\n", c)
		b.Write(data)
		n++
	}
	return n, atomicfile.WriteFile(filepath.Join(dir, RawPath(variant)), b.Bytes())
}

// Read parses Go benchmark output from files. Malformed benchmark lines are skipped; each one
// adds a warning naming its file and line. A file that cannot be read is an error.
func Read(files ...string) (res []*benchfmt.Result, warnings []string, err error) {
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		r, w := readFrom(f, path)
		f.Close()
		res = append(res, r...)
		warnings = append(warnings, w...)
	}
	return res, warnings, nil
}

func readFrom(f io.Reader, name string) (res []*benchfmt.Result, warnings []string) {
	r := benchfmt.NewReader(f, name)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			res = append(res, rec.Clone())
		case *benchfmt.SyntaxError:
			warnings = append(warnings, "skipped malformed line: "+rec.Error())
		}
	}
	return res, warnings
}
