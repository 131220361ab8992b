package cmdflag

import (
	"flag"
	"fmt"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Suggest returns the candidate nearest to name by edit distance (one
// insertion, deletion or substitution of a character each), or "" when
// none is within a third of name's length (at least 1, at most 3): the
// "did you mean" of a mistyped command or flag, as cobra and git give it.
func Suggest(name string, candidates []string) string {
	limit := min(max(len(name)/3, 1), 3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if d := levenshtein.ComputeDistance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// undefinedPrefix begins the flag package's error for a flag it does not
// define.
const undefinedPrefix = "flag provided but not defined: -"

// withSuggestion adds "did you mean -x?" to the flag package's error for an
// undefined flag that is near one of fs's flags.
func (fs *FlagSet) withSuggestion(err error) error {
	name, ok := strings.CutPrefix(err.Error(), undefinedPrefix)
	if !ok {
		return err
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if s := Suggest(name, names); s != "" {
		return fmt.Errorf("%w: did you mean -%s?", err, s)
	}
	return err
}
