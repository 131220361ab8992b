package main

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim"
)

// checkEffects refuses a setting of the command line that changes no cell
// of the sweep, which would otherwise be printed as if it had been
// simulated: -wake or -aio for a workload without an AIO array, -gate
// without a gate, a -vary of which two values build the same cell, a
// -device no cell waits for or a service time of I/O no cell does. What a
// single cell cannot run is the simulator's to refuse (sweep.refusal).
func (sw *sweep) checkEffects() error {
	for _, check := range []func() error{sw.checkAIOFlags, sw.checkGateFlags, sw.checkVaryValues, sw.checkDeviceUse} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkAIOFlags refuses -wake and -aio (given or varied) for a workload
// without an AIO array.
func (sw *sweep) checkAIOFlags() error {
	for _, vr := range sw.variants {
		if vr.proto.AIO != nil || vr.flags.wake == "" && vr.flags.aio == "" {
			continue
		}
		key, val := "wake", vr.flags.wake
		if val == "" {
			key, val = "aio", vr.flags.aio
		}
		given := fmt.Sprintf("-%s %q", key, val)
		if sw.varyKey == key {
			given = fmt.Sprintf("-vary %s=%s", key, val)
		}
		return cmdflag.Usagef("%s with workload %s, which submits no AIO: want a workload with an AIO array (%s)", given, sw.workload, strings.Join(aioWorkloads(), ", "))
	}
	return nil
}

// checkGateFlags refuses -gate (given, or varied) when no row has a gate
// (innodb_thread_concurrency = 0 everywhere).
func (sw *sweep) checkGateFlags() error {
	if !sw.fs.Given("gate") && sw.varyKey != "gate" || slices.ContainsFunc(sw.variants, func(vr variant) bool { return vr.proto.Gate != nil }) {
		return nil
	}
	flagName := "-gate " + sw.gate
	if sw.varyKey == "gate" {
		flagName = "-vary gate"
	}
	return cmdflag.Usagef("%s with innodb_thread_concurrency = 0 in every row, which has no gate: want innodb_thread_concurrency > 0 (-cnf or -vary), or no %s",
		flagName, strings.Fields(flagName)[0])
}

// checkVaryValues refuses a -vary of which two values build the same cell:
// a key the workload never reads, such as innodb_read_io_threads for
// connect, or innodb_flush_log_at_trx_commit for one that never commits
// through the redo log (withoutUnread). Two values that are one (two
// spellings of an option-file key's value, two paths of one cost profile)
// are refused as such: the workload reads the key.
func (sw *sweep) checkVaryValues() error {
	read := make([]sim.Cell, len(sw.variants))
	for i, vr := range sw.variants {
		read[i] = withoutUnread(vr.proto)
	}
	vals := sw.varyValues
	for j := range read {
		for i := range j {
			if !reflect.DeepEqual(read[i], read[j]) {
				continue
			}
			if same, ok := sameValue(sw.base, sw.varyKey, vals[i], vals[j]); ok {
				return cmdflag.Usagef("-vary %s: values %q and %q build the same cell: they %s: want each value once",
					sw.varyKey, vals[i], vals[j], same)
			}
			return cmdflag.Usagef("-vary %s: values %q and %q build the same cell for workload %s (it does not read %s): want a setting that changes the run",
				sw.varyKey, vals[i], vals[j], sw.workload, sw.varyKey)
		}
	}
	return nil
}

// sameValue reports whether a and b, two -vary values of key that build the
// same cell, are one value, and says so ("are one value of
// innodb_use_native_aio (ON)", "name the same cost profile ..."): an
// option-file key's two spellings of one value (ON and 1, 1G and 1024M), or
// any two values of a run setting's key, which every cell it reaches reads
// (a -gate without a gate, a -wake or -aio without an AIO array are refused
// before). Otherwise the workload does not read key.
func sameValue(base mycnf.Settings, key, a, b string) (string, bool) {
	if rs, ok := lookupRunSetting(key); ok && rs.key == key {
		return "name the same " + rs.names, true
	}
	value := func(v string) (mycnf.Setting, bool) {
		s := base
		if s.Set(key, v) != nil {
			return mycnf.Setting{}, false
		}
		for _, st := range s.List() {
			if st.From == (mycnf.Pos{File: "Set"}) { // the one Set changed
				return st, true
			}
		}
		return mycnf.Setting{}, false
	}
	sa, okA := value(a)
	sb, okB := value(b)
	if !okA || !okB || sa.Value != sb.Value {
		return "", false
	}
	return fmt.Sprintf("are one value of %s (%s)", sa.Key, strings.TrimSpace(sa.Value+" "+sa.Unit)), true
}

// withoutUnread returns proto with the settings its workload never reads
// left out (nil or 0, as if not set): Log (innodb_flush_log_at_trx_commit)
// unless the workload commits through the redo log, BufferPool
// (innodb_buffer_pool_size) unless it reads the pool (sim.Uses).
// sim.CellFromSettings sets both for every workload, and the seed hashes them
// (sim.Cell.SeedFor), so cells that differ only there run alike but for their
// seeds.
func withoutUnread(proto sim.Cell) sim.Cell {
	if u, ok := uses(proto); ok && !u.LogCommit {
		proto.Log = nil
	}
	if u, ok := uses(proto); ok && !u.BufferPool {
		proto.BufferPool = 0
	}
	return proto
}

// checkDeviceUse refuses a -device that no variant's cells wait for, and a
// service time it gives (read, write, fsync) of a kind of I/O no cell does
// (sim.Cell.DeviceUse): either would change nothing but the seed. A cell
// whose use cannot be read is left to the simulator to refuse.
func (sw *sweep) checkDeviceUse() error {
	if sw.device.cfg == nil {
		return nil
	}
	var use sim.DeviceUse
	for _, vr := range sw.variants {
		u, err := vr.proto.DeviceUse()
		if err != nil {
			return nil
		}
		use.Read, use.Write, use.Fsync = use.Read || u.Read, use.Write || u.Write, use.Fsync || u.Fsync
	}
	rows := ""
	if sw.varyKey != "" {
		rows = " in any row"
	}
	if use == (sim.DeviceUse{}) {
		return cmdflag.Usagef("-device with workload %s, which never waits for a device%s (no read, write or fsync, no AIO array, no commit that fsyncs: innodb_flush_log_at_trx_commit = 1): want a workload that does I/O, or no -device",
			sw.workload, rows)
	}
	cfg := sw.device.cfg
	kinds := []struct {
		key, verb string
		used      bool
		d         time.Duration
	}{{"read", "reads", use.Read, cfg.Read}, {"write", "writes", use.Write, cfg.Write}, {"fsync", "fsyncs", use.Fsync, cfg.Fsync}}
	var does []string
	for _, k := range kinds {
		if k.used {
			does = append(does, k.verb)
		}
	}
	for _, k := range kinds {
		if sw.device.given[k.key] && !k.used {
			return cmdflag.Usagef("-device %s=%v with workload %s, which never %s%s (it only %s): want no %s key in -device",
				k.key, k.d, sw.workload, k.verb, rows, strings.Join(does, " and "), k.key)
		}
	}
	return nil
}

// entersGate reports whether a cell of proto enters InnoDB's gate
// (innodb_thread_concurrency) at all.
func entersGate(proto sim.Cell) bool {
	u, ok := uses(proto)
	return !ok || u.Gate
}

// uses returns what proto's workload declares it uses; false when the
// workload is unknown (Validate then names what is wrong).
func uses(proto sim.Cell) (sim.Uses, bool) {
	w, err := sim.LookupWorkload(proto.Workload)
	return w.Uses, err == nil
}

// aioWorkloads returns the workloads that submit AIO (sim.Uses.AIO), sorted.
func aioWorkloads() []string {
	var names []string
	for _, n := range sim.WorkloadNames() {
		if w, _ := sim.LookupWorkload(n); w.Uses.AIO {
			names = append(names, n)
		}
	}
	return names
}

// settingIsDefault reports whether no line (nor -vary) set key in s.
func settingIsDefault(s mycnf.Settings, key string) bool {
	for _, st := range s.List() {
		if st.Key == key {
			return st.IsDefault()
		}
	}
	return false
}
