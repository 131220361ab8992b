package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/infile"
	"github.com/innosim/innosim/internal/outfile"
	"github.com/innosim/innosim/internal/report"
	"github.com/innosim/innosim/internal/study"
	"github.com/innosim/innosim/internal/validate"
	"github.com/innosim/innosim/sim"
)

func validateCommand() command {
	return command{
		name:    "validate",
		summary: "every published table and field case beside the simulation: error per table, fitted or predicted",
		run:     validateRun,
	}
}

// pathList is a repeatable flag of file paths.
type pathList []string

// String returns the paths, comma-separated.
func (l *pathList) String() string { return strings.Join(*l, ",") }

// Set appends one path.
func (l *pathList) Set(v string) error {
	if v == "" {
		return fmt.Errorf("empty path")
	}
	*l = append(*l, v)
	return nil
}

// Repeatable marks -table as a flag given once per file.
func (l *pathList) Repeatable() {}

// maxSeeds bounds -seeds: each seed runs every table again (validate's whole
// run is that of reproduce), so 16 seeds are 16 such runs.
const maxSeeds = 16

// seedCount is -seeds: how many seeds, from -seed on, to run every table at.
type seedCount int

// String returns the count.
func (n *seedCount) String() string { return strconv.Itoa(int(*n)) }

// Set parses a count of 1..maxSeeds.
func (n *seedCount) Set(v string) error {
	c, err := strconv.Atoi(v)
	if err != nil || c < 1 || c > maxSeeds {
		return fmt.Errorf("want a count of 1..%d (every table at -seed, -seed+1, ...)", maxSeeds)
	}
	*n = seedCount(c)
	return nil
}

// validateParts are the groups of tables validate can be limited to: the
// studies' (a..d), the field cases (field), and tables, the -table files
// alone, which every group runs besides its own.
var validateParts = []string{"a", "b", "c", "d", "field", "tables"}

// validateOptions is validate's command line, parsed: the seeds, the
// -table files, the machine's profile and rotation probe of live tables,
// and the groups to run (every group when none is named).
type validateOptions struct {
	seed       uint64
	seeds      seedCount
	tables     pathList
	costs      string
	rotation   string
	jsonPath   string
	parts      []string // the groups to run
	partsGiven []string // the groups named
}

// validateRun is innosim validate: it parses the command line
// (parseValidate), reads the -table files (userTables), simulates every
// table at each seed (runSeeds) and writes them; errFailed when a predicted
// table misses its bound.
func validateRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseValidate(args, stderr)
	if err != nil {
		return err
	}
	outs, err := outputs(stdout, "-json", o.jsonPath)
	if err != nil {
		return err
	}
	defer discardAll(outs)
	inputs := []string{"-costs " + o.costs, o.costs, "-rotation " + o.rotation, o.rotation}
	for _, t := range o.tables {
		inputs = append(inputs, "-table "+t, t)
	}
	if err := outfile.CheckInputs(outs, inputs...); err != nil {
		return err
	}
	users, err := o.userTables(stderr)
	if err != nil {
		return err
	}
	seedList, runs, err := o.runSeeds(ctx, users, stderr)
	if err != nil {
		return err
	}
	text := stdout // the tables, unless the JSON goes to stdout instead
	if anyStdout(outs) {
		text = io.Discard
	}
	missed, err := validate.WriteSeeds(text, seedList, runs)
	if err != nil {
		return err
	}
	if err := outs[0].WriteStream(func(w io.Writer) error {
		return report.WriteJSON(w, newValidateJSON(seedList, runs, missed))
	}); err != nil {
		return err
	}
	if missed {
		return errFailed
	}
	return nil
}

