package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/mycnf"
	"github.com/innosim/innosim/sim"
)

// Every setting the table names is one origin knows how the command line
// gives: a flag of run's, a -vary key of a run setting, or an option-file
// key; and every row's field is found by its own name.
func TestFieldSettingsNameRunsSettings(t *testing.T) {
	fs, _ := newRunFlagSet(io.Discard)
	for _, row := range fieldSettings {
		for _, name := range row.settings {
			_, isRunSetting := lookupRunSetting(name)
			known := fs.Lookup(name) != nil || isRunSetting || slices.Contains(mycnf.Keys(), name)
			assert.True(t, known, "%s: %s is not a setting of run", row.field, name)
		}
		field := row.field
		if field[len(field)-1] == '.' {
			field += "X"
		}
		got, ok := lookupField(field, sim.Cell{})
		require.True(t, ok, field)
		assert.Equal(t, row.field, got.field, "the first row for %s is its own", field)
	}
	for field, want := range map[string]string{
		"Machine.Costs.syscall": "Machine.Costs.", "Machine.CPUs": "Machine.CPUs", "Machine.SpinLoops": "Machine.",
		"Client": "Client", "Client.Event": "Client.", "Gate": "Gate", "Gate.Config": "Gate.", "Steady.Max": "Steady.",
	} {
		row, ok := lookupField(field, sim.Cell{})
		require.True(t, ok, field)
		assert.Equal(t, want, row.field, field)
	}
	_, ok := lookupField("Nothing", sim.Cell{})
	assert.False(t, ok)
}

// The remedy replaces the first thing the simulator wants (a Cell's
// setting) and keeps the others, or is added when it wants nothing.
func TestReplaceWant(t *testing.T) {
	for _, tc := range []struct{ msg, want, others, out string }{
		{"x, want no Client", "no -client", "", "x: want no -client"},
		{"x: want a Device, or k = 0 or 2", "-device", "(-cnf or -vary)", "x: want -device, or k = 0 or 2 (-cnf or -vary)"},
		{"x: want a Device", "-device", "(-cnf or -vary)", "x: want -device"},
		{"x: give it", "y", "", "x: give it: want y"},
	} {
		assert.Equal(t, tc.out, replaceWant(tc.msg, tc.want, tc.others), tc.msg)
	}
}

// A refusal leads with the setting as the user gave it: a -vary value, a
// flag, an option-file line, the server's default; its subject is
// replaced, or the lead goes before a message that names none.
func TestRefusalLeadsWithTheSettingAsGiven(t *testing.T) {
	refusal := func(args []string, field string, edit func(c *sim.Cell)) string {
		t.Helper()
		o, err := parseRun(append([]string{"--threads", "1", "--cpus", "2", "--measure", "1ms"}, args...), io.Discard)
		require.NoError(t, err)
		sw, err := buildSweep(o, io.Discard, io.Discard)
		require.NoError(t, err)
		edit(&sw.cells[len(sw.cells)-1])
		_, err = sw.run(t.Context(), io.Discard)
		var fe *sim.FieldError
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, field, fe.Field)
		return err.Error()
	}
	for _, tc := range []struct {
		args  []string
		field string
		edit  func(c *sim.Cell)
		want  string
	}{
		{[]string{"--workload", "connect"}, "Machine.CPUs", func(c *sim.Cell) { c.Machine.CPUs = 0 }, "-cpus 0, want 1..1024"},
		{[]string{"--workload", "connect"}, "Machine.Scheduler", func(c *sim.Cell) { c.Machine.Scheduler = 9 },
			"-sched cfs (the default), want cfs, ts or eevdf"},
		{[]string{"--workload", "bulk_insert", "--vary", "innodb_buffer_pool_size=5M,6M"}, "BufferPool", func(c *sim.Cell) { c.BufferPool = 1 << 20 },
			"-vary innodb_buffer_pool_size=6M, want ≥ 5 MiB (innodb_buffer_pool_size)"},
		{[]string{"--workload", "oltp_insert", "--costs", "../../docs/live/v1045.profile"}, "Machine.Costs.syscall", func(c *sim.Cell) { c.Machine.Costs.Syscall = -1 },
			"-costs ../../docs/live/v1045.profile: cost profile syscall = -1ns, want 0s..1s"},
		{[]string{"--workload", "oltp_insert", "--device", "units=2"}, "Device.Units", func(c *sim.Cell) { c.Device.Units = 0 },
			"-device units=2: device Units = 0, want 1..1024"},
		{[]string{"--workload", "oltp_point_select", "--client", "on"}, "Client.Event", func(c *sim.Cell) { c.Client.Event = -1 },
			"-client on: ClientConfig.Event = -1ns, want 0..1s"},
		{[]string{"--workload", "oltp_point_select", "--server", "mysql-5.1"}, "Gate.Config", func(c *sim.Cell) { c.Gate.Config.Tickets = -1 },
			"innodb_thread_concurrency = 8, the server's default: Tickets = -1, want 1..4294967295"},
		// an AIO array's refusal other than the wake policy's keeps the simulator's want
		{[]string{"--workload", "oltp_insert", "--vary", "innodb_use_native_aio=OFF,ON"}, "AIO", func(c *sim.Cell) { c.AIO.ReadSegments = 0 },
			"-vary innodb_use_native_aio=ON: ReadSegments = 0, want 1..64"},
	} {
		assert.Contains(t, refusal(tc.args, tc.field, tc.edit), tc.want, tc.field)
	}
}

