package validate

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/optimize"

	"github.com/innosim/innosim/sim"
)

// Rotation is a rotation probe's table (innosim live -rotation --csv): per
// curve (workload and setting value), the server's CPU per query while one
// client thread runs the workload on k connections in turn, by k. Its
// growth with k is what a switch to a connection refills after the other
// connections ran, and WithRotation reads each curve's footprint from it.
type Rotation struct {
	Name    string
	Setting string // the swept server variable, "" for none
	curves  map[string][]rotationPoint
}

// rotationPoint is one row of a rotation table.
type rotationPoint struct {
	connections     int
	cpu             time.Duration // server CPU per query
	queriesPerEvent float64
	line            int
}

// rotationColumns are the columns a rotation table must have; one more is
// the swept setting.
var rotationColumns = []string{"workload", "connections", "server_cpu_us_per_query", "queries_per_event"}

// ParseRotation reads a rotation table from r (at most 1 MiB, maxUserRows
// rows); name is the file's name for errors. Every curve needs a row at one
// connection and at least one more; each connection count once a curve.
// Errors name the line and the column and wrap sim.ErrInvalidConfig.
func ParseRotation(r io.Reader, name string) (Rotation, error) {
	rot := Rotation{Name: name, curves: map[string][]rotationPoint{}}
	data, err := io.ReadAll(io.LimitReader(r, 1<<20+1))
	if err != nil {
		return rot, fmt.Errorf("validate: %s: %w", name, err)
	}
	if len(data) > 1<<20 {
		return rot, fmt.Errorf("validate: %s: larger than 1 MiB: %w", name, sim.ErrInvalidConfig)
	}
	cr := csv.NewReader(strings.NewReader(string(data)))
	head, err := cr.Read()
	if err != nil {
		return rot, fmt.Errorf("validate: %s: header: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.TrimSpace(h)
		if _, dup := col[h]; dup {
			return rot, fmt.Errorf("validate: %s: column %q twice, want each once: %w", name, h, sim.ErrInvalidConfig)
		}
		col[h] = i
		if !slices.Contains(rotationColumns, h) {
			if rot.Setting != "" {
				return rot, fmt.Errorf("validate: %s: two setting columns, %q and %q: want at most one: %w", name, rot.Setting, h, sim.ErrInvalidConfig)
			}
			rot.Setting = h
		}
	}
	for _, c := range rotationColumns {
		if _, ok := col[c]; !ok {
			return rot, fmt.Errorf("validate: %s: no column %q, want %s: %w", name, c, strings.Join(rotationColumns, ","), sim.ErrInvalidConfig)
		}
	}
	err = readRows(name, cr, col, func(r userRow) error {
		w := r.get("workload")
		if _, err := sim.LookupWorkload(w); err != nil {
			return r.bad("workload", "one of "+strings.Join(sim.WorkloadNames(), ", "))
		}
		k, err := strconv.Atoi(r.get("connections"))
		if err != nil || k < 1 || k > 10000 {
			return r.bad("connections", "1..10000")
		}
		us, err := strconv.ParseFloat(r.get("server_cpu_us_per_query"), 64)
		if err != nil || !(us > 0 && us <= 1e6) {
			return r.bad("server_cpu_us_per_query", "a number of µs in (0, 1000000]")
		}
		q, err := strconv.ParseFloat(r.get("queries_per_event"), 64)
		if err != nil || !(q >= 1 && q <= 1000) {
			return r.bad("queries_per_event", "a number in 1..1000")
		}
		curve := w
		if rot.Setting != "" {
			curve = fmt.Sprintf("%s %s=%s", w, rot.Setting, r.get(rot.Setting))
		}
		for _, p := range rot.curves[curve] {
			if p.connections == k {
				return fmt.Errorf("validate: %s:%d: %s at %d connections again (line %d): want each count once a curve: %w", name, r.line, curve, k, p.line, sim.ErrInvalidConfig)
			}
		}
		rot.curves[curve] = append(rot.curves[curve], rotationPoint{k, time.Duration(us * float64(time.Microsecond)), q, r.line})
		return nil
	})
	if err != nil {
		return rot, err
	}
	for curve, ps := range rot.curves {
		sort.Slice(ps, func(i, j int) bool { return ps[i].connections < ps[j].connections })
		if ps[0].connections != 1 || len(ps) < 2 {
			return rot, fmt.Errorf("validate: %s: %s has %d rows, lowest at %d connections: want a row at 1 connection and at least one more: %w",
				name, curve, len(ps), ps[0].connections, sim.ErrInvalidConfig)
		}
	}
	return rot, nil
}

// RotationGrowth is what the simulator's refill model (sim.CostProfile's
// SwitchCostOf) charges a switch to a connection whose server side touches
// own bytes beyond the profile's SwitchFootprint w, when k connections are
// used in turn by one client thread, over what it charges at one
// connection: between two of its runs the other k−1 connections' (w + own)
// and the client's w go through the caches, against the client's w alone.
func RotationGrowth(p sim.CostProfile, own int64, k int) time.Duration {
	w := p.SwitchFootprint
	mine := w + own
	return p.SwitchCostOf(mine, int64(k-1)*mine+w) - p.SwitchCostOf(mine, w)
}

// maxFootprint bounds a fitted footprint (sim.ClientConfig's range).
const maxFootprint = 1 << 30

// FitFootprint returns the bytes own ≥ 0 of a connection's server side for
// which RotationGrowth on p fits the curve's growth per event over its
// one-connection row best by least squares, by gonum's Nelder–Mead over
// own in KiB. An event's first query is the one that finds its connection
// after the others ran, so the measured growth per event is the growth of
// CPU per query times the queries per event. p must have a SwitchFootprint
// (a calibrated profile).
func (rot Rotation) FitFootprint(p sim.CostProfile, curve string) (int64, error) {
	ps, ok := rot.curves[curve]
	if !ok {
		return 0, fmt.Errorf("validate: %s has no rows of %s: %w", rot.Name, curve, sim.ErrInvalidConfig)
	}
	if p.SwitchFootprint <= 0 {
		return 0, fmt.Errorf("validate: costs %s: switch_footprint = %d, want a calibrated profile's (more than 0) to fit %s's footprint: %w",
			p.Name, p.SwitchFootprint, rot.Name, sim.ErrInvalidConfig)
	}
	base := ps[0]
	sse := func(x []float64) float64 {
		own := int64(min(math.Abs(x[0])*1024, maxFootprint))
		var s float64
		for _, pt := range ps[1:] {
			got := float64(pt.cpu)*pt.queriesPerEvent - float64(base.cpu)*base.queriesPerEvent
			d := float64(RotationGrowth(p, own, pt.connections)) - got
			s += d * d
		}
		return s
	}
	res, err := optimize.Minimize(optimize.Problem{Func: sse}, []float64{64}, nil, &optimize.NelderMead{})
	if err != nil {
		return 0, fmt.Errorf("validate: fit %s's footprint from %s: %w", curve, rot.Name, err)
	}
	return int64(min(math.Abs(res.X[0])*1024, maxFootprint) + 0.5), nil
}

// WithRotation returns the live table with each curve's server footprint
// (sim.ClientConfig.ServerFootprint) fitted to rot (FitFootprint, on the
// cells' cost profile: call it after WithCosts) and no client footprint of
// its own: the probe has one client thread. A curve rot lacks (connect, whose
// connections live for one query) gets none; the memory columns are not
// read. It returns the footprints by curve, in bytes. rot's setting must be
// the table's.
func (ut UserTable) WithRotation(rot Rotation) (UserTable, map[string]int64, error) {
	if !ut.Live {
		return ut, nil, fmt.Errorf("validate: %s is not a live table (innosim live --csv): a rotation probe sets a live table's footprints: %w", ut.Name, sim.ErrInvalidConfig)
	}
	if rot.Setting != ut.Setting {
		return ut, nil, fmt.Errorf("validate: %s sweeps %q and %s sweeps %q: want the same setting: %w", rot.Name, rot.Setting, ut.Name, ut.Setting, sim.ErrInvalidConfig)
	}
	feet := map[string]int64{}
	for i, c := range ut.Curves {
		if _, ok := rot.curves[c]; !ok {
			continue
		}
		if _, done := feet[c]; !done {
			b, err := rot.FitFootprint(ut.Cells[i].Machine.Costs, c)
			if err != nil {
				return ut, nil, err
			}
			feet[c] = b
		}
	}
	if len(feet) == 0 {
		return ut, nil, fmt.Errorf("validate: %s has none of %s's curves: %w", rot.Name, ut.Name, sim.ErrInvalidConfig)
	}
	ut.Cells = append([]sim.Cell(nil), ut.Cells...)
	for i, c := range ut.Curves {
		client := *ut.Cells[i].Client
		client.ServerFootprint, client.ClientFootprint = feet[c], 0
		ut.Cells[i].Client = &client
	}
	ut.Source += ", footprints from " + rot.Name
	return ut, feet, nil
}
