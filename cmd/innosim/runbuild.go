package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/validate"
	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim"
)

// sweep is a run's cells with the command line that made each: a variant
// per -vary value, and the cells, variant by variant, then core count by
// core count, then thread count by thread count (cellAt).
type sweep struct {
	*runOptions
	variants []variant
	cells    []sim.Cell
}

// variant is what one -vary value makes: the flags and settings after the
// value, and the cell they build but its threads, cores and seed.
type variant struct {
	value    string // "" without -vary
	flags    runFlags
	settings mycnf.Settings
	proto    sim.Cell
}

// buildSweep builds o's cells. It first warns of cost profiles that leave
// costs out and, with -show-settings, prints the settings; it refuses a
// setting that would change no cell (checkEffects). The cells are not
// validated: sim.RunCells does that, and refusal maps its refusal back.
func buildSweep(o *runOptions, stdout, stderr io.Writer) (*sweep, error) {
	warnDefaultedCosts(stderr, "run", costFiles(o.runFlags, o.varyKey, o.varyValues))
	if o.showSettings {
		writeSettings(stdout, o.base, o.runFlags.server, o.varyKey, o.runFlags)
	}
	sw := &sweep{runOptions: o}
	for _, v := range o.varyValues {
		vr, err := o.variant(v)
		if err != nil {
			return nil, err
		}
		sw.variants = append(sw.variants, vr)
	}
	if err := sw.checkPoolKeys(stderr); err != nil {
		return nil, err
	}
	if err := sw.checkEffects(); err != nil {
		return nil, err
	}
	for _, vr := range sw.variants {
		for _, cpus := range o.cpus {
			for _, th := range o.threads {
				c := vr.proto
				c.Threads = th
				o.machine.apply(&c, cpus)
				c.Machine.Seed = c.SeedFor(o.seed)
				sw.cells = append(sw.cells, c)
			}
		}
	}
	return sw, nil
}

// cellAt returns the variant of cell i and the cell.
func (sw *sweep) cellAt(i int) (*variant, sim.Cell) {
	return &sw.variants[i/(len(sw.cpus)*len(sw.threads))], sw.cells[i]
}

// variant builds what the -vary value makes ("" without -vary).
func (o *runOptions) variant(value string) (variant, error) {
	vr := variant{value: value, flags: o.runFlags, settings: o.base}
	if o.varyKey != "" {
		if err := applyVary(&vr.flags, &vr.settings, o.varyKey, value); err != nil {
			return variant{}, cmdflag.Usagef("-vary %s=%s: %v", o.varyKey, value, err)
		}
	}
	c, err := buildCell(vr.flags, vr.settings, o.varyKey)
	if err != nil {
		return variant{}, err
	}
	c.Device = o.device.cfg
	if o.client.cfg != nil {
		client := *o.client.cfg
		c.Client, c.RemoteWake = &client, true
	}
	if wu := o.warmup.effective(o.client.cfg != nil); wu.steady {
		// connections complete in waves a round trip apart, a device's
		// queue fills: warm up until steady, as a live table's cells do
		c.Warmup, c.Steady = validate.LiveWarmup, steadyWarmup(c.Measure)
	} else {
		c.Warmup = wu.d
	}
	vr.proto = c
	return vr, nil
}

// applyVary applies one -vary value: a run flag's (runSettings) or an
// option-file key's, through mycnf.Settings.Set.
func applyVary(f *runFlags, s *mycnf.Settings, key, val string) error {
	if rs, ok := lookupRunSetting(key); ok && rs.key == strings.ReplaceAll(key, "-", "_") {
		*rs.field(f) = val
		return nil
	}
	if err := s.Set(key, val); err != nil {
		if slices.Contains(mycnf.Keys(), strings.ReplaceAll(key, "-", "_")) {
			return fmt.Errorf("option-file key %s: %w", key, err) // a bad value, not a bad key
		}
		var keys []string
		for _, rs := range runSettings {
			keys = append(keys, rs.key)
		}
		return fmt.Errorf("not one of %s, nor an option-file key: %w", strings.Join(keys, ", "), err)
	}
	return nil
}

