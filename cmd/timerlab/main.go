// Command timerlab runs the timer-variant experiment: it benchmarks every variant's toolchain
// side by side, renders the report, writes bent and sweet configurations, and verifies results.
// It parses flags and hands them to the packages under internal/ (docs/pipeline.md has the map).
// `timerlab help` prints the synopsis of every command; `timerlab COMMAND -h` a command's flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"timerlab/internal/configs"
	"timerlab/internal/experiment"
	"timerlab/internal/instr"
	"timerlab/internal/lab"
	"timerlab/internal/matrix"
	"timerlab/internal/report"
	"timerlab/internal/selection"
	"timerlab/internal/suite"
	"timerlab/internal/verify"
	"timerlab/internal/xbench"
)

// A command is one of timerlab's commands: its flags' synopsis, what it does, and its function.
type command struct {
	name, args, what string
	run              func(context.Context, []string) error
}

// commands are timerlab's commands in the order the synopsis lists them; main fills it in.
var commands []command

func init() {
	commands = []command{
		{"bench", "[--quick] [--sets a,b|headline] [--pkg PKG,PKG@VERSION,./DIR [--bench REGEXP]] [--variants a,b] " +
			"[--sweep-sets a,b|all] [--rounds N] [--count N] [--timeout D] [--out DIR] [--build-only [--etcd-requests N] | --prebuilt]",
			"run the matrix of variants × benchmark sets × rounds into a results directory (resumable)", benchCmd},
		{"report", "[--results DIR] [--docs DIR] [--xbench DIR|none] [--instr DIR|none] [--partial]",
			"render docs/results.md and docs/results/*.svg from a results directory", reportCmd},
		{"verify", "[--docs DIR] RESULTS_DIR", "check a results directory is complete (and a report was rendered from it)",
			verifyCmd},
		{"configs", "[--variants a,b] [--out DIR] [--cpuprofile=false]",
			"write bent and sweet configuration files for the toolchains", configsCmd},
		{"xbench", "", "install sweet and bent (golang.org/x/benchmarks) and etcd's source at xbench.conf's pin", xbenchCmd},
		{"instr", "[--variants a,b] [--pkg PKG|PKG@VERSION|./DIR] [--bench REGEXP] [--rounds N] [--n N] [--out DIR] " +
			"[--valgrind CMD]", "compare instructions per op of a package's benchmarks under cachegrind", instrCmd},
		{"help", "[COMMAND]", "this synopsis, or a command's flags", helpCmd},
	}
}

// synopsis writes what timerlab does and every command's usage.
func synopsis(w io.Writer) {
	fmt.Fprint(w, "timerlab measures the runtime timer variants of this checkout against each other (README.md).\n\n"+
		"usage: timerlab COMMAND [flags]\n\n")
	for _, c := range commands {
		usage := "timerlab " + c.name + " "
		fmt.Fprint(w, wrap(usage+c.args, "  ", strings.Repeat(" ", 2+len(usage))))
		fmt.Fprint(w, wrap(c.what, "      ", "      "))
	}
	fmt.Fprint(w, "\n"+wrap("make runs the first answer (timerlab bench --sets headline with its variants), make full the whole matrix; "+
		"docs/benchmarks.md has the details. Run timerlab help COMMAND, or timerlab COMMAND -h, for its flags.", "", ""))
}

// errHelp is what a command returns after printing the help it was asked for: the exit status is 0.
var errHelp = errors.New("help printed")

// usageError is a command line timerlab refuses: one line, exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line args and returns the exit status: 0 when it did what was asked, 1
// when that failed, 2 for a command line it refuses: a usage error, or names the choice of
// variants and sets refuses (selection.Error).
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		synopsis(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	}
	cmd := find(name)
	if cmd == nil {
		fmt.Fprintf(stderr, "timerlab: unknown command %q (timerlab help lists them)\n", name)
		return 2
	}
	// Interrupted or terminated, a command cancels its context: the tools it runs (sweet, bent,
	// their servers) are killed with their process groups, not left running.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	helpOut, logOut = stdout, stderr
	err := cmd.run(ctx, args[1:])
	var ue usageError
	var se *selection.Error
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "timerlab %s: %s\n", name, ue.msg)
		return 2
	case errors.As(err, &se):
		fmt.Fprintf(stderr, "timerlab %s: %s\n", name, se.Msg)
		return 2
	default:
		fmt.Fprintf(stderr, "timerlab %s: %v\n", name, err)
		return 1
	}
}

