package spec

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// base is a complete description; tests edit its lines.
const base = `# a 2012 box
name = box
sockets = 2
cores_per_socket = 6
threads_per_core = 2
l2_per_core = 256KiB
l3_per_socket = 12MiB   # per socket
kernel = 2.6.32
`

func TestParseReadsEveryKey(t *testing.T) {
	m, err := Parse(strings.NewReader(base+`clock_ghz = 2.93
hz = 1000
pti = on
assumed = clock_ghz, l3_per_socket
`), "box.machine")
	require.NoError(t, err)
	assert.Equal(t, Machine{
		Name: "box", Sockets: 2, CoresPerSocket: 6, ThreadsPerCore: 2,
		L2PerCore: 256 << 10, L3PerSocket: 12 << 20, ClockGHz: 2.93,
		Kernel: Kernel{2, 6, 32}, PTI: On, HZ: 1000,
		Assumed: []string{"clock_ghz", "l3_per_socket"},
	}, m)
	assert.Equal(t, 24, m.CPUs())
}

func TestParseReadsTheBoxsOwnTunables(t *testing.T) {
	m, err := Parse(strings.NewReader(base+`sched_latency = 10ms
sched_min_granularity = 2500us
sched_wakeup_granularity = 15ms
`), "tuned.machine")
	require.NoError(t, err)
	s, err := m.Sched()
	require.NoError(t, err)
	// a tuned profile's values, taken as they are: nr_latency as the
	// sysctl handler recomputes it, ⌈10 / 2.5⌉
	assert.Equal(t, Sched{Policy: CFS, Latency: 10 * ms, MinGranularity: 2500 * time.Microsecond, WakeupGranularity: 15 * ms, NrLatency: 4, SleeperCredit: 5 * ms}, s)

	m, err = Parse(strings.NewReader(strings.Replace(base, "kernel = 2.6.32", "kernel = 6.8\npti = off\nsched_base_slice = 2ms\nhz = 250", 1)), "eevdf.machine")
	require.NoError(t, err)
	s, err = m.Sched()
	require.NoError(t, err)
	assert.Equal(t, Sched{Policy: EEVDF, BaseSlice: 2 * ms, Tick: 4 * ms}, s)
}

func TestParseReadsSizes(t *testing.T) {
	for in, want := range map[string]int64{
		"262144": 262144, "256K": 256 << 10, "256KiB": 256 << 10, "256 KiB": 256 << 10,
		"1MiB": 1 << 20, "27.5MiB": 28835840, "1.5K": 1536, "1GiB": 1 << 30, "4096B": 4096,
	} {
		got, err := parseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for in, msg := range map[string]string{
		"12MB":   "MB is ambiguous: write MiB",
		"256KB":  "KB is ambiguous: write KiB",
		"0.3K":   "a whole number of bytes",
		"12 TiB": "a size in bytes",
		"lots":   "a size in bytes",
		"-1K":    "a size in bytes",
		"NaNK":   "a size in bytes",
	} {
		_, err := parseSize(in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), msg, in)
	}
}