// parseValidate reads validate's flags and groups, and the rules they keep.
func parseValidate(args []string, stderr io.Writer) (*validateOptions, error) {
	fs := cmdflag.New("validate", stderr, "innosim validate [flags] [a|b|c|d|field|tables ...]",
		"Prints every published table the project holds (the four studies' and the field",
		"cases from public bug reports) and every -table file beside the simulation, with per",
		"table the cells on the published side of 1.0 (ratios), the mean |log(sim/pub)| and the",
		"worst cell, and whether the table chose parameters (fitted) or not (predicted).",
		"Exits 1 when a predicted table misses its bound. Naming groups limits the run to them",
		"(and the -table files); none means all. Group a is study A's read-only table and its",
		"machine, unchanged, on oltp_read_write; field is the public bug reports' cases;",
		"tables is the -table files alone (validate tables -table F.csv runs F.csv only).",
		"Flags may come before or after the groups; -- ends the flags.")
	o := &validateOptions{seeds: 1}
	fs.Uint64Var(&o.seed, "seed", 1, "random seed of every simulated cell")
	fs.Var(&o.seeds, "seeds", fmt.Sprintf("run every table at `count` seeds, -seed, -seed+1, ... (1..%d): each cell shows its min and max over them, and a predicted table holds only if it holds at every seed", maxSeeds))
	fs.Var(&o.tables, "table", "also validate this CSV table (repeatable): header cpus,scheduler,costs,workload,threads,published, or a table of innosim live --csv")
	fs.StringVar(&o.costs, "costs", "", "cost profile file (innosim calibrate --out) of the machine that live tables were measured on; default new-kernel")
	fs.StringVar(&o.rotation, "rotation", "", "a rotation probe's CSV (innosim live -rotation --csv) of the same machine and server: each live curve's server and client footprints are fitted to it (needs -costs)")
	fs.StringVar(&o.jsonPath, "json", "", "also write every table, its cells, summary and verdict to this JSON file; - writes it to stdout instead of the text")
	parts, err := fs.ParseInterspersed(args)
	if err != nil {
		return nil, err
	}
	o.partsGiven, o.parts = parts, parts
	if len(parts) == 0 {
		o.parts = validateParts
	}
	lastSeed := uint64(math.MaxUint64 - uint64(o.seeds-1))
	return o, fs.Check(
		o.eachGroupOnce,
		o.eachTableOnce,
		cmdflag.Refuse(func() bool { return slices.Contains(parts, "tables") && len(o.tables) == 0 },
			"group tables is the -table files, and none is given: want at least one -table FILE.csv"),
		cmdflag.Refuse(func() bool { return o.seed > lastSeed },
			"-seed %d with -seeds %d: the last seed would pass 2^64-1; want -seed at most %d", o.seed, o.seeds, lastSeed),
		cmdflag.NotEmpty("rotation", "the path of a rotation probe's CSV"),
	)
}

// eachGroupOnce refuses a group validate does not have, and one named twice.
func (o *validateOptions) eachGroupOnce(*cmdflag.FlagSet) error {
	for i, p := range o.partsGiven {
		if !slices.Contains(validateParts, p) {
			return cmdflag.Usagef("%q, want %s", p, strings.Join(validateParts, ", "))
		}
		if slices.Contains(o.partsGiven[:i], p) {
			return cmdflag.Usagef("group %q given twice: want each group once", p)
		}
	}
	return nil
}

// eachTableOnce refuses a -table file given twice (sameFile): it would be
// reported twice.
func (o *validateOptions) eachTableOnce(*cmdflag.FlagSet) error {
	for i, path := range o.tables {
		for _, earlier := range o.tables[:i] {
			if sameFile(path, earlier) {
				return cmdflag.Usagef("-table %s given twice (as %s before): want each table once (it would be reported twice)", path, earlier)
			}
		}
	}
	return nil
}

// userTables reads the -table files, each with -costs's profile and its
// footprints fitted to -rotation's probe, warning on stderr of a profile
// that leaves costs out, a table that may lack rows and footprints not
// charged. -costs and -rotation need a live table (innosim live --csv),
// and -rotation needs -costs.
func (o *validateOptions) userTables(stderr io.Writer) ([]validate.UserTable, error) {
	var profile *sim.CostProfile
	if o.costs != "" {
		p, defaulted, err := loadProfile(o.costs)
		if err != nil {
			return nil, fmt.Errorf("-costs: %w", err)
		}
		warnDefaulted(stderr, "validate", costFile{o.costs, "-costs " + o.costs}, defaulted)
		profile = &p
	}
	var users []validate.UserTable
	live := false
	for _, path := range o.tables {
		ut, err := o.userTable(path, profile, stderr)
		if err != nil {
			return nil, err
		}
		live = live || ut.Live
		users = append(users, ut)
	}
	if o.rotation != "" {
		if profile == nil || !live {
			return nil, cmdflag.Usagef("-rotation sets live tables' footprints on the machine's profile: want -costs and a -table of innosim live --csv")
		}
		if err := applyRotation(o.rotation, users, stderr); err != nil {
			return nil, fmt.Errorf("-rotation: %w", err)
		}
	}
	if profile != nil && !live {
		return nil, cmdflag.Usagef("-costs is the profile of the machine a live table was measured on, and no -table is one (innosim live --csv): a published table keeps its own costs")
	}
	return users, nil
}

// userTable reads the -table file at path, with profile (nil: none).
func (o *validateOptions) userTable(path string, profile *sim.CostProfile, stderr io.Writer) (validate.UserTable, error) {
	f, err := infile.Open(path)
	if err != nil {
		return validate.UserTable{}, fmt.Errorf("-table: %w", err)
	}
	ut, err := validate.ParseUserTable(f, path)
	f.Close()
	if err != nil {
		return validate.UserTable{}, fmt.Errorf("-table: %w", err)
	}
	if profile != nil {
		// the machine's profile can refuse a curve the default accepted:
		// refuse it now, not after the studies ran
		if ut = ut.WithCosts(*profile); ut.Live {
			if err := ut.Validate(); err != nil {
				return validate.UserTable{}, fmt.Errorf("-table with -costs %s: %w", o.costs, err)
			}
		}
	}
	if ut.Incomplete != "" {
		fmt.Fprintf(stderr, "innosim validate: %s: %s: its curves may lack rows\n", cmdflag.QuotePath(path), ut.Incomplete)
	}
	if ut.ResidentFootprints() && (profile == nil || !profile.HasCaches()) && o.rotation == "" {
		fmt.Fprintf(stderr, "innosim validate: %s: the memory columns' footprints are not charged: they need -costs, a calibrated profile with caches to refill them\n", cmdflag.QuotePath(path))
	}
	return ut, nil
}

