package validate

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/innosim/innosim/sim"
)

// UserTable is a published table a user adds (innosim validate --table
// FILE.csv): one cell per row, each naming its machine, its workload, the swept
// parameter and the published figure.
//
// The file is CSV (a leading UTF-8 byte-order mark is skipped). Lines starting
// with # are comments, except four optional settings, their keys in any case:
// "# name: TEXT", "# source: TEXT", "# bound: F" (a factor > 1; default
// 1.5) and "# incomplete: TEXT" (innosim live writes it atop the points of a
// sweep that stopped early); any other comment is ignored, so a misspelt key
// is a comment. The
// header names the columns, in any order, each once:
//
//	cpus       cores of the machine, 1..1024
//	scheduler  cfs or ts
//	costs      a built-in cost profile (old-kernel, new-kernel)
//	workload   a built-in workload (sim.WorkloadNames)
//	threads    client threads, 1..10000: the swept parameter
//	published  the published figure in the workload's unit, MinFigure..MaxFigure
//
// A control character anywhere in the file (other than tab and the line
// ends) is refused, naming its line, and so is a name or source that is not
// UTF-8: the table's text reaches the terminal (a shared CSV could otherwise
// clear the screen or set the window title through validate), as a cost
// profile's name is refused.
//
// Every row's cell is checked when the file is read (sim.Cell.Validate): a
// workload that needs a device (oltp_read_write commits through the redo log)
// is refused there, before any cell runs. A user's table is Predicted: its
// parameters were not chosen on it.
//
// A table written by innosim live --csv is read too (see parseLive): its
// header has throughput where a published table has published, and Tables
// then compares each curve's shape and its level separately.
type UserTable struct {
	Name, Source string
	// Incomplete is the text of a "# incomplete:" line, empty for none: the
	// sweep stopped before every point, so that curves may lack rows.
	Incomplete string
	Bound      float64 // factor, > 1
	Cells      []sim.Cell
	Published  []float64
	// Live marks a table of innosim live; Curves then names each cell's curve
	// (its workload and setting value) and Setting is the swept server
	// variable ("" for none).
	Live    bool
	Curves  []string
	Setting string
	// File is the file's name and Lines each cell's line in it, for
	// Validate's errors.
	File  string
	Lines []int

	// residents are a live table's footprints by cell from its memory
	// columns' growth (server, client bytes): WithCosts puts them on the
	// cells when its profile has caches to refill them.
	residents [][2]int64
}

// Validate checks every cell as Run would (sim.Cell.Validate) and returns
// the first refusal, naming its line, or nil. ParseUserTable calls it; call
// it again after WithCosts, whose profile can make a live curve's measured
// CPU per query less than what that machine charges besides the workload's
// bursts, so that the table is refused before any cell runs.
func (ut UserTable) Validate() error {
	for i, c := range ut.Cells {
		if err := c.Validate(); err != nil {
			what := "a user table's machine (cores, scheduler, costs; no device, no gate)"
			if ut.Live {
				what = fmt.Sprintf("a live table's machine (client on its cores, the curve's CPU per query, costs %s)", c.Machine.Costs.Name)
			}
			line := 0
			if i < len(ut.Lines) {
				line = ut.Lines[i]
			}
			return fmt.Errorf("validate: %s:%d: workload %s cannot run on %s: %w", ut.File, line, c.Workload, what, err)
		}
	}
	return nil
}

// userColumns are the columns a user table must have.
var userColumns = []string{"cpus", "scheduler", "costs", "workload", "threads", "published"}

// maxUserRows bounds a user table: each row is a simulated cell.
const maxUserRows = 1000

// userMeasure is a user cell's measured window: reproduce's default.
const userMeasure = sim.DefaultMeasure