func TestParseNamesTheLineTheKeyAndTheRange(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string
		msg  string
	}{
		{"an unknown key", base + "l4_per_socket = 1\n", "x.machine:9: unknown key \"l4_per_socket\""},
		{"a key twice", base + "sockets = 4\n", "x.machine:9: sockets given twice (first on line 3)"},
		{"a line without =", base + "pti on\n", "x.machine:9: \"pti on\", want key = value"},
		{"a missing key", strings.Replace(base, "kernel = 2.6.32\n", "", 1), "x.machine: no kernel given"},
		{"sockets out of range", strings.Replace(base, "sockets = 2", "sockets = 0", 1), "x.machine:3: sockets = \"0\", want a whole number in 1..64"},
		{"threads out of range", strings.Replace(base, "threads_per_core = 2", "threads_per_core = 16", 1), "x.machine:5: threads_per_core = \"16\", want a whole number in 1..8"},
		{"too many CPUs", strings.Replace(base, "cores_per_socket = 6", "cores_per_socket = 600", 1), "x.machine: sockets × cores_per_socket × threads_per_core = 2400 CPUs, want at most 1024"},
		{"a cache in MB", strings.Replace(base, "12MiB", "12MB", 1), "x.machine:7: l3_per_socket = \"12MB\", want MB is ambiguous"},
		{"an L3 smaller than the L2", strings.Replace(base, "12MiB", "128KiB", 1), "x.machine:7: l3_per_socket = 131072, want 0 (no L3) or l2_per_core (262144)..1073741824 bytes"},
		{"an L2 of nothing", strings.Replace(base, "256KiB", "0", 1), "x.machine:6: l2_per_core = \"0\", want a size in 1024..1073741824 bytes"},
		{"a bad kernel", strings.Replace(base, "2.6.32", "linux", 1), "x.machine:8: kernel = \"linux\", want a release"},
		{"a kernel not read", strings.Replace(base, "2.6.32", "2.6.36", 1), "x.machine:8: kernel 2.6.36: the fair class's defaults of 2.6.33 to 3.1 were not read"},
		{"no pti from 4.15", strings.Replace(base, "2.6.32", "6.8.0-60-generic", 1), "x.machine:8: kernel 6.8.0 with no pti given"},
		{"a bad pti", base + "pti = maybe\n", "x.machine:9: pti = \"maybe\", want on or off"},
		{"a bad hz", base + "hz = 200\n", "x.machine:9: hz = \"200\", want 100, 250, 300 or 1000"},
		{"a clock of 0", base + "clock_ghz = 0\n", "x.machine:9: clock_ghz = \"0\", want a clock in GHz in (0, 10]"},
		{"a tunable without unit", base + "sched_latency = 24\n", "x.machine:9: sched_latency = \"24\", want a duration with its unit"},
		{"one CFS tunable of three", base + "sched_latency = 24ms\n", "x.machine:9: sched_latency without sched_min_granularity"},
		{"a base slice before 6.6", base + "sched_base_slice = 3ms\n", "x.machine:9: sched_base_slice with kernel 2.6.32"},
		{"a CFS tunable on EEVDF", strings.Replace(base, "2.6.32", "6.8", 1) + "pti = off\nsched_wakeup_granularity = 4ms\n", "x.machine:10: sched_wakeup_granularity with kernel 6.8.0: EEVDF (6.6 on) has no"},
		{"an assumed key the file does not give", base + "assumed = clock_ghz\n", "x.machine:9: assumed names clock_ghz, which the file does not give"},
		{"an assumed key that is no key", base + "assumed = sockets, colour\n", "x.machine:9: assumed = colour, want keys of the description"},
		{"an assumed key twice", base + "assumed = sockets, sockets\n", "x.machine:9: assumed = sockets, want each key once"},
		{"an empty name", strings.Replace(base, "name = box", "name =", 1), "x.machine:2: name = \"\", want a non-empty name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.file), "x.machine")
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidConfig), "%v", err)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestParseRefusesAHugeFile(t *testing.T) {
	_, err := Parse(strings.NewReader(strings.Repeat("# padding\n", 10000)), "big")
	assert.ErrorIs(t, err, ErrInvalidConfig)
	assert.ErrorContains(t, err, "longer than 65536 bytes")
}

func TestValidateReportsFieldErrors(t *testing.T) {
	m := Machine{Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1, L2PerCore: 1 << 20, L3PerSocket: 0, Kernel: Kernel{3, 10, 0}}
	require.NoError(t, m.Validate(), "no L3 is allowed")
	m.HZ = 999
	var fe *FieldError
	require.ErrorAs(t, m.Validate(), &fe)
	assert.Equal(t, "hz", fe.Key)
	assert.ErrorIs(t, fe, ErrInvalidConfig)
	m.HZ = 0
	m.Kernel = Kernel{4, 15, 0}
	require.ErrorAs(t, m.Validate(), &fe)
	assert.Equal(t, "kernel", fe.Key, "pti must be given from 4.15")
	m.PTI = Off
	assert.NoError(t, m.Validate())
}