// find returns the command called name, or nil.
func find(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// helpOut is where help and what a command prints go, logOut its progress and warnings: run's
// stdout and stderr.
var helpOut, logOut io.Writer = os.Stdout, os.Stderr

func helpCmd(_ context.Context, args []string) error {
	fs := newFlags("help", nil)
	if err := parse(fs, args, true); err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
		synopsis(helpOut)
		return errHelp
	case 1:
		c := find(fs.Arg(0))
		switch {
		case c == nil:
			return usagef("unknown command %q (timerlab help lists them)", fs.Arg(0))
		case c.name == "help":
			fs.help()
			return errHelp
		}
		return c.run(context.Background(), []string{"-h"})
	}
	return usagef("want at most one command, got %d: %s (usage: timerlab help [COMMAND])", fs.NArg(),
		strings.Join(fs.Args(), " "))
}

// flags are a command's flag set, which prints nothing itself (parse reports), and its help.
type flags struct {
	*flag.FlagSet
	help func()
}

// newFlags returns the flags of the command name. more, if not nil, writes what the command's
// help says after its flags.
func newFlags(name string, more func(io.Writer)) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // the flag package calls it on every error too: parse prints the help
	help := func() {
		c := find(name)
		usage := "usage: timerlab " + c.name + " "
		fmt.Fprint(helpOut, wrap(usage+c.args, "", strings.Repeat(" ", len(usage))))
		fmt.Fprint(helpOut, "\n"+wrap(capitalize(c.what)+".", "", ""))
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprint(helpOut, "\nflags:\n")
			writeFlags(helpOut, fs, c.args)
		}
		if more != nil {
			fmt.Fprintln(helpOut)
			more(helpOut)
		}
	}
	return &flags{fs, help}
}

func capitalize(s string) string {
	return strings.ToUpper(s[:1]) + s[1:]
}

// parse parses args into fs, flags and (with positional) arguments in any order, the arguments
// left in fs.Args. Help asked for is printed (errHelp); a flag that is not fs's (all of them
// named), a value a flag refuses, or any argument when positional is false, is one line
// (usageError).
func parse(fs *flags, args []string, positional bool) error {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.help()
				return errHelp
			}
			if unknown := unknownFlags(fs.FlagSet, args); len(unknown) > 0 {
				return usagef("unknown %s %s (timerlab %s -h lists its flags)", plural(len(unknown), "flag", "flags"),
					strings.Join(unknown, ", "), fs.Name())
			}
			return usagef("%s (timerlab %s -h lists its flags)", flagError(err), fs.Name())
		}
		if fs.NArg() == 0 {
			break
		}
		if !positional {
			return usagef("unexpected argument %q: the command takes flags only (timerlab %s -h lists them)",
				fs.Arg(0), fs.Name())
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return fs.FlagSet.Parse(append([]string{"--"}, rest...)) // leaves rest in fs.Args
}

// unknownFlags returns every flag of args that fs does not define, as --name.
func unknownFlags(fs *flag.FlagSet, args []string) []string {
	var unknown []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, hasValue := strings.TrimLeft(a, "-"), false
		if n, _, ok := strings.Cut(name, "="); ok {
			name, hasValue = n, true
		}
		f := fs.Lookup(name)
		switch {
		case f == nil && name != "h" && name != "help":
			unknown = append(unknown, "--"+name)
		case f != nil && !hasValue && !isBool(f):
			i++ // its value
		}
	}
	return unknown
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// flagError says what the flag package refused as the usage line would: --name.
func flagError(err error) string {
	msg := err.Error()
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s %s: %s", m[2], m[1], m[3])
	}
	return singleDash.ReplaceAllString(msg, "$1--$2")
}