// ParseUserTable reads a user table from r; name is the file's name for errors
// and the table's default name. Errors name the line and the column. A cell
// given twice (the same columns but published), a column other than
// userColumns in a published table, and a # name:, # source: or # bound:
// line given twice are errors too.
func ParseUserTable(r io.Reader, name string) (UserTable, error) {
	ut := UserTable{Name: name, Source: name, Bound: 1.5, File: name}
	var body strings.Builder
	text, err := readTable(r, name)
	if err != nil {
		return ut, err
	}
	directive := map[string]int{} // name, source, bound → its line
	for i, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "#") {
			body.WriteString(line)
			body.WriteByte('\n')
			continue
		}
		body.WriteByte('\n') // keep line numbers
		key, val, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(t, "#")), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		key = strings.ToLower(strings.TrimSpace(key))
		if key == "name" || key == "source" || key == "bound" || key == "incomplete" {
			if first, dup := directive[key]; dup {
				return ut, fmt.Errorf("validate: %s:%d: # %s: given twice (first on line %d), want it once: %w", name, i+1, key, first, sim.ErrInvalidConfig)
			}
			directive[key] = i + 1
		}
		if (key == "name" || key == "source") && !utf8.ValidString(val) {
			return ut, fmt.Errorf("validate: %s:%d: # %s: %q is not UTF-8 text: %w", name, i+1, key, val, sim.ErrInvalidConfig)
		}
		switch key {
		case "name":
			ut.Name = val
		case "source":
			ut.Source = val
		case "incomplete":
			ut.Incomplete = "incomplete: " + val
		case "bound":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil || !(f > 1) || math.IsInf(f, 1) {
				return ut, fmt.Errorf("validate: %s:%d: bound %q, want a factor > 1: %w", name, i+1, val, sim.ErrInvalidConfig)
			}
			ut.Bound = f
		}
	}
	cr := csv.NewReader(strings.NewReader(body.String()))
	cr.FieldsPerRecord = 0
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return ut, fmt.Errorf("validate: %s: no header, want columns %s: %w", name, strings.Join(userColumns, ","), sim.ErrInvalidConfig)
		}
		return ut, fmt.Errorf("validate: %s: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.TrimSpace(h)
		if j, dup := col[h]; dup {
			return ut, fmt.Errorf("validate: %s: header has column %q twice (columns %d and %d), want it once: %w", name, h, j+1, i+1, sim.ErrInvalidConfig)
		}
		col[h] = i
	}
	if _, pub := col["published"]; !pub {
		if _, thr := col["throughput"]; thr {
			return parseLive(ut, cr, head, col)
		}
	}
	for _, c := range userColumns {
		if _, ok := col[c]; !ok {
			return ut, fmt.Errorf("validate: %s: header has no column %q, want %s: %w", name, c, strings.Join(userColumns, ","), sim.ErrInvalidConfig)
		}
	}
	for i, h := range head { // a column validate does not read is a mistake, not data
		if h = strings.TrimSpace(h); !slices.Contains(userColumns, h) {
			return ut, fmt.Errorf("validate: %s: header column %d %q is not one validate reads, want only %s: %w", name, i+1, h, strings.Join(userColumns, ","), sim.ErrInvalidConfig)
		}
	}
	lineOf := map[string]int{} // a cell's columns but published → its line
	err = readRows(name, cr, col, func(r userRow) error {
		cpus, threads, w, pub, err := r.common("published")
		if err != nil {
			return err
		}
		sch, err := sim.ParseScheduler(r.get("scheduler"))
		if err != nil {
			return r.bad("scheduler", "cfs or ts")
		}
		costs, err := sim.Profile(r.get("costs"))
		if err != nil {
			return r.bad("costs", "old-kernel or new-kernel")
		}
		key := fmt.Sprint(cpus, sch, r.get("costs"), w, threads)
		if first, dup := lineOf[key]; dup {
			return fmt.Errorf("validate: %s:%d: the cell of line %d again (%s, %d cpus, %s, %s, %d threads), want each cell once: %w",
				r.file, r.line, first, w, cpus, sch, r.get("costs"), threads, sim.ErrInvalidConfig)
		}
		lineOf[key] = r.line
		c := sim.Cell{Workload: w, Threads: threads, Measure: userMeasure,
			Machine: sim.MachineConfig{CPUs: cpus, Scheduler: sch, Costs: costs, SpinLoops: sim.DefaultSpinLoops}}
		ut.Cells = append(ut.Cells, c)
		ut.Published = append(ut.Published, pub)
		ut.Lines = append(ut.Lines, r.line)
		return nil
	})
	if err != nil {
		return ut, err
	}
	return ut, ut.Validate() // before any cell runs, not after the others
}

