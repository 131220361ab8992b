package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/innosim/innosim/internal/report"
	"github.com/innosim/innosim/sim"
)

func fitCommand() command {
	return command{
		name:    "fit",
		summary: "fit the Universal Scalability Law (σ, κ, λ, peak) to a CSV of concurrency,throughput or to run --csv output",
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
		fmt.Fprintln(stderr, "and a header row whose cells are not numbers are skipped. A CSV written by")
		fmt.Fprintln(stderr, "innosim run --csv (a header with threads and throughput) is fitted per series.")
		fmt.Fprintln(stderr, "\nflags:")
		fs.PrintDefaults()
	}
	if done, err := parseFlags(fs, args); done {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one FILE.csv, got %d arguments", errUsage, fs.NArg())
	}
	if *nCol < 1 || *xCol < 1 {
		return fmt.Errorf("%w: -n %d -x %d: columns count from 1", errUsage, *nCol, *xCol)
	}
	explicit := false
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "n" || f.Name == "x" })
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	recs, err := readCSV(f, fs.Arg(0))
	if err != nil {
		return err
	}
	if !explicit {
		if series, ok := runSeries(recs); ok {
			return fitSeries(stdout, fs.Arg(0), series)
		}
	}
	n, x, err := readPoints(recs, fs.Arg(0), *nCol-1, *xCol-1)
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

// readCSV reads every record of a CSV, skipping # comment lines.
func readCSV(r io.Reader, name string) ([][]string, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return recs, nil
}

// series is one curve of an innosim run CSV: the settings before its threads
// column (as "key=value ...") and the rows that share them.
type series struct {
	label string
	rows  [][]string
	n, x  int // columns of threads and throughput
}

// runSeries splits the CSV that innosim run --csv writes (a header with threads
// and throughput columns, the varied settings before threads) into one series per
// combination of settings. ok is false for any other CSV.
func runSeries(recs [][]string) (out []series, ok bool) {
	if len(recs) < 2 {
		return nil, false
	}
	nc, xc := slices.Index(recs[0], "threads"), slices.Index(recs[0], "throughput")
	if nc < 0 || xc < 0 {
		return nil, false
	}
	index := map[string]int{}
	for _, rec := range recs[1:] {
		if len(rec) != len(recs[0]) {
			return nil, false
		}
		parts := make([]string, nc)
		for i := range nc {
			parts[i] = recs[0][i] + "=" + rec[i]
		}
		label := strings.Join(parts, " ")
		i, seen := index[label]
		if !seen {
			i = len(out)
			index[label] = i
			out = append(out, series{label: label, n: nc, x: xc})
		}
		out[i].rows = append(out[i].rows, rec)
	}
	return out, true
}

// fitSeries fits each series and prints one line per series.
func fitSeries(w io.Writer, name string, all []series) error {
	t := report.Table{Header: []string{"series", "points", "sigma", "kappa", "lambda", "peak N", "peak X"}}
	for _, s := range all {
		n, x, err := readPoints(s.rows, name, s.n, s.x)
		if err != nil {
			return err
		}
		label := s.label
		if label == "" {
			label = "all"
		}
		u, err := sim.FitUSL(n, x)
		if err != nil {
			t.Rows = append(t.Rows, []string{label, strconv.Itoa(len(n)), "-", "-", "-", "-", "cannot fit: " + err.Error()})
			continue
		}
		t.Rows = append(t.Rows, []string{label, strconv.Itoa(len(n)),
			fmt.Sprintf("%.6g", u.Sigma), fmt.Sprintf("%.6g", u.Kappa), fmt.Sprintf("%.6g", u.Lambda),
			fmt.Sprintf("%.1f", u.Peak()), fmt.Sprintf("%.6g", u.Throughput(u.Peak()))})
	}
	return t.WriteText(w)
}

// readPoints reads two numeric columns of CSV records; a first row that does not
// parse is taken as a header.
func readPoints(recs [][]string, name string, nc, xc int) (n, x []float64, err error) {
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