var (
	invalidValue = regexp.MustCompile(`^invalid (?:boolean )?value (".*") for (?:flag )?-(\S+): (.*)$`)
	singleDash   = regexp.MustCompile(`(argument: |defined: |syntax: )-([^-])`)
)

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// list is a flag of comma-separated names (blanks around them dropped). A value that names
// nothing (--variants ,) is refused: it would otherwise mean the default, all of them.
type list struct{ names []string }

func (l *list) String() string { return strings.Join(l.names, ",") }

func (l *list) Set(s string) error {
	l.names = nil
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			l.names = append(l.names, f)
		}
	}
	if len(l.names) == 0 {
		return errors.New("names nothing")
	}
	return nil
}

// listFlag defines the list flag name on fs, with the default value def, described by usage.
func listFlag(fs *flags, name string, def []string, usage string) *list {
	l := &list{names: def}
	fs.Var(l, name, usage)
	return l
}

// checkout returns the layout of the timerlab checkout holding the working directory.
func checkout() (lab.Layout, error) {
	root, err := lab.FindRoot(".")
	if err != nil {
		return lab.Layout{}, err
	}
	return lab.NewLayout(root), nil
}
func benchCmd(ctx context.Context, args []string) error {
	fs := newFlags("bench", benchHelp)
	quick := fs.Bool("quick", false, "the small CI matrix (short runs, small N, no net or third-party sets)")
	variantList := listFlag(fs, "variants", nil, "comma-separated variants (default: all of variants.conf)")
	setList := listFlag(fs, "sets", nil, "comma-separated benchmark sets, or headline for the first answer's "+
		"(default: all of the mode but those that run only when named)")
	pkgList := listFlag(fs, "pkg", nil, "comma-separated packages whose benchmarks make a set each, named "+
		"pkg-PATH (after --sets' sets; alone without --sets): a std package (net/http), a module's package at a "+
		"version (golang.org/x/net/http2@v0.30.0, through the module proxy), or a directory of a local module "+
		"(/path or ./path)")
	bench := fs.String("bench", ".", "the -test.bench pattern of --pkg's sets (as go test -bench takes it)")
	sweepList := listFlag(fs, "sweep-sets", nil, "comma-separated sets the alias variants (series @TARGET) run on, "+
		"or all (default: the sets marked as sensitive to timer slack: wakeups)")
	out := fs.String("out", "", "results directory (default: $TIMERLAB_BUILD/results, or results-quick; "+
		"results-xbench for the sets of golang.org/x/benchmarks alone)")
	rounds := fs.Int("rounds", 0, "rounds of the matrix, at least 1 (default: 6, quick 3)")
	count := fs.Int("count", 1, "-test.count of each round, at least 1")
	timeout := fs.Duration("timeout", 15*time.Minute, "limit for one cell, above 0")
	buildOnly := fs.Bool("build-only", false, "build the test binaries and stop, to run them elsewhere with --prebuilt")
	prebuilt := fs.Bool("prebuilt", false, "run the matrix that --build-only built in --out, "+
		"on a machine without the toolchains")
	etcdRequests := fs.Int("etcd-requests", 0, "with --build-only: the requests of each of sweet-etcd's benchmarks "+
		"(Put, STM) in the pack's runs, at least 1000, one a client (default: sweet's 100,000)")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case set["rounds"] && *rounds < 1:
		return usagef("--rounds %d: want 1 or more", *rounds)
	case *count < 1:
		return usagef("--count %d: want 1 or more", *count)
	case *timeout <= 0:
		return usagef("--timeout %v: want a duration above 0, such as 15m", *timeout)
	case *buildOnly && *prebuilt:
		return usagef("--build-only and --prebuilt: want one of them")
	case set["etcd-requests"] && *etcdRequests == 0: // 0 means sweet's load, as if it were not given
		return usagef("--etcd-requests 0: want %d or more, one a client", matrix.MinEtcdRequests)
	case *buildOnly && len(pkgList.names) > 0:
		return usagef("--build-only: --pkg's sets run in their package's directory, which needs the toolchains: " +
			"run them where the toolchains are")
	case set["bench"] && len(pkgList.names) == 0:
		return usagef("--bench selects the benchmarks of --pkg's packages: name them with --pkg")
	}
	if err := suite.CheckPattern(*bench); err != nil {
		return usagef("--bench: %v", err)
	}
	l, err := checkout()
	if err != nil {
		return err
	}
	if *out == "" {
		*out = experiment.DefaultOut(l, *quick, setList.names, len(pkgList.names) > 0)
	}
	if *prebuilt {
		if shaping := matrixFlags(fs); len(shaping) > 0 {
			return usagef("--prebuilt runs the matrix recorded in %s: drop %s", *out, strings.Join(shaping, ", "))
		}
		return experiment.Prebuilt(ctx, l, *out, *timeout, logOut)
	}
	return experiment.Bench(ctx, l, experiment.Options{Quick: *quick, Variants: variantList.names,
		Sets: setList.names, SweepSets: sweepList.names, Rounds: *rounds, Count: *count,
		Timeout: *timeout, BuildOnly: *buildOnly, Packages: pkgList.names, Bench: *bench,
		EtcdRequests: *etcdRequests, Log: logOut}, *out)
}

