package validate

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/optimize"

	"github.com/innosim/innosim/internal/live"
	"github.com/innosim/innosim/sim"
)

// Rotation is a rotation probe's table (innosim live -rotation --csv): per
// curve (workload and setting value), the server's CPU per query while one
// client thread sends the workload's statements to k connections in turn,
// by k. Its
// growth with k is what a switch to a connection refills after the other
// connections ran, and WithRotation reads each curve's footprint from it.
type Rotation struct {
	Name    string
	Setting string // the swept server variable, "" for none
	curves  map[string][]rotationPoint
}

// rotationPoint is one row of a rotation table.
type rotationPoint struct {
	workload        string
	connections     int
	cpu             time.Duration // server CPU per query
	clientCPU       time.Duration // client (sysbench) CPU per query
	queriesPerEvent float64
	line            int
}

// rotationColumns are the columns a rotation table must have (innosim live
// -rotation's, live.WriteRotationCSV); one more may be thread_handling.
var rotationColumns = live.RotationHeader("")

// ParseRotation reads a rotation table from r (at most 1 MiB, maxUserRows
// rows); name is the file's name for errors. The workloads are
// live.RotationWorkloads; a column beside rotationColumns can only be
// thread_handling. Every curve needs a row at one connection and at least
// one more, each connection count once, and one queries_per_event; connect's
// (live.Rotates) has its one-connection row only. Errors name the line and
// the column and wrap sim.ErrInvalidConfig.
func ParseRotation(r io.Reader, name string) (Rotation, error) {
	rot := Rotation{Name: name, curves: map[string][]rotationPoint{}}
	text, err := readTable(r, name)
	if err != nil {
		return rot, err
	}
	cr := csv.NewReader(strings.NewReader(text))
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
			if h != "thread_handling" { // the one setting a live table may sweep (applyLiveSetting)
				return rot, fmt.Errorf("validate: %s: column %q, want %s and at most a thread_handling column: %w", name, h, strings.Join(rotationColumns, ","), sim.ErrInvalidConfig)
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
		if !slices.Contains(live.RotationWorkloads, w) {
			return r.bad("workload", "one of "+strings.Join(live.RotationWorkloads, ", ")+" (what innosim live -rotation measures)")
		}
		k, err := strconv.Atoi(r.get("connections"))
		if err != nil || k < 1 || k > live.MaxThreads {
			return r.bad("connections", fmt.Sprintf("1..%d", live.MaxThreads))
		}
		if k != 1 && !live.Rotates(w) {
			return r.bad("connections", fmt.Sprintf("1 (%s's connections live for one event: the probe measures one)", w))
		}
		us, err := strconv.ParseFloat(r.get("server_cpu_us_per_query"), 64)
		if err != nil || !(us > 0 && us <= 1e6) {
			return r.bad("server_cpu_us_per_query", "a number of µs in (0, 1000000]")
		}
		client, err := strconv.ParseFloat(r.get("client_cpu_us_per_query"), 64)
		if err != nil || !(client > 0 && client <= 1e6) {
			return r.bad("client_cpu_us_per_query", "a number of µs in (0, 1000000]")
		}
		q, err := strconv.ParseFloat(r.get("queries_per_event"), 64)
		if err != nil || !(q >= 1 && q <= 1000) {
			return r.bad("queries_per_event", "a number in 1..1000")
		}
		if !live.Rotates(w) && q != 1 {
			// its per-query figures are taken as per connection
			return r.bad("queries_per_event", fmt.Sprintf("1 (%s: one query a connection)", w))
		}
		curve := w
		if rot.Setting != "" {
			curve = fmt.Sprintf("%s %s=%s", w, rot.Setting, r.get(rot.Setting))
		}
		for _, p := range rot.curves[curve] {
			if p.connections == k {
				hint := ""
				if rot.Setting == "" {
					hint = " (rows of several server settings need the setting's column, as innosim live writes it: thread_handling)"
				}
				return fmt.Errorf("validate: %s:%d: %s at %d connections again (line %d): want each count once a curve%s: %w", name, r.line, curve, k, p.line, hint, sim.ErrInvalidConfig)
			}
			if math.Abs(p.queriesPerEvent-q) > 0.01*q {
				// one curve runs one script
				return fmt.Errorf("validate: %s:%d: %s has queries_per_event %g, but line %d has %g: want one value a curve: %w",
					name, r.line, curve, q, p.line, p.queriesPerEvent, sim.ErrInvalidConfig)
			}
		}
		rot.curves[curve] = append(rot.curves[curve], rotationPoint{workload: w, connections: k, cpu: time.Duration(us * float64(time.Microsecond)),
			clientCPU: time.Duration(client * float64(time.Microsecond)), queriesPerEvent: q, line: r.line})
		return nil
	})
	if err != nil {
		return rot, err
	}
	for _, curve := range slices.Sorted(maps.Keys(rot.curves)) { // the same error every run
		ps := rot.curves[curve]
		sort.Slice(ps, func(i, j int) bool { return ps[i].connections < ps[j].connections })
		if ps[0].connections != 1 || len(ps) < 2 && live.Rotates(ps[0].workload) {
			return rot, fmt.Errorf("validate: %s: %s has %d rows, lowest at %d connections: want a row at 1 connection and at least one more: %w",
				name, curve, len(ps), ps[0].connections, sim.ErrInvalidConfig)
		}
	}
	return rot, nil
}

