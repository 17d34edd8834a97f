// Package bench is the root of timerlab's timer workloads. Each subdirectory is one benchmark set
// that timerlab bench builds and runs with every variant's toolchain; this is a module of its own
// so that the libraries it pins stay out of the harness's module.
package bench