// userRow is one data row of a user table (published or live), at line of
// file, with the checks both kinds make of it.
type userRow struct {
	file string
	line int
	rec  []string
	col  map[string]int
}

func (r userRow) get(c string) string { return strings.TrimSpace(r.rec[r.col[c]]) }

// bad is the error for column c's value, naming what is wanted.
func (r userRow) bad(c, want string) error {
	return fmt.Errorf("validate: %s:%d: %s = %q, want %s: %w", r.file, r.line, printable(c), r.get(c), want, sim.ErrInvalidConfig)
}

// printable returns s as it is when it is UTF-8 text a terminal shows as
// text, else quoted (strconv.Quote).
func printable(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strconv.Quote(s)
}

// Bounds of a user table's figures (published, or a live table's
// throughput), in the workload's unit per second: a figure outside them is
// a mistake of the file (a unit lost, an exponent), and its ratio to the
// simulated one would print as a number of hundreds of digits.
const (
	MinFigure = 1e-3
	MaxFigure = 1e9
)

// common reads the columns every user table has: cpus (1..1024), threads
// (1..10000), workload (a built-in one) and figure, the measured or
// published throughput (MinFigure..MaxFigure).
func (r userRow) common(figure string) (cpus, threads int, workload string, x float64, err error) {
	cpus, err = strconv.Atoi(r.get("cpus"))
	if err != nil || cpus < 1 || cpus > 1024 {
		return 0, 0, "", 0, r.bad("cpus", "1..1024")
	}
	threads, err = strconv.Atoi(r.get("threads"))
	if err != nil || threads < 1 || threads > 10000 {
		return 0, 0, "", 0, r.bad("threads", "1..10000")
	}
	x, err = strconv.ParseFloat(r.get(figure), 64)
	if err != nil || !(x >= MinFigure && x <= MaxFigure) {
		return 0, 0, "", 0, r.bad(figure, "a number in 0.001..1e9 (the workload's unit per second)")
	}
	workload = r.get("workload")
	if _, err := sim.LookupWorkload(workload); err != nil {
		return 0, 0, "", 0, r.bad("workload", "one of "+strings.Join(sim.WorkloadNames(), ", "))
	}
	return cpus, threads, workload, x, nil
}

// readRows calls row for each data row of cr (its header read already, its
// columns in col) and stops at the first error; it refuses more than
// maxUserRows rows, a table without any, and a row whose number of fields
// is not the header's (naming both counts and the header's columns).
func readRows(file string, cr *csv.Reader, col map[string]int, row func(userRow) error) error {
	n := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if pe := (*csv.ParseError)(nil); errors.As(err, &pe) && errors.Is(err, csv.ErrFieldCount) {
			return fmt.Errorf("validate: %s:%d: %d fields, want %d, one for each column of the header (%s): %w",
				file, pe.StartLine, len(rec), len(col), strings.Join(headerOrder(col), ","), sim.ErrInvalidConfig)
		}
		if err != nil {
			return fmt.Errorf("validate: %s: %w", file, err)
		}
		line, _ := cr.FieldPos(0)
		if n == maxUserRows {
			return fmt.Errorf("validate: %s:%d: more than %d rows: %w", file, line, maxUserRows, sim.ErrInvalidConfig)
		}
		n++
		if err := row(userRow{file: file, line: line, rec: rec, col: col}); err != nil {
			return err
		}
	}
	if n == 0 {
		return fmt.Errorf("validate: %s: no rows: %w", file, sim.ErrInvalidConfig)
	}
	return nil
}

// headerOrder returns the header's column names, col's keys, in the order of
// their columns, each printable.
func headerOrder(col map[string]int) []string {
	names := make([]string, len(col))
	for h, i := range col {
		names[i] = printable(h)
	}
	return names
}