// The values of run's settings are declared (runSettings) and checked for
// the flag and for each -vary value alike, the scheduler's other names
// included; an empty value given is refused, not read as the default.
func TestRunSettingsValuesAreDeclared(t *testing.T) {
	base := []string{"run", "--workload", "oltp_insert", "--threads", "1", "--cpus", "2", "--measure", "1ms"}
	code, _, stderr := runCmd(append(base, "--sched", "linux")...)
	assert.Equal(t, 0, code, stderr)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--wake", ""}, `-wake "": want all, targeted or deferred`},
		{[]string{"--aio", ""}, `-aio "": want simulated or native`},
		{[]string{"--vary", "gate=queue,fifo"}, "-vary gate=fifo: want queue, atomic or handoff"},
		{[]string{"--vary", "thread-handling=pool-of-threads,no-threads"}, "-vary thread-handling=no-threads: want one-thread-per-connection or pool-of-threads"},
	} {
		code, stdout, stderr := runCmd(append(base, tc.args...)...)
		assert.Equal(t, 2, code, tc.args)
		assert.Empty(t, stdout)
		assert.Equal(t, "innosim run: "+tc.want+"\n", stderr, tc.args)
	}
}

// thread_pool_size out of range said "want 1..100000 (unset: the server's
// CPUs)" from the option file's range and "want 0 (the CPUs) or 1..128" from
// the release's, 0 allowed in one and refused in the other; and a value out
// of range in -cnf exited 1 for every key but thread_pool_size = 129 with
// 5.5, which exited 2. Both now say the range alike, and a -cnf value out
// of range exits 1 (as innodb_thread_concurrency = -5 does: the file's
// error), the same value through -vary 2 (the command line's).
func TestThreadPoolRefusalsAgree(t *testing.T) {
	run := func(server, cnf string, args ...string) (int, string) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "my.cnf")
		require.NoError(t, os.WriteFile(path, []byte("[mysqld]\nthread_handling = pool-of-threads\n"+cnf), 0o644))
		code, _, stderr := runCmd(append([]string{"run", "--workload", "oltp_point_select", "--server", server, "--cnf", path,
			"--threads", "4", "--measure", "2ms", "--warmup", "2ms"}, args...)...)
		return code, stderr
	}
	code, fromVary := run("mariadb-5.5", "", "--vary", "thread_pool_size=129")
	assert.Equal(t, 2, code, fromVary)
	assert.Contains(t, fromVary, "-vary thread_pool_size=129 with -server mariadb-5.5: want 1..128 (unset: the server's CPUs) in threadpool_unix.cc (5.5-10.1)\n")
	code, fromFile := run("mariadb-5.5", "thread_pool_size = 129\n")
	assert.Equal(t, 1, code, fromFile)
	assert.Contains(t, fromFile, "thread_pool_size = 129 at ")
	assert.Contains(t, fromFile, "my.cnf:3 with -server mariadb-5.5: want 1..128 (unset: the server's CPUs) in threadpool_unix.cc (5.5-10.1)\n")
	code, zero := run("mariadb-10.6", "", "--vary", "thread_pool_size=0")
	assert.Equal(t, 2, code, zero)
	assert.Contains(t, zero, "want 1..100000 (unset: the server's CPUs)")
	for _, out := range []string{fromVary, fromFile, zero} {
		assert.NotContains(t, out, "want 0")
	}

	for _, kv := range []string{"thread_pool_stall_limit = 5", "thread_pool_oversubscribe = NaN",
		"thread_pool_max_threads = 99999999999999999999", "thread_pool_size = 100001", "innodb_thread_concurrency = -5"} {
		server := "mariadb-10.5"
		code, stderr := run(server, kv+"\n")
		assert.Equal(t, 1, code, "%s in -cnf: %s", kv, stderr)
		k, v, _ := strings.Cut(kv, " = ")
		if k == "innodb_thread_concurrency" {
			continue // a gate and pool-of-threads are refused together
		}
		code, stderr = run(server, "", "--vary", k+"="+v)
		assert.Equal(t, 2, code, "-vary %s=%s: %s", k, v, stderr)
	}
}
