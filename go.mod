module timerlab

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da
	gonum.org/v1/plot v0.17.0
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.2.0 // indirect
	codeberg.org/go-pdf/fpdf v0.11.1 // indirect
	git.sr.ht/~sbinet/gg v0.7.0 // indirect
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	golang.org/x/image v0.46.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)

// The names of the figures the workloads of bench/ report (timerlab/bench/units, which imports
// nothing): the harness reads them under the same names. Nothing else of bench/ is imported, so its
// third-party libraries stay out of the harness's build.
require timerlab/bench v0.0.0

replace timerlab/bench => ./bench