// readTable reads a table file of at most 1 MiB, drops a leading UTF-8
// byte-order mark (a spreadsheet's) and refuses a control character other
// than tab and the line ends, naming its line.
func readTable(r io.Reader, name string) (string, error) {
	data, err := io.ReadAll(io.LimitReader(r, 1<<20+1))
	if err != nil {
		return "", fmt.Errorf("validate: %s: %w", name, err)
	}
	if len(data) > 1<<20 {
		return "", fmt.Errorf("validate: %s: larger than 1 MiB: %w", name, sim.ErrInvalidConfig)
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	for i, line := range strings.Split(text, "\n") {
		if j := strings.IndexFunc(line, func(r rune) bool { return unicode.IsControl(r) && r != '\t' && r != '\r' }); j >= 0 {
			c, _ := utf8.DecodeRuneInString(line[j:])
			return "", fmt.Errorf("validate: %s:%d: control character %U in the table: want text: %w", name, i+1, c, sim.ErrInvalidConfig)
		}
	}
	return text, nil
}

// Run simulates the user table's cells (seeded from seed) and returns the
// Predicted table: every cell beside the simulation. A cell whose warm-up
// reached no steady state (sim.ErrNotSteady) has no simulated figure and
// fails a check of its own, so the table misses; the other cells and
// tables still run.
func (ut UserTable) Run(ctx context.Context, seed uint64) (Table, error) {
	res, unsteady, err := ut.simulate(ctx, seed)
	if err != nil {
		return Table{}, err
	}
	t := Table{Name: ut.Name, Source: ut.Source, Use: Predicted, MaxAbsLog: math.Log(ut.Bound), Checks: unsteady}
	for i, c := range ut.Cells {
		t.Rows = append(t.Rows, Row{Label: ut.label(i, c), Published: ut.Published[i], Simulated: res[i]})
	}
	return t, nil
}

// Tables returns what validate prints for the table: Run's table for a
// published one; for a live one, its shape and level tables (liveTables),
// the level table with Run's checks of cells that reached no steady state.
func (ut UserTable) Tables(ctx context.Context, seed uint64) ([]Table, error) {
	if !ut.Live {
		t, err := ut.Run(ctx, seed)
		return []Table{t}, err
	}
	res, unsteady, err := ut.simulate(ctx, seed)
	if err != nil {
		return nil, err
	}
	tables := ut.liveTables(res)
	tables[1].Checks = append(tables[1].Checks, unsteady...)
	return tables, nil
}

// simulate runs the cells, each seeded from seed and its position, at most
// GOMAXPROCS at a time, and returns their throughputs. A cell that reached
// no steady state gets NaN and a failed check naming it; any other error
// stops the rest and is returned.
func (ut UserTable) simulate(ctx context.Context, seed uint64) ([]float64, []Check, error) {
	x := make([]float64, len(ut.Cells))
	failed := make([]error, len(ut.Cells))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	cells := slices.Clone(ut.Cells)
	Shorten(ctx, cells)
	for i, c := range cells {
		c.Machine.Seed = seed*1_000_003 + uint64(i)
		g.Go(func() error {
			r, err := c.Run(gctx)
			switch {
			case errors.Is(err, sim.ErrNotSteady):
				x[i], failed[i] = math.NaN(), err
			case err == nil && r.NotSteady:
				x[i], failed[i] = math.NaN(), fmt.Errorf("not steady at its bound, %v of virtual time: no two nested series were steady (MSER-5, Geweke) and agreed within 5%%", r.Start+r.Elapsed)
			case err != nil:
				return fmt.Errorf("cell %d of %d: %w", i+1, len(ut.Cells), err)
			default:
				x[i] = r.Throughput
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, nil, fmt.Errorf("validate: %s: %w", ut.Name, err)
	}
	var unsteady []Check
	for i, err := range failed {
		if err != nil {
			unsteady = append(unsteady, Check{Name: ut.label(i, ut.Cells[i]) + " reached a steady state", Detail: err.Error()})
		}
	}
	return x, unsteady, nil
}

// label names cell i in a table row.
func (ut UserTable) label(i int, c sim.Cell) string {
	if ut.Live {
		return fmt.Sprintf("%s %dcpu t%d", ut.Curves[i], c.Machine.CPUs, c.Threads)
	}
	return fmt.Sprintf("%s %s %dcpu %s t%d", c.Workload, c.Machine.Scheduler, c.Machine.CPUs, c.Machine.Costs.Name, c.Threads)
}
