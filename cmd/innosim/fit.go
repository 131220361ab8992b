package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/infile"
	"github.com/innosim/innosim/internal/outfile"
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
		"innosim run --csv (a header with threads and throughput) is fitted per series, -n and -x included.",
		"Rows at one concurrency combine into their mean before the fit, which reads only it and their count.")
	nCol := fs.IntRange("n", 1, 1, maxFitColumn, "`column` (1-based, 1..1024) holding the concurrency")
	xCol := fs.IntRange("x", 2, 1, maxFitColumn, "`column` (1-based, 1..1024) holding the throughput")
	jsonPath := fs.String("json", "", "also write the fit to this JSON file; - writes it to stdout instead of the text")
	files, err := fs.ParseInterspersed(args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		fs.Usage()
		return cmdflag.Usagef("want one FILE.csv, got %d arguments", len(files))
	}
	if err := fs.Check(
		cmdflag.Refuse(func() bool { return *nCol == *xCol }, "-n and -x are both column %d: want two columns", *nCol),
	); err != nil {
		return err
	}
	name := files[0]
	jsonOut, err := outfile.NewStdout("-json", *jsonPath, stdout)
	if err != nil {
		return err
	}
	defer jsonOut.Discard()
	if err := jsonOut.CheckInput(name, name); err != nil {
		return err
	}
	f, err := infile.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if f.Size() > maxFitInput {
		return fmt.Errorf("%s: larger than %d bytes, not a CSV of measurements", name, maxFitInput)
	}
	cols := columns{n: *nCol - 1, x: *xCol - 1, explicit: fs.Given("n") || fs.Given("x")}
	all, run, err := readFitInput(f, name, cols)
	if err != nil {
		return err
	}
	fits := fitAll(ctx, all)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted: %w", err)
	}
	var failed []string // which curve cannot be fitted, and why
	for _, f := range fits {
		switch {
		case f.Error != "" && run:
			failed = append(failed, fmt.Sprintf("series %s: %s", cmp.Or(f.Series, "all"), f.Error))
		case f.Error != "":
			failed = append(failed, f.Error)
		}
	}
	if !jsonOut.IsStdout() {
		if err := writeFits(stdout, fits, run); err != nil {
			return err
		}
	}
	if err := jsonOut.WriteStream(func(w io.Writer) error { return report.WriteJSON(w, fitJSON{File: name, Series: fits}) }); err != nil {
		return err
	}
	switch {
	case len(failed) > 0 && run:
		return fmt.Errorf("%s: cannot fit %d of %d series:\n  %s", name, len(failed), len(all), strings.Join(failed, "\n  "))
	case len(failed) > 0:
		return fmt.Errorf("%s: %s", name, failed[0])
	}
	return nil
}

// maxFitColumn bounds -n and -x: a CSV of measurements has a few columns.
const maxFitColumn = 1024

// maxFitInput bounds what fit reads, 16 MiB: a CSV of measurements is a few
// KiB, and a sweep's run --csv well under a MiB.
const maxFitInput = 16 << 20

// columns are the columns of the concurrency and the throughput (0-based),
// and whether -n or -x chose them.
type columns struct {
	n, x     int
	explicit bool
}

// series is one curve to fit: the settings of an innosim run --csv's rows
// before its threads column (as "key=value ...", "" for the one curve of any
// other CSV) and the points of its rows.
type series struct {
	label  string
	points usl.Points
}

// readFitInput reads a CSV of measurements from r (within maxFitInput
// bytes, skipping # comment lines and a leading byte-order mark) into the
// curves to fit, one row at a time: each row's point joins its curve's
// points (usl.Points), so memory grows with the curves and their distinct
// concurrencies, not the rows. run reports a CSV written by innosim run
// --csv (a header with threads and throughput columns, and a row at least):
// one curve per combination of the varied settings before threads, the
// columns by name unless -n or -x chose them, every row as many cells as the
// header. Any other CSV is one curve, its columns chosen by -n and -x, or
// else by a header naming concurrency (or threads, n) and throughput (or
// x); a first row that does not parse is a header. Errors name the file
// and the row (its line).
func readFitInput(r io.Reader, name string, cols columns) (all []*series, run bool, err error) {
	fr := newFitReader(r, name)
	head, headLine, err := fr.read()
	if err != nil {
		return nil, false, err
	}
	head = slices.Clone(head)
	rec, line, err := fr.read()
	if err != nil {
		return nil, false, err
	}
	var handle func(rec []string, line int) error
	nc, xc := slices.Index(head, "threads"), slices.Index(head, "throughput")
	if run = nc >= 0 && xc >= 0 && rec != nil; run {
		n, x := nc, xc
		if cols.explicit { // -n and -x choose the columns; the curves stay the run's series
			n, x = cols.n, cols.x
		}
		handle = fr.runRows(head, nc, n, x)
	} else if handle, err = fr.plainRows(head, headLine, cols); err != nil {
		return nil, false, err
	}
	for rec != nil {
		if err := handle(rec, line); err != nil {
			return nil, false, err
		}
		if rec, line, err = fr.read(); err != nil {
			return nil, false, err
		}
	}
	return fr.all, run, nil
}

