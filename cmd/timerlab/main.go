// Command timerlab runs the timer-variant experiment: it benchmarks every variant's toolchain
// side by side, renders the report, writes bent and sweet configurations, and verifies results.
//
// Usage:
//
//	timerlab bench [--quick] [--variants heap,upstream] [--sets a,b] [--sweep-sets a|all] [--out DIR]
//	timerlab report [--results DIR] [--docs DIR]
//	timerlab configs [--variants ...] [--out DIR]
//	timerlab xbench
//	timerlab verify [--docs DIR] RESULTS_DIR
//	timerlab instr [--variants heap,upstream] [--pkg time] [--bench a,b] [--rounds 6] [--n N] [--out DIR]
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

const usage = `usage: timerlab <command> [flags]

commands:
  bench    run the matrix of variants × benchmark sets × rounds (resumable)
  report   render docs/results.md and docs/results/*.svg from a results directory
  configs  write bent and sweet configuration files for the toolchains
  xbench   install sweet and bent (golang.org/x/benchmarks) and etcd's source at xbench.conf's pin
  verify   check a results directory (and a rendered report) parse
  instr    compare instructions per op of a std package's benchmarks under cachegrind
Run timerlab <command> -h for its flags.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	commands := map[string]func(context.Context, []string) error{
		"bench": benchCmd, "report": reportCmd, "configs": configsCmd, "verify": verifyCmd,
		"instr": instrCmd, "xbench": xbenchCmd,
	}
	cmd, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "timerlab: unknown command %q\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err := cmd(ctx, os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "timerlab %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
