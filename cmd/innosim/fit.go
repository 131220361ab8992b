package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/report"
	"github.com/innosim/innosim/internal/usl"
)

func fitCommand() command {
	return command{
		name:    "fit",
		summary: "fit the Universal Scalability Law (σ, κ, λ, peak) to a CSV of concurrency,throughput or to run --csv output",
		run:     fit,
	}
}

func fit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdflag.New("fit", stderr, "innosim fit [flags] FILE.csv [flags]",
		"Fits X(N) = λN / (1 + σ(N−1) + κN(N−1)) by least squares. Lines starting with #",
		"and a header row whose cells are not numbers are skipped; a header naming concurrency",
		"(or threads, n) and throughput (or x) chooses the columns unless -n or -x is given. A CSV written by",
		"innosim run --csv (a header with threads and throughput) is fitted per series, -n and -x included.")
	nCol := fs.Int("n", 1, "column (1-based) holding the concurrency")
	xCol := fs.Int("x", 2, "column (1-based) holding the throughput")
	files, err := fs.ParseInterspersed(args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		fs.Usage()
		return cmdflag.Usagef("want one FILE.csv, got %d arguments", len(files))
	}
	if *nCol < 1 || *xCol < 1 {
		return cmdflag.Usagef("-n %d -x %d: columns count from 1", *nCol, *xCol)
	}
	if *nCol == *xCol {
		return cmdflag.Usagef("-n and -x are both column %d: want two columns", *nCol)
	}
	explicit := fs.Given("n") || fs.Given("x")
	recs, err := readCSVFile(files[0])
	if err != nil {
		return err
	}
	nc, xc := *nCol-1, *xCol-1
	series, ok, err := runSeries(recs)
	if err != nil {
		return fmt.Errorf("%s: %w", files[0], err)
	}
	if ok {
		// -n and -x choose the columns; the curves stay the run's series
		if explicit {
			for i := range series {
				series[i].n, series[i].x = nc, xc
			}
		}
		return fitSeries(ctx, stdout, files[0], series)
	}
	if !explicit && len(recs) > 0 {
		if hn, hx, ok := namedColumns(recs[0]); ok {
			nc, xc = hn, hx
		}
	}
	n, x, err := readPoints(recs, files[0], nc, xc)
	if err != nil {
		return err
	}
	u, err := usl.Fit(ctx, n, x)
	if err != nil {
		return fmt.Errorf("%s: %w", files[0], err)
	}
	lo, hi := slices.Min(n), slices.Max(n)
	peakN, peakX := "", "-"
	if p, ok := u.PeakNear(lo, hi); ok {
		peakN, peakX = fmt.Sprintf("%.1f threads", p), fmt.Sprintf("%.6g", u.Throughput(p))
	} else {
		peakN = fmt.Sprintf("not located: %s", peakOutside(p, lo, hi))
	}
	fmt.Fprintf(stdout, "points  %d\nsigma   %s\nkappa   %s\nlambda  %.6g\npeak N  %s\npeak X  %s\n",
		len(n), param(u.Sigma), param(u.Kappa), u.Lambda, peakN, peakX)
	return nil
}

// param formats σ or κ to 6 significant digits, with what the optimiser leaves
// of a parameter the data do not need (below 1e-12, e.g. 5.02058e-18) as 0.
func param(v float64) string {
	if math.Abs(v) < 1e-12 {
		return "0"
	}
	return fmt.Sprintf("%.6g", v)
}

// peakOutside says where a peak that PeakNear refused lies, for measured
// concurrencies lo..hi.
func peakOutside(p, lo, hi float64) string {
	if p < lo {
		return fmt.Sprintf("below %.3g threads (half the smallest measured)", lo/usl.PeakReach)
	}
	return fmt.Sprintf("beyond %.3g threads (%d× the largest measured); the data show no retrograde region", hi*usl.PeakReach, usl.PeakReach)
}

// maxFitInput bounds what fit reads, 16 MiB: a CSV of measurements is a few
// KiB, and a sweep's run --csv well under a MiB; a wrong file (/dev/zero, a disk
// image) fails fast instead of filling memory.
const maxFitInput = 16 << 20

