package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/outfile"
)

// outputs opens one output file (outfile.New) per (flag, path) pair, or none and an error (also
// when two flags name the same file, or both standard output); the caller defers discardAll.
// Every output but a chart (-plot, -charts) may be stdout, named "-" (outfile.NewStdout), as
// every tool that takes "-" for a file means it.
func outputs(stdout io.Writer, pairs ...string) ([]*outfile.File, error) {
	var outs []*outfile.File
	seen := map[string]string{} // absolute path, or "-" → the flag that named it
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == outfile.Stdout {
			if other, ok := seen[outfile.Stdout]; ok {
				discardAll(outs)
				return nil, cmdflag.Usagef("%s - and %s - both name standard output: want a file for one of them", other, pairs[i])
			}
			seen[outfile.Stdout] = pairs[i]
		} else if pairs[i+1] != "" {
			abs, err := filepath.Abs(pairs[i+1])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", pairs[i], err)
			}
			if other, ok := seen[abs]; ok {
				discardAll(outs)
				return nil, cmdflag.Usagef("%s and %s both name %s: want a file each", other, pairs[i], pairs[i+1])
			}
			seen[abs] = pairs[i]
		}
		var o *outfile.File
		var err error
		if !isChart(pairs[i]) {
			o, err = outfile.NewStdout(pairs[i], pairs[i+1], stdout)
		} else {
			o, err = outfile.New(pairs[i], pairs[i+1])
		}
		if err != nil {
			discardAll(outs)
			return nil, err
		}
		outs = append(outs, o)
	}
	return outs, nil
}

func discardAll(outs []*outfile.File) {
	for _, o := range outs {
		o.Discard()
	}
}

// isChart reports whether flag is a chart's output, which cannot go to standard output.
func isChart(flag string) bool { return flag == "-plot" || flag == "-charts" }

// anyStdout reports whether one of outs goes to standard output, where the text tables then do not.
func anyStdout(outs []*outfile.File) bool {
	for _, o := range outs {
		if o.IsStdout() {
			return true
		}
	}
	return false
}
