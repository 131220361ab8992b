package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/outfile"
)

// outputs opens one output file (outfile.New) per (flag, path) pair, or none and an error (also
// when two flags name the same file); the caller defers discardAll. A -json
// output may be stdout, named "-" (outfile.NewStdout).
func outputs(stdout io.Writer, pairs ...string) ([]*outfile.File, error) {
	var outs []*outfile.File
	seen := map[string]string{} // absolute path → the flag that named it
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" && !(pairs[i] == "-json" && pairs[i+1] == outfile.Stdout) {
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
		if pairs[i] == "-json" {
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