// readCSVFile reads every record of the CSV at name, skipping # comment lines,
// within maxFitInput bytes.
func readCSVFile(name string) ([][]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCSV(f, name)
}

// readCSV reads every record of a CSV, skipping # comment lines, within
// maxFitInput bytes.
func readCSV(r io.Reader, name string) ([][]string, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFitInput+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxFitInput {
		return nil, fmt.Errorf("%s: larger than %d bytes, not a CSV of measurements", name, maxFitInput)
	}
	// a spreadsheet's byte-order mark would make the first header cell
	// "\ufeffthroughput", so the header's names would not choose the columns
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	cr := csv.NewReader(bytes.NewReader(data))
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
// combination of settings. ok is false for any other CSV. A row whose cells
// are not as many as the header's is an error: read as any other CSV, the
// file's series would be fitted as one curve.
func runSeries(recs [][]string) (out []series, ok bool, err error) {
	if len(recs) < 2 {
		return nil, false, nil
	}
	nc, xc := slices.Index(recs[0], "threads"), slices.Index(recs[0], "throughput")
	if nc < 0 || xc < 0 {
		return nil, false, nil
	}
	index := map[string]int{}
	for i, rec := range recs[1:] {
		if len(rec) != len(recs[0]) {
			return nil, false, fmt.Errorf("row %d has %d columns, the header %d: want a row per cell, as innosim run --csv writes", i+2, len(rec), len(recs[0]))
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
	return out, true, nil
}

// fitSeries fits each series and prints one line per series fitted. A series
// that cannot be fitted is an error naming it and the reason (after the table
// of the others).
func fitSeries(ctx context.Context, w io.Writer, name string, all []series) error {
	t := report.Table{Header: []string{"series", "points", "sigma", "kappa", "lambda", "peak (threads)", "peak X"}}
	var failed []string
	for _, s := range all {
		n, x, err := readPoints(s.rows, name, s.n, s.x)
		if err != nil {
			return err
		}
		label := s.label
		if label == "" {
			label = "all"
		}
		u, err := usl.Fit(ctx, n, x)
		if err != nil {
			failed = append(failed, fmt.Sprintf("series %s: %v", label, err))
			continue
		}
		lo, hi := slices.Min(n), slices.Max(n)
		peakN, peakX := "", "-"
		if p, ok := u.PeakNear(lo, hi); ok {
			peakN, peakX = fmt.Sprintf("%.1f", p), fmt.Sprintf("%.6g", u.Throughput(p))
		} else if p < lo {
			peakN = fmt.Sprintf("< %.3g", lo/usl.PeakReach)
		} else {
			peakN = fmt.Sprintf("> %.3g", hi*usl.PeakReach)
		}
		t.Rows = append(t.Rows, []string{label, strconv.Itoa(len(n)),
			param(u.Sigma), param(u.Kappa), fmt.Sprintf("%.6g", u.Lambda), peakN, peakX})
	}
	if len(t.Rows) > 0 {
		if err := t.WriteText(w); err != nil {
			return err
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s: cannot fit %d of %d series:\n  %s", name, len(failed), len(all), strings.Join(failed, "\n  "))
	}
	return nil
}

// namedColumns finds the concurrency column ("concurrency", "threads" or
// "n") and the throughput column ("throughput" or "x") of a header row, in
// any case; ok is false unless both are there.
func namedColumns(head []string) (nc, xc int, ok bool) {
	nc, xc = -1, -1
	for i, h := range head {
		switch strings.ToLower(strings.TrimSpace(h)) {
		case "concurrency", "threads", "n":
			nc = i
		case "throughput", "x":
			xc = i
		}
	}
	return nc, xc, nc >= 0 && xc >= 0
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
		if math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) {
			return nil, nil, fmt.Errorf("%s: row %d: %q, %q: want finite numbers", name, i+1, rec[nc], rec[xc])
		}
		n, x = append(n, a), append(x, b)
	}
	return n, x, nil
}