// runSeeds simulates every table of o's groups and users at each seed, with
// a progress phase per study, field cases and table (per seed too when
// there are several).
func (o *validateOptions) runSeeds(ctx context.Context, users []validate.UserTable, stderr io.Writer) ([]uint64, [][]validate.Table, error) {
	var seedList []uint64
	var runs [][]validate.Table
	prog := newProgress(stderr, "validate")
	defer prog.Close()
	for k := range uint64(o.seeds) {
		s := o.seed + k
		phase := func(label string) func(done, total int) {
			if o.seeds > 1 {
				label = fmt.Sprintf("seed %d: %s", s, label)
			}
			return prog.Phase(label, "cells")
		}
		all, err := validateTables(ctx, s, o.parts, users, phase)
		if err != nil {
			if o.seeds > 1 {
				return nil, nil, fmt.Errorf("seed %d: %w", s, err)
			}
			return nil, nil, err
		}
		seedList, runs = append(seedList, s), append(runs, all)
	}
	prog.Close()
	return seedList, runs, nil
}

// applyRotation fits every live table's server footprints to the rotation
// probe in path (validate.UserTable.WithRotation), replacing the tables in
// users, and prints the footprints on stderr.
func applyRotation(path string, users []validate.UserTable, stderr io.Writer) error {
	f, err := infile.Open(path)
	if err != nil {
		return err
	}
	rot, err := validate.ParseRotation(f, path)
	f.Close()
	if err != nil {
		return err
	}
	used := map[string]bool{}
	for i, table := range users {
		if !table.Live {
			continue
		}
		ut, fits, err := table.WithRotation(rot)
		if err != nil {
			return err
		}
		if err := ut.Validate(); err != nil {
			return err
		}
		for _, c := range slices.Sorted(maps.Keys(fits)) {
			for _, f := range []struct {
				side string
				fit  validate.Fit
			}{{"server", fits[c].Server}, {"client", fits[c].Client}} {
				note := ""
				if f.fit.AtFloor {
					note = ": the probe grew no more than a connection with none of its own would"
				}
				fmt.Fprintf(stderr, "innosim validate: %s: %s: %s footprint %d KiB (fitted to %s%s)\n", cmdflag.QuotePath(ut.Name), c, f.side, (f.fit.Footprint+512)/1024, cmdflag.QuotePath(path), note)
			}
		}
		probed, printed := rot.Curves(), map[string]bool{}
		for i, c := range ut.Curves {
			if !printed[c] && slices.Contains(probed, c) {
				cl := ut.Cells[i].Client
				fmt.Fprintf(stderr, "innosim validate: %s: %s: server CPU %v, client CPU %v a unit (%s, one connection)\n", cmdflag.QuotePath(ut.Name), c, cl.ServerCPU, cl.Event, cmdflag.QuotePath(path))
				printed[c] = true
			}
			used[c] = true // connect's too: its one-connection row was read
		}
		users[i] = ut
	}
	for _, c := range rot.Curves() {
		if !used[c] {
			fmt.Fprintf(stderr, "innosim validate: %s: %s is in no live table: not used\n", cmdflag.QuotePath(path), c)
		}
	}
	return nil
}

// validateTables simulates the tables of parts and users at seed, starting a
// progress phase (phase) for each study, the field cases and each table.
func validateTables(ctx context.Context, seed uint64, parts []string, users []validate.UserTable, phase func(label string) func(done, total int)) ([]validate.Table, error) {
	var all []validate.Table
	for _, s := range study.All() {
		if !slices.Contains(parts, s.ID) {
			continue
		}
		rep, err := s.Run(ctx, study.Options{Seed: seed, Progress: phase("study " + strings.ToUpper(s.ID))})
		if err != nil {
			return nil, fmt.Errorf("study %s: %w", s.ID, err)
		}
		all = append(all, rep.Validation...)
		if s.ID == "a" { // the same machine on the workload it was not fitted to
			t, err := study.StudyAReadWrite(ctx, study.Options{Seed: seed, Progress: phase("study A read-write")})
			if err != nil {
				return nil, fmt.Errorf("study a read-write: %w", err)
			}
			all = append(all, t)
		}
	}
	if slices.Contains(parts, "field") {
		ft, err := validate.FieldCases(ctx, seed, phase("field cases"))
		if err != nil {
			return nil, err
		}
		all = append(all, ft...)
	}
	for _, ut := range users {
		phase(ut.Name)
		ts, err := ut.Tables(ctx, seed)
		if err != nil {
			return nil, err
		}
		all = append(all, ts...)
	}
	return all, nil
}

// sameFile reports whether paths a and b name one file: the same spelling,
// the same cleaned path (x.csv and ./x.csv), or, when both exist, the same
// file by os.SameFile (a link).
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
