package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/innosim/innosim/sim"
)

func fitCommand() command {
	return command{
		name:    "fit",
		summary: "fit the Universal Scalability Law (σ, κ, λ, peak) to a CSV of concurrency,throughput",
		run:     fit,
	}
}

func fit(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nCol := fs.Int("n", 1, "column (1-based) holding the concurrency")
	xCol := fs.Int("x", 2, "column (1-based) holding the throughput")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: innosim fit [flags] FILE.csv")
		fmt.Fprintln(stderr, "\nFits X(N) = λN / (1 + σ(N−1) + κN(N−1)) by least squares. Lines starting with #")
		fmt.Fprintln(stderr, "and a header row whose cells are not numbers are skipped.")
		fmt.Fprintln(stderr, "\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return errUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one FILE.csv, got %d arguments", errUsage, fs.NArg())
	}
	if *nCol < 1 || *xCol < 1 {
		return fmt.Errorf("%w: -n %d -x %d: columns count from 1", errUsage, *nCol, *xCol)
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	n, x, err := readPoints(f, fs.Arg(0), *nCol-1, *xCol-1)
	if err != nil {
		return err
	}
	u, err := sim.FitUSL(n, x)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "points  %d\nsigma   %.6g\nkappa   %.6g\nlambda  %.6g\npeak N  %.1f\npeak X  %.6g\n",
		len(n), u.Sigma, u.Kappa, u.Lambda, u.Peak(), u.Throughput(u.Peak()))
	return nil
}

// readPoints reads two numeric columns of a CSV; a first row that does not parse
// is taken as a header.
func readPoints(r io.Reader, name string, nc, xc int) (n, x []float64, err error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	for i, rec := range recs {
		if nc >= len(rec) || xc >= len(rec) {
			return nil, nil, fmt.Errorf("%s: row %d has %d columns, want at least %d", name, i+1, len(rec), max(nc, xc)+1)
		}
		a, errA := strconv.ParseFloat(strings.TrimSpace(rec[nc]), 64)
		b, errB := strconv.ParseFloat(strings.TrimSpace(rec[xc]), 64)
		if errA != nil || errB != nil {
			if i == 0 {
				continue // header
			}
			return nil, nil, fmt.Errorf("%s: row %d: %q, %q are not numbers", name, i+1, rec[nc], rec[xc])
		}
		n, x = append(n, a), append(x, b)
	}
	return n, x, nil
}
