package outfile

import (
	"os"

	"github.com/innosim/innosim/internal/cmdflag"
)

// CheckInput refuses an output that is the file at path, which the command
// reads (os.SameFile: the same path, a link to it, a hard link): the output
// would replace its own input, and an interrupted command would leave
// neither. named is how the command line gave the input ("-cnf my.cnf",
// "FILE.csv"). The error is a *cmdflag.UsageError naming both; nil when
// they are different files, or when either is not there (nothing to
// replace, or an input the command will refuse itself).
func (o *File) CheckInput(named, path string) error {
	if o.path == "" || path == "" || o.IsStdout() {
		return nil
	}
	in, err := os.Stat(path)
	if err != nil {
		return nil
	}
	var out os.FileInfo
	if o.through != nil {
		out, err = o.through.Stat()
	} else {
		out, err = os.Stat(o.dest)
	}
	if err != nil || !os.SameFile(in, out) {
		return nil
	}
	return cmdflag.Usagef("%s %s is the file of %s: the output would replace its input; want another path", o.flag, cmdflag.QuotePath(o.path), named)
}

// CheckInputs is CheckInput of each output of outs against each input,
// given as pairs of how the command line named it and its path; the first
// refusal, or nil.
func CheckInputs(outs []*File, inputs ...string) error {
	for _, o := range outs {
		for i := 0; i+1 < len(inputs); i += 2 {
			if err := o.CheckInput(inputs[i], inputs[i+1]); err != nil {
				return err
			}
		}
	}
	return nil
}