// buildCell makes the cell prototype from the flags and settings; varied is
// the -vary key that set one of them ("" for none), for the errors to name
// what the user gave. The flags' values are those runRules and parseVary
// let through; the cell is not validated.
func buildCell(f runFlags, s mycnf.Settings, varied string) (sim.Cell, error) {
	switch f.aio { // innodb_use_native_aio by its mode's name
	case "simulated":
		s.UseNativeAIO = false
	case "native":
		s.UseNativeAIO = true
	}
	c, err := sim.CellFromSettings(s, f.workload)
	if err != nil {
		return sim.Cell{}, err
	}
	if c.Gate != nil && !entersGate(c) && settingIsDefault(s, "innodb_thread_concurrency") {
		// A release's own default (8 in MySQL 5.0 and 5.1) for a workload
		// that never enters InnoDB's gate: the limit has nothing to admit. A
		// limit the user set is left for Validate to refuse.
		c.Gate = nil
	}
	if c.Machine.Costs, err = costsOf(f, varied); err != nil {
		return sim.Cell{}, err
	}
	if err := setPolicies(&c, f); err != nil {
		return sim.Cell{}, err
	}
	srv, err := mycnf.ParseServer(f.server)
	if err != nil {
		return sim.Cell{}, cmdflag.Usagef("-server: %w", err)
	}
	if err := checkThreadHandling(srv, c.ThreadHandling); err != nil {
		return sim.Cell{}, err
	}
	if err := checkNativeAIO(srv, c, f.aio == "native"); err != nil {
		return sim.Cell{}, err
	}
	if c.Machine.SyncArray, err = syncArrayOf(srv); err != nil {
		return sim.Cell{}, err
	}
	c.Server = srv // the release's thread pool (threadpool_unix.cc for MariaDB 5.5 to 10.1)
	setThreadPool(&c, s, srv)
	c.Measure = f.measure
	return c, nil
}

// setThreadPool sets c's thread pool from the thread_pool_* settings when
// c runs pool-of-threads, as MariaDB reads them only then: each value the
// release's default leaves 0 (the simulator's default, which is the same),
// so that a file that spells a default out runs the cell it would without.
func setThreadPool(c *sim.Cell, s mycnf.Settings, srv mycnf.Server) {
	if c.ThreadHandling != sim.PoolOfThreads {
		return
	}
	d := srv.Defaults()
	pick := func(v, def int) int {
		if v == def {
			return 0
		}
		return v
	}
	c.ThreadPoolSize = s.ThreadPoolSize // 0: the server's CPUs
	c.ThreadPoolOversubscribe = pick(s.ThreadPoolOversubscribe, d.ThreadPoolOversubscribe)
	c.ThreadPoolMaxThreads = pick(s.ThreadPoolMaxThreads, d.ThreadPoolMaxThreads)
	if s.ThreadPoolStallLimit != d.ThreadPoolStallLimit {
		c.ThreadPoolStallLimit = s.ThreadPoolStallLimit
	}
}

// poolKeys are the option-file keys read only with pool-of-threads.
var poolKeys = []string{"thread_pool_size", "thread_pool_oversubscribe", "thread_pool_stall_limit", "thread_pool_max_threads"}

// checkPoolKeys refuses -vary of a thread_pool_* key when no row runs
// pool-of-threads, and warns of one a -cnf line sets then: MariaDB reads
// them only with pool-of-threads, so they would change nothing. MySQL has
// no thread pool: its -vary of one is refused as such, and a -cnf line is
// mycnf's warning (mycnf.Warning.Foreign).
func (sw *sweep) checkPoolKeys(stderr io.Writer) error {
	if slices.ContainsFunc(sw.variants, func(vr variant) bool { return vr.proto.ThreadHandling == sim.PoolOfThreads }) {
		return nil
	}
	k := strings.ReplaceAll(sw.varyKey, "-", "_")
	if sw.server.Product == mycnf.MySQL {
		if slices.Contains(poolKeys, k) {
			return cmdflag.Usagef("-vary %s with -server %s: MySQL has no thread pool (%s is MariaDB's): want -server mariadb, or no -vary %s", sw.varyKey, sw.server, k, sw.varyKey)
		}
		return nil
	}
	if slices.Contains(poolKeys, k) {
		return cmdflag.Usagef("-vary %s with thread_handling = one-thread-per-connection in every row: %s is read only with pool-of-threads: want -thread-handling pool-of-threads (or thread_handling in -cnf)", sw.varyKey, k)
	}
	for _, st := range sw.base.List() {
		if slices.Contains(poolKeys, st.Key) && !st.IsDefault() {
			fmt.Fprintf(stderr, "innosim run: warning: %s: %s = %s has no effect: thread_handling is one-thread-per-connection in every row (MariaDB reads thread_pool_* only with pool-of-threads)\n",
				st.From, st.Key, strings.TrimSpace(st.Value+" "+st.Unit))
		}
	}
	return nil
}