// rotationGrowth is what the simulator charges a query, over one
// connection, for a connection whose server side touches own bytes and
// client side client bytes when one client thread sends its statements to k
// connections in turn, on the refill path the curve's cells take:
//
//   - a thread per connection (sim.CostProfile.SwitchCostOf): a switch to
//     the connection's thread refills its w + own bytes, w the profile's
//     SwitchFootprint, after the other k−1 connections' (w + own), the
//     client's w and the k connections' client bytes, against the client's
//     w and one connection's client bytes at one connection;
//   - MariaDB's pool (sim.CostProfile.Refill, as the pool's workers take up
//     a connection): a worker that serves another connection than its last
//     refills that THD's own bytes, after the other k−1 THDs, the client's
//     and the worker's w and the k connections' client bytes; at one
//     connection it keeps its THD and refills nothing.
func rotationGrowth(p sim.CostProfile, pool bool, own, client int64, k int) time.Duration {
	w := p.SwitchFootprint
	if pool {
		if k == 1 {
			return 0
		}
		return p.Refill(own, 2*w+int64(k-1)*own+int64(k)*client)
	}
	mine := w + own
	return p.SwitchCostOf(mine, int64(k-1)*mine+w+int64(k)*client) - p.SwitchCostOf(mine, w+client)
}

// maxFootprint bounds a fitted footprint (sim.ClientConfig's range).
const maxFootprint = 1 << 30

// Fits are a curve's fitted footprints: its connection's server side and
// client side (sim.ClientConfig's ServerFootprint and ClientFootprint).
type Fits struct {
	Server, Client Fit
}

// Fit describes a fitted footprint (Rotation.fitBytes).
type Fit struct {
	// Footprint is the fitted bytes, 0..maxFootprint.
	Footprint int64
	// AtFloor is set when the best fit is 0 bytes: the probe grew by no more
	// than the model charges a connection with no footprint of its own (on
	// a thread per connection, its thread's SwitchFootprint still refills).
	AtFloor bool
}

// fitFootprint returns the bytes own ≥ 0 of a connection's server side for
// which rotationGrowth on p (pool: the curve runs MariaDB's pool; client:
// the connection's client-side bytes) fits the curve's growth of server CPU
// per query over its one-connection row best (fitBytes). Every query of the
// probe goes to the next connection, so each finds its connection after the
// others ran, as the simulator charges every switch. p must have a
// SwitchFootprint (a calibrated profile).
func (rot Rotation) fitFootprint(p sim.CostProfile, curve string, pool bool, client int64) (Fit, error) {
	return rot.fitBytes(p, curve, "server", func(pt rotationPoint) time.Duration { return pt.cpu },
		func(b int64, k int) time.Duration { return rotationGrowth(p, pool, b, client, k) })
}

