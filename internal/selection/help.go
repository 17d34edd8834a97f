package selection

import (
	"strings"

	"timerlab/internal/lab"
	"timerlab/internal/suite"
)

// A Name is a name a command line may give, what it stands for, and how the choice treats it
// (Marks), for a command's help to list.
type Name struct {
	Name, About string
	Marks       []string
}

// SetNames lists the names --sets takes: every set of the full matrix, marked "when named" if it
// runs only when named, "quick too" if the quick matrix has it, "aliases run it" for a sweep set,
// "the null floor runs it" for a floor set; then HeadlineGroup.
func SetNames() []Name {
	var out []Name
	quick := suite.Sets(true)
	for _, s := range suite.Sets(false) {
		n := Name{Name: s.Name, About: s.About}
		if s.OptIn {
			n.Marks = append(n.Marks, "when named")
		}
		if _, ok := suite.Find(quick, s.Name); ok {
			n.Marks = append(n.Marks, "quick too")
		}
		if s.Sweep {
			n.Marks = append(n.Marks, "aliases run it")
		}
		if s.Floor {
			n.Marks = append(n.Marks, "the null floor runs it")
		}
		out = append(out, n)
	}
	return append(out, Name{Name: HeadlineGroup,
		About: "the first answer, make's default matrix: " + strings.Join(HeadlineSets, ", ")})
}

// VariantNames lists the names --variants takes: the variants vs of variants.conf, an alias with
// its target and GODEBUG.
func VariantNames(vs []lab.Variant) []Name {
	var out []Name
	for _, v := range vs {
		about := v.Text
		if v.IsAlias() {
			about = "alias of " + v.Toolchain + ", GODEBUG=" + v.Godebug + ": " + about
		}
		out = append(out, Name{Name: v.Name, About: about})
	}
	return out
}
