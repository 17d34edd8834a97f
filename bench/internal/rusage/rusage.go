// Package rusage reads the process's resource usage from the OS (getrusage), so that workloads
// report what the kernel saw, wherever in the process the work ran.
package rusage

import (
	"syscall"
	"testing"
	"time"
)

// Usage is the process's resource usage since it started.
type Usage struct {
	CPU  time.Duration // user + system CPU time
	VCSW int64         // voluntary context switches
}

// Read returns the process's resource usage, failing b if the OS does not give it.
func Read(b testing.TB) Usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return Usage{CPU: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), VCSW: ru.Nvcsw}
}