// fitClientFootprint returns the bytes ≥ 0 of a connection's client side
// (libmariadb's connection and statement handles and net buffer, which
// sysbench's thread touches for every query) for which clientGrowth on p
// fits the growth of the curve's client CPU per query over its
// one-connection row best (fitBytes), server being the curve's fitted
// server footprint.
func (rot Rotation) fitClientFootprint(p sim.CostProfile, curve string, pool bool, server int64) (Fit, error) {
	return rot.fitBytes(p, curve, "client", func(pt rotationPoint) time.Duration { return pt.clientCPU },
		func(b int64, k int) time.Duration { return clientGrowth(p, pool, server, b, k) })
}

// clientGrowth is what the simulator's refill model charges a query for the
// probe's one client thread touching the client side of the next of k
// connections, own bytes each, over one connection: the other k−1
// connections' own bytes went through the caches since, and the server's
// side of the round, S(k): with a thread per connection the k server
// threads' SwitchFootprint w and server bytes each, k(w + server); with
// MariaDB's pool one worker's w and k THDs, w + k·server
// (sim.CostProfile.Refill).
func clientGrowth(p sim.CostProfile, pool bool, server, own int64, k int) time.Duration {
	w := p.SwitchFootprint
	side := func(k int) int64 {
		if pool {
			return w + int64(k)*server
		}
		return int64(k) * (w + server)
	}
	return p.Refill(own, int64(k-1)*own+side(k)) - p.Refill(own, side(1))
}

// maxOctaves is log2(1 + maxFootprint/1 KiB): fitBytes's search range.
const maxOctaves = 20

// fitBytes returns the bytes b ≥ 0 for which growth(b, k) fits the growth
// of value (side names it) over the curve's one-connection row best by least
// squares: the best of a grid of b = (2^u − 1) KiB for u = 0, 0.25, …, 20
// (0, then about 200 B to 1 GiB; of equal fits the smaller), refined by
// gonum's Nelder–Mead over u (an error of it keeps the grid's best). A best
// fit at 1 GiB is an error: the refill model cannot make the growth the
// probe measured.
func (rot Rotation) fitBytes(p sim.CostProfile, curve, side string, value func(rotationPoint) time.Duration, growthOf func(b int64, k int) time.Duration) (Fit, error) {
	ps, ok := rot.curves[curve]
	if !ok {
		return Fit{}, fmt.Errorf("validate: %s has no rows of %s: %w", rot.Name, curve, sim.ErrInvalidConfig)
	}
	if p.SwitchFootprint <= 0 {
		return Fit{}, fmt.Errorf("validate: costs %s: switch_footprint = %d, want a calibrated profile's (more than 0) to fit %s's footprint: %w",
			p.Name, p.SwitchFootprint, rot.Name, sim.ErrInvalidConfig)
	}
	base := ps[0]
	growth := func(pt rotationPoint) float64 { return float64(value(pt) - value(base)) }
	bytesAt := func(u float64) int64 { // u = log2(1 + b/1 KiB), clamped to 0..maxOctaves
		return int64(math.Min(math.Exp2(math.Max(0, math.Min(u, maxOctaves)))-1, maxFootprint/1024) * 1024)
	}
	sse := func(x []float64) float64 {
		b := bytesAt(x[0])
		var s float64
		for _, pt := range ps[1:] {
			d := float64(growthOf(b, pt.connections)) - growth(pt)
			s += d * d
		}
		return s
	}
	best, bestSSE := 0.0, sse([]float64{0})
	for u := 0.25; u <= maxOctaves; u += 0.25 {
		if e := sse([]float64{u}); e < bestSSE {
			best, bestSSE = u, e
		}
	}
	res, err := optimize.Minimize(optimize.Problem{Func: sse}, []float64{best}, nil, &optimize.NelderMead{SimplexSize: 0.25})
	if err == nil && res.F < bestSSE {
		best = math.Max(0, math.Min(res.X[0], maxOctaves))
	}
	b := bytesAt(best)
	if b >= maxFootprint-1024 {
		top := ps[len(ps)-1]
		return Fit{}, fmt.Errorf("validate: %s: %s's %s grows by %v a query at %d connections, more than the refill model gives a footprint of 1 GiB (%v): want a probe of this machine and profile: %w",
			rot.Name, curve, side, time.Duration(growth(top)), top.connections, growthOf(maxFootprint, top.connections), sim.ErrInvalidConfig)
	}
	return Fit{Footprint: b, AtFloor: b == 0}, nil
}

