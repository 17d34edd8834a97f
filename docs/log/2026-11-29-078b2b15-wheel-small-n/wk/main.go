// Command wk starts and stops one AfterFunc(30 s) timer N times on one goroutine, with the other
// Ps idle, and prints the process's context switches and CPU time per op (getrusage).
package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

func nop() {}

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	var a, b syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &a)
	start := time.Now()
	for range n {
		time.AfterFunc(30*time.Second, nop).Stop()
	}
	el := time.Since(start)
	syscall.Getrusage(syscall.RUSAGE_SELF, &b)
	cpu := time.Duration(b.Utime.Nano() + b.Stime.Nano() - a.Utime.Nano() - a.Stime.Nano())
	fmt.Printf("nvcsw/op %.4f nivcsw/op %.4f cpu/op %v wall/op %v\n",
		float64(b.Nvcsw-a.Nvcsw)/float64(n), float64(b.Nivcsw-a.Nivcsw)/float64(n), cpu/time.Duration(n), el/time.Duration(n))
}
