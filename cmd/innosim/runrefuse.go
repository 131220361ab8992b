package main

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/sim"
)

// fieldSetting is one row of fieldSettings: a field of sim.Cell (a
// *sim.FieldError's Field; one ending in "." stands for every field under
// it), the settings of run's command line that set it (the first is the one
// the refusal is about, the others what it is refused with), how the
// command line remedies it in place of the first thing the simulator wants
// (nil, or "" from want, keeps the simulator's), and where the user gives
// the other things it wants. A row with when is used only for a cell it
// holds for. A row with inFile refuses a value out of its range: given by
// the option file (not -vary), the refusal is the file's, an error that
// exits 1 as mycnf's refusals of the file's values do, not the command
// line's.
type fieldSetting struct {
	field    string
	when     func(c sim.Cell) bool // nil, or whether the row is the cell's
	settings []string
	want     func(r *cellRefusal) string
	others   string
	inFile   bool
}

// fieldSettings maps the simulator's refusal of a cell to the settings of
// run's command line that made it: the one table between sim.Cell's fields
// and run's flags, -vary keys and option-file keys. The first row that
// matches a Field is used.
var fieldSettings = []fieldSetting{
	{field: "Threads", settings: []string{"threads"}},
	{field: "Machine.CPUs", settings: []string{"cpus"}},
	{field: "Machine.Scheduler", settings: []string{"sched"}},
	{field: "Machine.SyncArray", settings: []string{"server"}},
	{field: "Machine.Costs.", settings: []string{"profile"}},
	{field: "Machine.ClientCPUs", settings: []string{"client-cpus", "machine"}},
	{field: "Machine.", settings: []string{"cpus"}},
	{field: "Workload", settings: []string{"workload"}},
	{field: "Warmup", settings: []string{"warmup"}},
	{field: "Measure", settings: []string{"measure"}},
	{field: "Steady.", settings: []string{"threads", "cpus", "warmup"}, want: wantMore("-cpus")},
	{field: "Gate", settings: []string{"innodb_thread_concurrency"}, want: wantText("innodb_thread_concurrency = 0 for it (-cnf or -vary)")},
	{field: "Gate.Policy", settings: []string{"gate"}},
	{field: "Gate.", settings: []string{"innodb_thread_concurrency"}},
	{field: "AIO", settings: []string{"wake", "aio"}, want: wantWake},
	{field: "Device", settings: []string{"device"}, want: wantDevice, others: "(-cnf or -vary)"},
	{field: "Device.", settings: []string{"device"}},
	{field: "Log.", settings: []string{"innodb_flush_log_at_trx_commit"}},
	{field: "BufferPool", settings: []string{"innodb_buffer_pool_size"}},
	{field: "ThreadHandling", settings: []string{"thread_handling"}},
	{field: "ThreadPoolSize", settings: []string{"thread_pool_size", "server"}, when: func(c sim.Cell) bool { return c.ThreadPoolSize != 0 },
		want: wantPoolSizeRange, inFile: true},
	{field: "ThreadPoolSize", settings: []string{"cpus", "thread_handling", "server"}, want: wantPoolSize},
	{field: "ThreadPoolOversubscribe", settings: []string{"thread_pool_oversubscribe"}, inFile: true},
	{field: "ThreadPoolStallLimit", settings: []string{"thread_pool_stall_limit"}, inFile: true},
	{field: "ThreadPoolMaxThreads", settings: []string{"thread_pool_max_threads", "server"}, inFile: true},
	{field: "Client", settings: []string{"client"}, want: wantText("no -client")},
	{field: "Client.", settings: []string{"client"}},
}

// lookupField returns the row of fieldSettings for field of cell c.
func lookupField(field string, c sim.Cell) (fieldSetting, bool) {
	i := slices.IndexFunc(fieldSettings, func(fs fieldSetting) bool {
		if fs.when != nil && !fs.when(c) {
			return false
		}
		if prefix, ok := strings.CutSuffix(fs.field, "."); ok {
			return strings.HasPrefix(field, prefix+".")
		}
		return fs.field == field
	})
	if i < 0 {
		return fieldSetting{}, false
	}
	return fieldSettings[i], true
}

// cellRefusal is the simulator's refusal of one cell of a sweep: the cell,
// the variant (-vary value) that made it, and the error.
type cellRefusal struct {
	sw   *sweep
	vr   *variant
	cell sim.Cell
	err  *sim.FieldError
}