// fitReader reads the rows of a CSV of measurements (readFitInput) into
// its curves, in the order each first appears.
type fitReader struct {
	name  string
	cr    *csv.Reader
	curve map[string]*series
	all   []*series
}

// newFitReader reads the CSV in r (within maxFitInput bytes), skipping #
// comment lines and a leading byte-order mark.
func newFitReader(r io.Reader, name string) *fitReader {
	br := bufio.NewReader(&capped{r: r, left: maxFitInput, name: name})
	// a spreadsheet's byte-order mark would make the first header cell
	// "\ufeffthroughput", so the header's names would not choose the columns
	if bom, err := br.Peek(3); err == nil && string(bom) == "\ufeff" {
		_, _ = br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	return &fitReader{name: name, cr: cr, curve: map[string]*series{}}
}

// read returns the next row and its line; a nil row at the end.
func (fr *fitReader) read() ([]string, int, error) {
	rec, err := fr.cr.Read()
	switch {
	case errors.Is(err, io.EOF):
		return nil, 0, nil
	case errors.Is(err, errTooLarge):
		return nil, 0, err
	case err != nil:
		return nil, 0, fmt.Errorf("%s: %w", fr.name, err)
	}
	line, _ := fr.cr.FieldPos(0)
	return rec, line, nil
}

// add adds the point of rec (columns n and x) to the curve label, made if
// new; a nil rec only makes the curve.
func (fr *fitReader) add(label string, rec []string, line, n, x int) error {
	s, ok := fr.curve[label]
	if !ok {
		s = &series{label: label}
		fr.curve[label] = s
		fr.all = append(fr.all, s)
	}
	if rec == nil {
		return nil
	}
	a, b, err := point(rec, n, x)
	if err == nil {
		err = s.points.Add(a, b)
	}
	if err != nil {
		return fmt.Errorf("%s: row %d: %w", fr.name, line, err)
	}
	return nil
}

// runRows handles the rows of an innosim run --csv whose header is head,
// its threads column nc: a curve per combination of the settings before
// threads, the concurrency and throughput in columns n and x, every row as
// many cells as the header.
func (fr *fitReader) runRows(head []string, nc, n, x int) func(rec []string, line int) error {
	return func(rec []string, line int) error {
		if len(rec) != len(head) {
			return fmt.Errorf("%s: row %d has %d columns, the header %d: want a row per cell, as innosim run --csv writes", fr.name, line, len(rec), len(head))
		}
		parts := make([]string, nc)
		for i := range nc {
			parts[i] = head[i] + "=" + rec[i]
		}
		return fr.add(strings.Join(parts, " "), rec, line, n, x)
	}
}

// plainRows handles the rows of any other CSV, whose first row is head (a
// header unless it parses): one curve, its columns chosen by -n and -x, or
// else by a header naming them (namedColumns).
func (fr *fitReader) plainRows(head []string, headLine int, cols columns) (func(rec []string, line int) error, error) {
	n, x := cols.n, cols.x
	if hn, hx, ok := namedColumns(head); ok && !cols.explicit {
		n, x = hn, hx
	}
	first := head
	if _, _, err := point(head, n, x); errors.Is(err, errNotNumbers) {
		first = nil // a header
	}
	if err := fr.add("", first, headLine, n, x); err != nil {
		return nil, err
	}
	return func(rec []string, line int) error { return fr.add("", rec, line, n, x) }, nil
}

// errNotNumbers is point's error for cells that do not parse as numbers.
var errNotNumbers = errors.New("are not numbers")

// point reads the concurrency and the throughput from columns nc and xc of
// rec: finite numbers.
func point(rec []string, nc, xc int) (n, x float64, err error) {
	if nc >= len(rec) || xc >= len(rec) {
		return 0, 0, fmt.Errorf("%d columns, want at least %d", len(rec), max(nc, xc)+1)
	}
	a, errA := strconv.ParseFloat(strings.TrimSpace(rec[nc]), 64)
	b, errB := strconv.ParseFloat(strings.TrimSpace(rec[xc]), 64)
	if errA != nil || errB != nil {
		return 0, 0, fmt.Errorf("%q, %q %w", rec[nc], rec[xc], errNotNumbers)
	}
	if math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) {
		return 0, 0, fmt.Errorf("%q, %q: want finite numbers", rec[nc], rec[xc])
	}
	if a < 1 || a > maxFitConcurrency {
		return 0, 0, fmt.Errorf("concurrency %v (column -n %d): want 1..%d", a, nc+1, maxFitConcurrency)
	}
	return a, b, nil
}

