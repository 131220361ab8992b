package benchcmp

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/infile"
	"github.com/innosim/innosim/internal/outfile"
)

// ErrRegression is returned by Run with -fail when the verdict is Regression, so
// that a CI step fails.
var ErrRegression = errors.New("benchcmp: significant regression")

// ErrNotJudged is returned by Run with -fail when the two files' environments
// differ, so that no verdict could be made: a CI step that asked for a
// verdict fails rather than pass a comparison nobody judged.
var ErrNotJudged = errors.New("benchcmp: environments differ, no verdict")

// Run is the `innosim compare [-fail] [-json FILE] OLD.txt NEW.txt` command:
// it parses both files, compares them and writes the report to stdout, and
// with -json as JSON (Report.WriteJSON) to FILE, or to stdout instead of the
// text when FILE is "-". args excludes the command
// name. It returns Parse's and Compare's errors (naming file and line), a
// *cmdflag.UsageError for a command line it cannot run (a bad flag: nothing
// is printed; a wrong count of files: the usage is printed), flag.ErrHelp
// for -h (the usage is printed), and with -fail ErrRegression when the verdict is Regression, or ErrNotJudged
// when the environments differ (a comparison across them is never a
// regression, and with -fail not a pass either).
func Run(args []string, stdout, stderr io.Writer) error {
	fs := cmdflag.New("compare", stderr, "innosim compare [-fail] [-json FILE] OLD.txt NEW.txt",
		"Compares two go test -bench outputs; refuses a verdict when their environments differ.")
	fail := fs.Bool("fail", false, "return an error (non-zero exit) when the verdict is a regression, or when the environments differ and there is no verdict")
	jsonPath := fs.String("json", "", "also write the comparison to this JSON file; - writes it to stdout instead of the text")
	names, err := fs.ParseInterspersed(args) // flags before, between or after the files
	if err != nil {
		return err
	}
	if len(names) != 2 {
		fs.Usage()
		return cmdflag.Usagef("want two files, got %d", len(names))
	}
	jsonOut, err := outfile.NewStdout("-json", *jsonPath, stdout)
	if err != nil {
		return err
	}
	defer jsonOut.Discard()
	if err := outfile.CheckInputs([]*outfile.File{jsonOut}, names[0], names[0], names[1], names[1]); err != nil {
		return err
	}
	var files [2]*File
	for i, name := range names {
		f, err := parseFile(name)
		if err != nil {
			return err
		}
		files[i] = f
	}
	r, err := Compare(files[0], files[1])
	if err != nil {
		return err
	}
	if !jsonOut.IsStdout() {
		if _, err := r.WriteTo(stdout); err != nil {
			return err
		}
	}
	if err := jsonOut.WriteStream(r.WriteJSON); err != nil {
		return err
	}
	switch {
	case *fail && r.Verdict == Regression:
		return ErrRegression
	case *fail && r.Verdict == NotJudged:
		keys := make([]string, len(r.EnvDiffs))
		for i, d := range r.EnvDiffs {
			keys[i] = d.Key
		}
		return fmt.Errorf("%w (%s): run both on one machine to judge", ErrNotJudged, strings.Join(keys, ", "))
	}
	return nil
}

// parseFile parses the benchmark output at name: a regular file (a named
// pipe or a device, /dev/zero, is refused before it is read; infile.Open) of
// at most maxFileSize bytes, refused by its size before it is read.
func parseFile(name string) (*File, error) {
	f, err := infile.Open(name)
	if err != nil {
		return nil, err // an *fs.PathError, naming the file
	}
	defer f.Close()
	if f.Size() > maxFileSize {
		return nil, fmt.Errorf("%s: larger than %d bytes: %w", name, maxFileSize, ErrMalformed)
	}
	return Parse(f, name)
}