// refusal returns the command line's refusal of the sweep for err, the
// simulator's refusal of one of its cells (a *sim.CellError, which
// sim.RunCells returns before any cell runs), or err itself for any other.
// The message leads with the setting the user gave that the refusal is
// about, as given ("-vary innodb_thread_concurrency=8", "-cpus 1024",
// "innodb_thread_concurrency = 8 at my.cnf:2"), with the settings it is
// refused with, in the simulator's words with the remedy in the command
// line's (fieldSettings); a refusal of a row's cells names the -vary value.
// It wraps err, and is a *cmdflag.UsageError.
func (sw *sweep) refusal(err error) error {
	var ce *sim.CellError
	var fe *sim.FieldError
	if !errors.As(err, &ce) || !errors.As(err, &fe) {
		return err
	}
	vr, cell := sw.cellAt(ce.Index)
	row, ok := lookupField(fe.Field, cell)
	if !ok {
		return cmdflag.Usagef("cell %d of %d (%d threads, %d cpus): %w%s",
			ce.Index+1, ce.Len, cell.Threads, cell.Machine.CPUs, fe, steadyHint(err))
	}
	r := &cellRefusal{sw: sw, vr: vr, cell: cell, err: fe}
	msg := r.reason(row, r.lead(row.settings))
	if sw.varyKey != "" && !slices.ContainsFunc(row.settings, sw.varies) {
		msg = fmt.Sprintf("-vary %s=%s: %s", sw.varyKey, vr.value, msg)
	}
	if row.inFile && sw.fromFile(row.settings[0], vr) {
		return plainError{msg + steadyHint(err), err}
	}
	return &cmdflag.UsageError{Err: plainError{msg + steadyHint(err), err}}
}

// fromFile reports whether the option-file key name has, in variant vr,
// a value a line of -cnf gave: neither -vary's nor the server's default.
func (sw *sweep) fromFile(name string, vr *variant) bool {
	if sw.varies(name) {
		return false
	}
	for _, st := range vr.settings.List() {
		if st.Key == name {
			return !st.IsDefault()
		}
	}
	return false
}