// WithRotation returns the live table with each curve's footprints fitted
// to rot (on the cells' cost profile: call it after WithCosts): the server's
// (sim.ClientConfig.ServerFootprint, fitFootprint) to the probe's server
// CPU, then the client's (ClientFootprint, fitClientFootprint) to its
// client CPU with the server's bytes among what evicts it, then the
// server's again with the client's among what evicts it, as the simulator
// counts them. A live client thread
// touches its one connection's client side, which the probe's one thread
// touches for every connection in turn; sysbench's per-thread Lua state is
// not in it. connect's curves (whose connections live for one event) get
// neither; every other curve must be in rot. The memory columns are not
// read. The probe's one-connection row is also each curve's server and
// client CPU per query (sim.ClientConfig's ServerCPU and Event), in place of
// the table's fewest-threads row: there the two programs take turns on one
// CPU that never idles, where a one-thread live run on an idle virtual
// machine leaves its CPUs halted between queries and runs each with cold
// caches (three times the cost on a 2-vCPU guest). A connect curve takes
// the probe's row too when rot has it, and keeps its table's otherwise. It
// returns the fits by curve (connect's are none). rot's setting must be the table's; call
// Validate on the result.
func (ut UserTable) WithRotation(rot Rotation) (UserTable, map[string]Fits, error) {
	if !ut.Live {
		return ut, nil, fmt.Errorf("validate: %s is not a live table (innosim live --csv): a rotation probe sets a live table's footprints: %w", ut.Name, sim.ErrInvalidConfig)
	}
	if rot.Setting != ut.Setting {
		sweeps := func(s string) string {
			if s == "" {
				return "sweeps no setting (no setting column)"
			}
			return fmt.Sprintf("sweeps %s (a %s column)", s, s)
		}
		return ut, nil, fmt.Errorf("validate: %s %s and %s %s: want a probe and a table of the same sweep: %w", rot.Name, sweeps(rot.Setting), ut.Name, sweeps(ut.Setting), sim.ErrInvalidConfig)
	}
	fits := map[string]Fits{}
	for i, c := range ut.Curves {
		if _, done := fits[c]; done || !live.Rotates(ut.Cells[i].Workload) {
			continue
		}
		if _, ok := rot.curves[c]; !ok {
			return ut, nil, fmt.Errorf("validate: %s has no rows of %s, a curve of %s: want every curve but connect's in the probe: %w", rot.Name, c, ut.Name, sim.ErrInvalidConfig)
		}
		// each side's bytes are among what evicts the other's: the server
		// fitted without the client's, the client with that, the server again
		// with the client's
		p, pool := ut.Cells[i].Machine.Costs, ut.Cells[i].ThreadHandling == sim.PoolOfThreads
		server, err := rot.fitFootprint(p, c, pool, 0)
		if err != nil {
			return ut, nil, err
		}
		client, err := rot.fitClientFootprint(p, c, pool, server.Footprint)
		if err != nil {
			return ut, nil, err
		}
		if server, err = rot.fitFootprint(p, c, pool, client.Footprint); err != nil {
			return ut, nil, err
		}
		fits[c] = Fits{Server: server, Client: client}
	}
	ut.Cells = append([]sim.Cell(nil), ut.Cells...)
	for i, c := range ut.Curves {
		client := *ut.Cells[i].Client
		client.ServerFootprint, client.ClientFootprint = fits[c].Server.Footprint, fits[c].Client.Footprint
		if ps, ok := rot.curves[c]; ok {
			client.ServerCPU, client.Event = ps[0].cpu, ps[0].clientCPU // the one-connection row
		}
		ut.Cells[i].Client = &client
	}
	ut.Source += ", footprints from " + rot.Name
	return ut, fits, nil
}

// Curves returns the probe's curves (workload, and thread_handling=value
// when the table has that column), sorted.
func (rot Rotation) Curves() []string { return slices.Sorted(maps.Keys(rot.curves)) }
