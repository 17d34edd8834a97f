package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"timerlab/internal/selection"
)

// width is the most columns any help line takes.
const width = 100

// wrap breaks text into lines of at most width columns (a word longer than that has a line of
// its own), the first starting with first, the others with rest; each line ends with a newline.
// A bracketed group ([--out DIR], [when named]) is one word.
func wrap(text, first, rest string) string {
	var b strings.Builder
	line := first
	empty := true
	for _, word := range words.FindAllString(text, -1) {
		switch {
		case empty:
			line += word
			empty = false
		case len([]rune(line))+1+len([]rune(word)) > width:
			b.WriteString(line + "\n")
			line = rest + word
		default:
			line += " " + word
		}
	}
	b.WriteString(line + "\n")
	return b.String()
}

// words are the units wrap keeps whole: a bracketed group, or a run of non-spaces.
var words = regexp.MustCompile(`\[[^\]]*\]\S*|\S+`)

// writeNames writes a list of names under heading: each name, then what it is and its marks,
// wrapped in a column of their own.
func writeNames(w io.Writer, heading string, names []selection.Name) {
	fmt.Fprint(w, wrap(heading, "", "  "))
	col := 0
	for _, n := range names {
		col = max(col, len(n.Name))
	}
	indent := strings.Repeat(" ", 2+col+2)
	for _, n := range names {
		text := n.About
		if len(n.Marks) > 0 {
			text += " [" + strings.Join(n.Marks, ", ") + "]"
		}
		fmt.Fprint(w, wrap(text, fmt.Sprintf("  %-*s  ", col, n.Name), indent))
	}
}

// writeFlags writes the flags of fs as the usage line args names them (--name, and the value it
// shows, such as --out DIR), with what each does, wrapped, and its default where that is not the
// zero value.
func writeFlags(w io.Writer, fs *flag.FlagSet, args string) {
	shown := map[string]string{}
	for _, m := range flagValue.FindAllStringSubmatch(args, -1) {
		shown[m[1]] = m[2]
	}
	fs.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(f)
		if v, ok := shown[f.Name]; ok {
			kind = v
		}
		head := "  --" + f.Name
		if kind != "" && !isBool(f) {
			head += " " + kind
		}
		if !isZero(f) && !strings.Contains(usage, "default") {
			def := f.DefValue
			if _, ok := f.Value.(*list); ok {
				def = strings.ReplaceAll(def, ",", ", ") // wrap may break it
			}
			usage += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprint(w, head+"\n"+wrap(usage, "      ", "      "))
	})
}

// flagValue matches a flag and the value a usage line shows it with: --out DIR.
var flagValue = regexp.MustCompile(`--([a-z-]+) ([^\s\]]+)`)

// isZero reports whether f's default is its type's zero value, which help does not repeat.
func isZero(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "0s":
		return true
	}
	return false
}