// maxFitConcurrency bounds a row's concurrency: a million threads, far past
// what run and live sweep (10,000).
const maxFitConcurrency = 1_000_000

// errTooLarge is capped's error once more than its bytes were read.
var errTooLarge = errors.New("larger than the bound")

// capped reads r and fails once more than left bytes were read: a file
// whose size stat did not give, or that grew, is bounded as it is read.
type capped struct {
	r    io.Reader
	left int64
	name string
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, fmt.Errorf("%s: larger than %d bytes, not a CSV of measurements: %w", c.name, maxFitInput, errTooLarge)
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
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

// fitJSON is what fit --json writes: a fit per curve of the file.
type fitJSON struct {
	File   string       `json:"file"`
	Series []seriesJSON `json:"series"`
}

// seriesJSON is one curve's fit: Series is its settings ("key=value ...",
// empty for the one curve of a CSV not written by run), Points its
// measurements; σ, κ, λ (in the throughput's unit) and the peak, in
// threads and throughput, when the data locate it within usl.PeakReach of
// the measured range; or Error, why the curve cannot be fitted.
type seriesJSON struct {
	Series         string   `json:"series,omitempty"`
	Points         int      `json:"points"`
	Sigma          float64  `json:"sigma"`
	Kappa          float64  `json:"kappa"`
	Lambda         float64  `json:"lambda"`
	PeakThreads    *float64 `json:"peak_threads,omitempty"`
	PeakThroughput *float64 `json:"peak_throughput,omitempty"`
	Error          string   `json:"error,omitempty"`

	lo, hi float64 // the measured concurrencies, for the text's peak
	peak   float64 // the model's peak where the data do not locate it
}

// fitAll fits every curve, a curve that cannot be fitted with the reason
// in its Error. A canceled ctx ends it early.
func fitAll(ctx context.Context, all []*series) []seriesJSON {
	var fits []seriesJSON
	for _, s := range all {
		m, err := s.points.Fit(ctx)
		if ctx.Err() != nil {
			return fits
		}
		js := seriesJSON{Series: s.label, Points: s.points.Len()}
		if err != nil {
			js.Error = err.Error()
			fits = append(fits, js)
			continue
		}
		js.Sigma, js.Kappa, js.Lambda = clean(m.Sigma), clean(m.Kappa), m.Lambda
		js.lo, js.hi = s.points.Range()
		if p, ok := m.PeakNear(js.lo, js.hi); ok {
			x := m.Throughput(p)
			js.PeakThreads, js.PeakThroughput = &p, &x
		} else {
			js.peak = p
		}
		fits = append(fits, js)
	}
	return fits
}

// clean returns σ or κ with what the optimiser leaves of a parameter the
// data do not need (below 1e-12, e.g. 5.02058e-18) as 0.
func clean(v float64) float64 {
	if math.Abs(v) < 1e-12 {
		return 0
	}
	return v
}

// writeFits prints the fits: for the one curve of a CSV not written by run
// (run false), a line per figure; else a table of a row per series fitted.
func writeFits(w io.Writer, fits []seriesJSON, run bool) error {
	if !run {
		f := fits[0]
		if f.Error != "" {
			return nil
		}
		peakN, peakX := "", "-"
		if f.PeakThreads != nil {
			peakN, peakX = fmt.Sprintf("%.1f threads", *f.PeakThreads), fmt.Sprintf("%.6g", *f.PeakThroughput)
		} else {
			peakN = fmt.Sprintf("not located: %s", peakOutside(f.peak, f.lo, f.hi))
		}
		_, err := fmt.Fprintf(w, "points  %d\nsigma   %s\nkappa   %s\nlambda  %.6g\npeak N  %s\npeak X  %s\n",
			f.Points, param(f.Sigma), param(f.Kappa), f.Lambda, peakN, peakX)
		return err
	}
	t := report.Table{Header: []string{"series", "points", "sigma", "kappa", "lambda", "peak (threads)", "peak X"}}
	for _, f := range fits {
		if f.Error != "" {
			continue
		}
		peakN, peakX := "", "-"
		switch {
		case f.PeakThreads != nil:
			peakN, peakX = fmt.Sprintf("%.1f", *f.PeakThreads), fmt.Sprintf("%.6g", *f.PeakThroughput)
		case f.peak < f.lo:
			peakN = fmt.Sprintf("< %.3g", f.lo/usl.PeakReach)
		default:
			peakN = fmt.Sprintf("> %.3g", f.hi*usl.PeakReach)
		}
		t.Rows = append(t.Rows, []string{cmp.Or(f.Series, "all"), strconv.Itoa(f.Points),
			param(f.Sigma), param(f.Kappa), fmt.Sprintf("%.6g", f.Lambda), peakN, peakX})
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t.WriteText(w)
}

// param formats σ or κ to 6 significant digits (0 as 0).
func param(v float64) string {
	if v == 0 {
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
