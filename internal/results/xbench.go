package results

import (
	"encoding/json"
	"path/filepath"

	"timerlab/internal/atomicfile"
)

// XBenchPin is what a results directory records, in xbench.json, of the golang.org/x/benchmarks
// whose sweet and bent ran its cells: the fields of the xbench.conf they were installed from
// (internal/xbench.Pin, whose fields these are).
type XBenchPin struct {
	Module      string // golang.org/x/benchmarks
	Version     string // its pseudo-version
	Repo        string
	EtcdRepo    string
	EtcdVersion string // the etcd tag sweet's etcd benchmark builds
	EtcdCommit  string
}

const xbenchFile = "xbench.json"

// ReadXBenchPin returns the pin recorded in the results directory dir.
func ReadXBenchPin(dir string) (XBenchPin, error) {
	var p XBenchPin
	return p, readJSON(filepath.Join(dir, xbenchFile), &p)
}

// WriteXBenchPin records p in the results directory dir.
func WriteXBenchPin(dir string, p XBenchPin) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, xbenchFile), append(data, '\n'))
}
