package main

import (
	"strings"
	"testing"
	"time"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/innosim/innosim/internal/live"
	"github.com/innosim/innosim/internal/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLiveFlagsBecomeTheSweep(t *testing.T) {
	var stderr strings.Builder
	c, csv, _, done, err := parseLiveFlags([]string{"--workload", "oltp_read_only,connect", "--threads", "1,64",
		"--setting", "thread-handling=pool-of-threads", "--time", "3s", "--warmup", "0s", "--repeats", "3",
		"--buffer-pool", "32", "--csv", "x.csv"}, &stderr)
	require.NoError(t, err, stderr.String())
	assert.False(t, done)
	assert.Equal(t, "x.csv", csv)
	assert.Equal(t, []string{"oltp_read_only", "connect"}, c.Workloads)
	assert.Equal(t, []int{1, 64}, c.Threads)
	assert.Equal(t, "thread_handling", c.Setting, "a dashed name is the variable's")
	assert.Equal(t, []string{"pool-of-threads"}, c.Values)
	assert.Equal(t, 3*time.Second, c.Duration)
	assert.Equal(t, time.Duration(0), c.Warmup)
	assert.Equal(t, 3, c.Repeats)
	assert.Equal(t, int64(32<<20), c.BufferPool)
}

func TestLiveRefusesBadFlagsNamingTheFlag(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"--workload=tpcc", "-workload: live: Workloads"},
		{"--threads=0", "-threads"},
		{"--setting=thread_handling", "-setting \"thread_handling\": want key=v1,v2"},
		{"--setting=thread_handling=no-threads", "-setting values: live: Values"},
		{"--time=500ms", "-time: live: Duration"},
		{"--repeats=0", "flag -repeats: 0 is out of range: want 1..100"},
		{"--buffer-pool=1", "-buffer-pool 1: want 8..65536 (MiB)"},
		// the probe has its own events and one client thread: a sweep's
		// flags would be ignored
		{"--rotation=1,16 --threads=4 --time=2s", "-rotation runs its own events on one client thread: want no -threads, -time with it"},
		{"--rotation=1,16 --workload=oltp_read_write", `-workload: live: Workloads = "oltp_read_write", want one of oltp_point_select, oltp_read_only, connect`},
		{"--rotation=1,20000", "-rotation: 20000 is out of range: want 1..10000"},
		{"--rotation=16,64", "-rotation: live: connections = [16 64], want 1 and at least one more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(append([]string{"live"}, strings.Fields(tc.name)...)...)
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

func TestLiveWithoutSettingHasNoSettingColumn(t *testing.T) {
	var stderr strings.Builder
	c, _, _, _, err := parseLiveFlags([]string{"--setting", "", "--threads", "1,2,4,8"}, &stderr)
	require.NoError(t, err)
	assert.Empty(t, c.Setting)
	tb := liveTable(c, []live.Point{{Workload: "oltp_point_select", CPUs: 2, Threads: 1, Throughput: 5}, {Workload: "oltp_point_select", CPUs: 2, Threads: 2, Throughput: 9},
		{Workload: "oltp_point_select", CPUs: 2, Threads: 4, Throughput: 12}, {Workload: "oltp_point_select", CPUs: 2, Threads: 8, Throughput: 11}})
	assert.Equal(t, []string{"workload", "cpus", "t1", "t2", "t4", "t8"}, tb.Header)
	assert.Equal(t, [][]string{{"oltp_point_select", "2", "5.00", "9.00", "12.0", "11.0"}}, tb.Rows)
}

func TestRunVariesThreadHandling(t *testing.T) {
	code, out, stderr := runCmd("run", "--workload", "connect", "--threads", "64", "--cpus", "2", "--measure", "5ms",
		"--server", "mariadb", "--vary", "thread_handling=one-thread-per-connection,pool-of-threads")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "pool-of-threads")
	code, _, stderr = runCmd("run", "--workload", "connect", "--threads", "1", "--thread-handling", "no-threads")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `-thread-handling "no-threads": want one-thread-per-connection or pool-of-threads`)
	code, _, stderr = runCmd("run", "--workload", "connect", "--threads", "1", "--thread-handling", "pool-of-threads",
		"--vary", "thread_handling=pool-of-threads")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-thread-handling and -vary thread_handling both given")
}

func TestLiveRotationFlagsBecomeTheProbe(t *testing.T) {
	var stderr strings.Builder
	c, csv, rotation, done, err := parseLiveFlags([]string{"--rotation", "1,64,1024", "--workload", "oltp_read_only", "--csv", "r.csv"}, &stderr)
	require.NoError(t, err, stderr.String())
	assert.False(t, done)
	assert.Equal(t, "r.csv", csv)
	assert.Equal(t, []int{1, 64, 1024}, rotation)
	assert.Nil(t, c.Threads, "the probe's connections are not a sweep's threads")
	assert.Zero(t, c.Duration)
	assert.Zero(t, c.Warmup)
	assert.NoError(t, c.ValidateRotation(rotation))
}

// live's default sweep had no 64-thread row, so validate could not read a
// level from it (its level check fails as not made without one).
func TestLiveDefaultSweepHasTheLevelRow(t *testing.T) {
	var stderr strings.Builder
	c, _, _, _, err := parseLiveFlags(nil, &stderr)
	require.NoError(t, err)
	assert.Contains(t, c.Threads, validate.LiveLevelThreads)
}

// live's refusals of its configuration were matched by their text ("Threads
// =") and flattened into a string: the field's flag is named from the typed
// live.FieldError, and the error still is one.
func TestLiveRefusalsAreTyped(t *testing.T) {
	cfg := live.DefaultConfig()
	cfg.Tables = 0
	err := liveFlagError(cfg.Validate())
	require.Error(t, err)
	assert.True(t, cmdflag.IsUsage(err))
	assert.True(t, strings.HasPrefix(err.Error(), "-tables: live: Tables = 0"), err.Error())
	var fe *live.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "Tables", fe.Field)
	assert.ErrorIs(t, err, live.ErrInvalidConfig)
}

// live's own lines read "live: starting ..." among lines that all begin
// "innosim live: ".
func TestLiveLinesBeginWithTheCommand(t *testing.T) {
	var b strings.Builder
	n, err := innosimLines{&b}.Write([]byte("live: starting mariadbd in \x1b[2J\n"))
	require.NoError(t, err)
	assert.Equal(t, len("live: starting mariadbd in \x1b[2J\n"), n)
	assert.Equal(t, "innosim live: starting mariadbd in \\x1b[2J\n", b.String())
}
