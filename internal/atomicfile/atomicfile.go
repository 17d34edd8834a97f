// Package atomicfile writes files that are whole or absent: each is written to a partial file
// beside it and renamed into place, so a reader, or a run resumed after an interruption, never
// finds a file half-written. The matrix's cells write their outputs the same way (Partial).
package atomicfile

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Partial is where a file is written until it is complete.
func Partial(path string) string {
	return path + ".partial"
}

// WriteFile writes data to path through its partial file, renamed into place; it makes path's
// directory if needed.
func WriteFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	partial := Partial(path)
	if err := os.WriteFile(partial, data, 0o644); err != nil {
		os.Remove(partial)
		return err
	}
	return os.Rename(partial, path)
}

// WriteJSON writes v to path as indented JSON, as WriteFile does.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(data, '\n'))
}
