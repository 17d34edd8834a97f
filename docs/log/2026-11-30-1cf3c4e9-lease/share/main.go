// Command share prints, for each CPU profile named, its samples and the shares of timer code,
// clock reads and the netpoller, as timerlab's report classifies them (internal/profiles).
package main

import (
	"fmt"
	"os"

	"timerlab/internal/profiles"
)

func main() {
	for _, path := range os.Args[1:] {
		p, err := profiles.Load(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		a := profiles.Analyze(p)
		fmt.Printf("%s: %d samples; timer %.1f ± %.1f%%, clock %.1f ± %.1f%%, netpoll %.1f ± %.1f%%\n", path, a.Samples,
			100*a.Timer, 100*profiles.HalfWidth(a.Timer, a.Samples), 100*a.Clock, 100*profiles.HalfWidth(a.Clock, a.Samples),
			100*a.Netpoll, 100*profiles.HalfWidth(a.Netpoll, a.Samples))
	}
}