// benchHelp lists what bench -h says after its flags: the names --sets and --variants take.
func benchHelp(w io.Writer) {
	writeNames(w, `benchmark sets (--sets; default: all but those marked "when named"):`, selection.SetNames())
	fmt.Fprintln(w)
	l, err := checkout()
	var vs []lab.Variant
	if err == nil {
		vs, err = l.ReadVariants()
	}
	if err != nil {
		fmt.Fprint(w, wrap(fmt.Sprintf("variants: variants.conf lists them (%v)", err), "", "  "))
		return
	}
	writeNames(w, "variants (--variants; default: all; the aliases, series @TARGET, run the sweep sets only, "+
		"the null floor the floor sets only):", selection.VariantNames(vs))
}

// matrixFlags returns the flags set on fs that shape a matrix or build one (all but --out,
// --timeout and --prebuilt), as -name.
func matrixFlags(fs *flags) []string {
	var names []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "out" && f.Name != "timeout" && f.Name != "prebuilt" {
			names = append(names, "--"+f.Name)
		}
	})
	return names
}

func reportCmd(_ context.Context, args []string) error {
	fs := newFlags("report", nil)
	dir := fs.String("results", "", "results directory (default: $TIMERLAB_BUILD/results, make full's, if it holds "+
		"a matrix, else $TIMERLAB_BUILD/results-first, make's)")
	docs := fs.String("docs", "", "where results.md and results/*.svg go (default: <repo>/docs)")
	xbenchDir := fs.String("xbench", "", "results directory of a matrix of the sets of golang.org/x/benchmarks alone, "+
		"rendered as their section (default, where --results is make's or make full's: $TIMERLAB_BUILD/results-xbench if "+
		"it holds a matrix of the same patch series; none: no such section)")
	instrDir := fs.String("instr", "", "results directory of timerlab instr, whose instructions per op the verdict "+
		"gives beside the times (default, where --results is make's or make full's: $TIMERLAB_BUILD/results-first-instr, "+
		"make's, else results-instr, the first that counts the patch series rendered; none: no counts)")
	partial := fs.Bool("partial", false, "render results that are incomplete or mixed, which verify refuses, "+
		"and open the report with what they lack or mix (sections of other patch series too)")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	l, err := checkout()
	if err != nil {
		return err
	}
	return report.Render(l, *dir, *docs, *xbenchDir, *instrDir, *partial, logOut)
}

func configsCmd(_ context.Context, args []string) error {
	fs := newFlags("configs", nil)
	variantList := listFlag(fs, "variants", nil, "comma-separated variants (default: all of variants.conf but the null floor)")
	out := fs.String("out", "", "directory for the files (default: $TIMERLAB_BUILD/results)")
	profile := fs.Bool("cpuprofile", true, "ask bent and sweet for CPU profiles")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	l, err := checkout()
	if err != nil {
		return err
	}
	paths, err := configs.WriteFor(l, variantList.names, *out, *profile)
	for _, p := range paths {
		fmt.Fprintln(helpOut, p)
	}
	return err
}