// lead names the settings, as the command line gave them: the first, then
// " with " each other one (its value, then where it came from).
func (r *cellRefusal) lead(settings []string) string {
	var parts []string
	for _, name := range settings {
		origin := r.sw.origin(name, r.vr, r.cell)
		if origin == "" {
			continue
		}
		if len(parts) > 0 {
			if what := r.describe(name); what != "" {
				origin = what + " (" + origin + ")"
			}
		}
		parts = append(parts, origin)
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return parts[0] + " with " + strings.Join(parts[1:], " and ")
}

// describe names a setting's value in the cell, for a setting a refusal is
// made with: "pool-of-threads", "native AIO", "2 CPUs", "a steady warm-up";
// "" to name it by its origin alone.
func (r *cellRefusal) describe(name string) string {
	switch name {
	case "thread_handling":
		return r.cell.ThreadHandling.String()
	case "aio":
		if r.cell.AIO != nil {
			return r.cell.AIO.IO.String() + " AIO"
		}
	case "cpus":
		return fmt.Sprintf("%d CPUs", r.cell.Machine.CPUs)
	case "warmup":
		wu := r.vr.flags.warmup.effective(r.cell.Client != nil)
		return "a " + wu.String() + " warm-up"
	}
	return ""
}

// subject matches what follows a field's name at the start of the
// simulator's message: its value (" = 8") or a note (" (limit = 8)");
// packages matches the packages' prefixes ("sim: ", "aio: ").
var (
	subject  = regexp.MustCompile(`^( = [^\s,:]+| \([^)]*\))?`)
	packages = regexp.MustCompile(`^([a-z]+: )+`)
)

// reason returns the simulator's message led by lead: its package's prefix
// and ErrInvalidConfig's text removed, its subject (the field's name and
// value, which the lead names) replaced by the lead, or the lead before it,
// and the first thing it wants replaced by row's remedy.
func (r *cellRefusal) reason(row fieldSetting, lead string) string {
	msg := r.err.Error()
	if i := strings.Index(msg, ": "+sim.ErrInvalidConfig.Error()); i >= 0 {
		msg = msg[:i]
	}
	msg = packages.ReplaceAllString(msg, "")
	rest, ok := "", false
	for _, name := range []string{r.err.Field, r.err.Field[strings.LastIndex(r.err.Field, ".")+1:]} {
		if rest, ok = strings.CutPrefix(msg, name); ok && (rest == "" || strings.ContainsAny(rest[:1], " ,:")) {
			break
		}
		ok = false
	}
	switch {
	case ok:
		msg = lead + rest[len(subject.FindString(rest)):]
	case lead != "":
		msg = lead + ": " + msg
	}
	if want := ""; row.want != nil {
		if want = row.want(r); want != "" {
			msg = replaceWant(msg, want, row.others)
		}
	}
	return msg
}

// replaceWant replaces the first thing msg wants (up to ", or ": the
// simulator's name of a cell's setting) by want, and adds others after the
// rest of what it wants, if anything; or adds ": want " and want when msg
// wants nothing.
func replaceWant(msg, want, others string) string {
	i := max(strings.LastIndex(msg, ": want "), strings.LastIndex(msg, ", want "))
	if i < 0 {
		return msg + ": want " + want
	}
	wanted := msg[i+len(": want "):]
	rest := ""
	if j := strings.Index(wanted, ", or "); j >= 0 {
		rest = wanted[j:]
		if others != "" {
			rest += " " + others
		}
	}
	return msg[:i] + ": want " + want + rest
}

// wantText is a remedy that is always text.
func wantText(text string) func(*cellRefusal) string {
	return func(*cellRefusal) string { return text }
}

// wantMore is the remedy "more" and the flag.
func wantMore(flagName string) func(*cellRefusal) string {
	return wantText("more " + flagName)
}

// wantDevice is the remedy of a cell that waits for a device and has none:
// -device, with an example that gives an fsync time only to a cell that
// fsyncs (a time of I/O the cell never does is refused).
func wantDevice(r *cellRefusal) string {
	example := "units=1"
	if use, err := r.cell.DeviceUse(); err == nil && use.Fsync {
		example += ",fsync=200us"
	}
	return "-device (e.g. -device " + example + ")"
}

// wantWake is the remedy of a wake policy that the AIO mode does not have
// (wake all with native AIO, which wakes no handler thread): what gives
// simulated AIO, or the other policies, in the terms the user gave them;
// "" for another refusal of the AIO array.
func wantWake(r *cellRefusal) string {
	sw, why := r.sw, " (native AIO wakes no handler thread)"
	switch {
	case r.cell.AIO == nil || r.cell.AIO.IO != aio.IONative || r.cell.AIO.Wake != aio.WakeAll:
		return ""
	case sw.varies("aio"):
		return "-wake targeted or deferred, or no -wake (each mode's default)" + why
	case sw.varies("wake") && sw.aio == "native":
		return "-aio simulated for wake all, or -vary wake=targeted,deferred" + why
	case sw.aio == "native":
		return "-aio simulated for wake all, or -wake targeted or deferred" + why
	case sw.varies("wake"):
		return "-aio simulated (or innodb_use_native_aio = OFF in -cnf) to vary the wake policy of simulated AIO, or -vary wake=targeted,deferred" + why
	}
	return "-aio simulated or -vary aio=simulated (or innodb_use_native_aio = OFF in -cnf) for wake all" + why
}

// wantPoolSize is the remedy of a pool of more groups than the release
// takes: fewer CPUs, since the pool has a group per CPU by default
// (thread_pool_size = 0); the range is
// the simulator's (sim.Cell.ThreadPoolSize: 128 groups for MariaDB 5.5 to
// 10.1).
func wantPoolSize(r *cellRefusal) string {
	if r.cell.ThreadPoolSize != 0 {
		return ""
	}
	most := sim.MaxThreadPoolSize
	if m := regexp.MustCompile(`1\.\.(\d+)`).FindStringSubmatch(r.err.Error()); m != nil {
		fmt.Sscan(m[1], &most)
	}
	return fmt.Sprintf("-cpus 1..%d with pool-of-threads (a group per CPU, thread_pool_size's default)", most)
}

// wantPoolSizeRange is the range of thread_pool_size the release takes,
// in mycnf's words for the option file's range (the simulator's 0, the
// CPUs, is the key unset), with the simulator's source of it: 1..128 in
// MariaDB 5.5 to 10.1's threadpool_unix.cc.
func wantPoolSizeRange(r *cellRefusal) string {
	m := regexp.MustCompile(`1\.\.(\d+) \((.+?)\): `).FindStringSubmatch(r.err.Error())
	if m == nil {
		return fmt.Sprintf("1..%d (unset: the server's CPUs)", sim.MaxThreadPoolSize)
	}
	return fmt.Sprintf("1..%s (unset: the server's CPUs) in %s", m[1], m[2])
}

// plainError is an error shown as msg that wraps err, for errors.Is.
type plainError struct {
	msg string
	err error
}

func (e plainError) Error() string { return e.msg }
func (e plainError) Unwrap() error { return e.err }