// costsOf returns the cost profile of f: -costs's file, or -profile's
// built-in profile or file (varied names -vary's key, for the error).
func costsOf(f runFlags, varied string) (sim.CostProfile, error) {
	if f.costs != "" {
		p, _, err := loadProfile(f.costs)
		if err != nil {
			return p, fmt.Errorf("-costs: %w", err)
		}
		return p, nil
	}
	if p, err := sim.Profile(f.profile); err == nil {
		return p, nil
	}
	if _, err := os.Stat(f.profile); err != nil {
		named := fmt.Sprintf("-profile %q", f.profile)
		if varied == "profile" {
			named = "-vary profile=" + f.profile
		}
		return sim.CostProfile{}, cmdflag.Usagef("%s: want old-kernel, new-kernel or a profile file", named)
	}
	p, _, err := loadProfile(f.profile)
	if err != nil {
		return p, fmt.Errorf("-profile: %w", err)
	}
	return p, nil
}

// wakePolicies are -wake's values.
var wakePolicies = map[string]aio.WakePolicy{"all": aio.WakeAll, "targeted": aio.WakeTargeted, "deferred": aio.WakeDeferred}

// setPolicies sets c's scheduler, gate core, wake policy (f's, or the AIO
// mode's default) and thread handling from f.
func setPolicies(c *sim.Cell, f runFlags) error {
	var err error
	if c.Machine.Scheduler, err = sim.ParseScheduler(f.sched); err != nil {
		return cmdflag.Usagef("-sched %q: %w", f.sched, err)
	}
	g, err := concurrency.ParsePolicy(f.gate)
	if err != nil {
		return cmdflag.Usagef("-gate %q: %w", f.gate, err)
	}
	if c.Gate != nil {
		c.Gate.Policy = g
	}
	if wp, ok := wakePolicies[f.wake]; ok && c.AIO != nil {
		c.AIO.Wake = wp
	}
	if f.threadHandling != "" {
		if c.ThreadHandling, err = sim.ParseThreadHandling(f.threadHandling); err != nil {
			return cmdflag.Usagef("-thread-handling %q: %w", f.threadHandling, err)
		}
	}
	return nil
}

// varies reports whether -vary varies the setting name (a run setting's
// key or flag, or an option-file key).
func (o *runOptions) varies(name string) bool {
	if o.varyKey == "" {
		return false
	}
	norm := func(k string) string { return strings.ReplaceAll(k, "-", "_") }
	key, name := norm(o.varyKey), norm(name)
	if rs, ok := lookupRunSetting(name); ok && (rs.key == key || rs.cnfKey == key) {
		return true
	}
	return key == name
}

// origin says how the command line set the setting name of cell c of
// variant vr, as the user gave it: "-vary key=v", "-flag value", a -cnf
// line ("key = v at my.cnf:3") or the server's default; "" for a flag not
// given (-device, -client) or a run setting left to the option file's
// choice.
func (sw *sweep) origin(name string, vr *variant, c sim.Cell) string {
	switch name {
	case "threads":
		return fmt.Sprintf("-threads %d", c.Threads)
	case "cpus":
		if rm := sw.machine; rm != nil && rm.params != nil && !sw.fs.Given("cpus") {
			return fmt.Sprintf("-machine %s's %d server CPUs", rm.path, c.Machine.CPUs)
		}
		return fmt.Sprintf("-cpus %d", c.Machine.CPUs)
	case "client", "device":
		arg := map[string]string{"client": sw.client.arg, "device": sw.device.arg}[name]
		if arg == "" {
			return ""
		}
		return "-" + name + " " + arg
	case "warmup":
		switch {
		case sw.fs.Given("warmup"):
		case c.Client != nil:
			return "-warmup's default with -client"
		default:
			return "-warmup's default"
		}
	}
	if sw.varies(name) {
		return fmt.Sprintf("-vary %s=%s", sw.varyKey, vr.value)
	}
	if rs, ok := lookupRunSetting(name); ok {
		if given := sw.fs.GivenOf(rs.flags...); len(given) > 0 {
			return given[0] + " " + sw.fs.Lookup(given[0][1:]).Value.String()
		}
		if v := *rs.field(&vr.flags); rs.cnfKey == "" && v != "" {
			return fmt.Sprintf("-%s %s (the default)", rs.flags[0], v)
		} else if rs.cnfKey == "" {
			return "" // the AIO mode's own (-wake)
		}
		name = rs.cnfKey
	}
	for _, st := range vr.settings.List() {
		if st.Key != name {
			continue
		}
		v := strings.TrimSpace(st.Value + " " + st.Unit)
		if st.IsDefault() {
			return fmt.Sprintf("%s = %s, the server's default", st.Key, v)
		}
		return fmt.Sprintf("%s = %s at %s", st.Key, v, st.From)
	}
	if fl := sw.fs.Lookup(name); fl != nil && sw.fs.Given(name) {
		return "-" + name + " " + fl.Value.String()
	}
	return ""
}
