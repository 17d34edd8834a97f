package selection

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"timerlab/internal/lab"
	"timerlab/internal/suite"
)

// Help writes what timerlab bench -h says after its flags: the sets of each mode, which variants
// run on which (the aliases on the sweep sets, the null floor on the floor sets), the group
// headline, and the variants vs of this checkout, or err, the reason they could not be read.
func Help(w io.Writer, vs []lab.Variant, err error) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark sets (--sets; default: all but those marked \"when named\"):")
	quick := suite.Sets(true)
	for _, s := range suite.Sets(false) {
		var marks []string
		if s.OptIn {
			marks = append(marks, "when named")
		}
		if _, ok := suite.Find(quick, s.Name); ok {
			marks = append(marks, "quick too")
		}
		if s.Sweep {
			marks = append(marks, "aliases run it")
		}
		if s.Floor {
			marks = append(marks, "the null floor runs it")
		}
		fmt.Fprintf(tw, "  %s\t%s\t[%s]\n", s.Name, s.About, strings.Join(marks, ", "))
	}
	fmt.Fprintf(tw, "  %s\tthe first answer, make's default matrix: %s\t\n", HeadlineGroup,
		strings.Join(HeadlineSets, ", "))
	tw.Flush()
	fmt.Fprintln(w)
	if err != nil {
		fmt.Fprintf(w, "variants: variants.conf lists them (%v)\n", err)
		return
	}
	fmt.Fprintln(tw, "variants (--variants; default: all; the aliases, series @TARGET, run the sweep sets only, "+
		"the null floor the floor sets only):")
	for _, v := range vs {
		what := v.Text
		if v.IsAlias() {
			what = "alias of " + v.Toolchain + ", GODEBUG=" + v.Godebug + ": " + what
		}
		fmt.Fprintf(tw, "  %s\t%s\n", v.Name, what)
	}
	tw.Flush()
}
