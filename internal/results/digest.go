package results

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"timerlab/internal/matrix"
)

// Digest returns the SHA-256, in hex, of what the report reads in the results directory dir of
// the matrix spec: matrix.json, env.json, the pin of golang.org/x/benchmarks, each variant's raw
// file and the profiles of the matrix, each named and hashed in that order (one that is missing
// counts as missing). A report records it, so that timerlab verify --docs can tell which results
// it was rendered from, wherever they were copied.
func Digest(dir string, spec matrix.Spec) (string, error) {
	files := []string{"matrix.json", envFile, xbenchFile}
	for _, v := range spec.Variants {
		files = append(files, RawPath(v))
	}
	for _, set := range spec.Sets {
		for _, v := range spec.Variants {
			if spec.Runs(v, set) && spec.Profiled(set) {
				files = append(files, ProfilePath(v, set))
			}
		}
	}
	h := sha256.New()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(h, "%s missing\n", filepath.ToSlash(f))
		case err != nil:
			return "", err
		default:
			fmt.Fprintf(h, "%s %x\n", filepath.ToSlash(f), sha256.Sum256(data))
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}