func xbenchCmd(ctx context.Context, args []string) error {
	fs := newFlags("xbench", func(w io.Writer) {
		fmt.Fprint(w, wrap(fmt.Sprintf("It installs sweet and bent at the version xbench.conf pins into "+
			"$TIMERLAB_BUILD/xbench (go install), with etcd's source at its pinned tag (git clone). Where the module "+
			"proxy refuses golang.org/x/benchmarks or github.com cannot be reached, %s and %s name git checkouts at "+
			"the pinned commits.", xbench.SrcEnv, xbench.EtcdSrcEnv), "", ""))
	})
	if err := parse(fs, args, false); err != nil {
		return err
	}
	l, err := checkout()
	if err != nil {
		return err
	}
	_, err = xbench.Install(ctx, l, logOut)
	return err
}

func instrCmd(ctx context.Context, args []string) error {
	fs := newFlags("instr", nil)
	variantList := listFlag(fs, "variants", []string{"heap", "upstream"}, "comma-separated variants, the first the baseline")
	pkg := fs.String("pkg", "time", "the package whose benchmarks run, as bench --pkg takes one: a std package, "+
		"a module's package at a version (PATH@VERSION), or a directory of a local module (/path or ./path)")
	bench := fs.String("bench", experiment.DefaultInstrBench, "the -test.bench pattern (as go test -bench takes it); "+
		"a benchmark with sub-benchmarks is measured per sub-benchmark (default: time's timer benchmarks)")
	rounds := fs.Int("rounds", 6, "measurements per benchmark and variant, interleaved round-robin, at least 1")
	n := fs.Int("n", 0, fmt.Sprintf("iterations of the shorter run, the longer one runs 2N (default: per benchmark, "+
		"what takes about %v natively)", instr.Target))
	out := fs.String("out", "", "results directory (default: $TIMERLAB_BUILD/results-instr)")
	valgrind := fs.String("valgrind", "valgrind", "the valgrind command")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *rounds < 1 {
		return usagef("--rounds %d: want 1 or more", *rounds)
	}
	if err := suite.CheckPattern(*bench); err != nil {
		return usagef("--bench: %v", err)
	}
	if *n != 0 && *n < instr.MinN {
		return usagef("--n %d: want %d or more, or 0 for each benchmark's own", *n, instr.MinN)
	}
	l, err := checkout()
	if err != nil {
		return err
	}
	if *out == "" {
		*out = l.InstrResults()
	}
	return experiment.Instr(ctx, l, experiment.InstrOptions{Variants: variantList.names, Pkg: *pkg,
		Bench: *bench, Rounds: *rounds, N: *n, Valgrind: *valgrind, Log: logOut, Report: helpOut}, *out)
}

func verifyCmd(_ context.Context, args []string) error {
	fs := newFlags("verify", nil)
	docs := fs.String("docs", "", "also check the report rendered into this directory, and that it was rendered "+
		"from RESULTS_DIR")
	if err := parse(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one results directory, got %d%s (usage: timerlab verify [--docs DIR] RESULTS_DIR)",
			fs.NArg(), map[bool]string{true: ": " + strings.Join(fs.Args(), " "), false: ""}[fs.NArg() > 0])
	}
	dir := fs.Arg(0)
	c, err := verify.Inspect(dir)
	if err != nil {
		return err
	}
	if len(c.Gaps) > 0 {
		return verify.IncompleteError(dir, c.Gaps)
	}
	for _, w := range c.Warnings {
		fmt.Fprintln(logOut, "timerlab: warning:", w)
	}
	if *docs != "" {
		if err := verify.Report(*docs); err != nil {
			return err
		}
		if err := verify.Source(*docs, dir); err != nil {
			return err
		}
	}
	fmt.Fprintf(logOut, "timerlab: %s verified\n", dir)
	return nil
}
