package calibrate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/innosim/innosim/internal/cmdflag"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tiny keeps test runs short: few repeats and rounds, and the rings of at
// most 16 threads (those of 128 and 1,024 threads took 20 s of each
// calibration). INNOSIM_FULL=1 (as .ci/run sets) measures every ring here;
// the figures are only checked for sanity.
var tiny = Options{Repeats: 5, Rounds: 200, MaxRing: smallRing()}

// smallRing is the largest ring TestMeasureGivesSaneFigures measures: 16
// threads, or every ring (0) when INNOSIM_FULL=1.
func smallRing() int {
	if os.Getenv("INNOSIM_FULL") == "1" {
		return 0
	}
	return 16
}

// smallRun is the flags of a Run as short as tiny's default, for the tests
// of what Run writes (its table, JSON and profile), which the size of the
// rings does not change.
func smallRun(args ...string) []string {
	return append(args, "-max-ring", "16", "-repeats", "3", "-rounds", "50")
}

func TestMeasureGivesSaneFigures(t *testing.T) {
	c, err := Measure(context.Background(), tiny)
	require.NoError(t, err)
	for _, r := range c.rows() {
		if r.share != nil {
			s := r.share
			require.True(t, s.Repeats == 0 || s.Repeats == tiny.Repeats, r.name)
			require.True(t, 0 <= s.Min && s.Min <= s.Q1 && s.Q1 <= s.Median && s.Median <= s.Q3 && s.Q3 <= s.Max && s.Max <= 1,
				"%s: %v out of order or out of 0..1", r.name, s)
			continue
		}
		m := r.m
		if m.Repeats == 0 { // a probe this machine cannot run (pinning off Linux, one CPU)
			require.Zero(t, m.Median, r.name)
			continue
		}
		require.Equal(t, tiny.Repeats, m.Repeats, r.name)
		require.Positive(t, m.Median, r.name)
		require.True(t, m.Min <= m.Q1 && m.Q1 <= m.Median && m.Median <= m.Q3 && m.Q3 <= m.Max,
			"%s: min %v q1 %v median %v q3 %v max %v out of order", r.name, m.Min, m.Q1, m.Median, m.Q3, m.Max)
		// A unit mistake (a measurement's total for one operation) would be
		// Rounds times too large. The bound leaves room for a wakee that waits
		// out a whole CFS period on a loaded machine: 14 ms for the remote
		// wake with both cores busy (.ci/flakes) failed the old 10 ms.
		require.Less(t, m.Median, 100*time.Millisecond, "%s: a median of %v is not a cost of one operation", r.name, m.Median)
	}
	// A pipe round trip is two system calls and a wake-up on each side; a futex
	// round trip is a FUTEX_WAKE and a FUTEX_WAIT on each side.
	require.Less(t, c.Syscall.Median, c.ContextSwitch.Median, "system call %v vs context switch %v", c.Syscall, c.ContextSwitch)
	if c.FutexRoundTrip.Repeats > 0 {
		require.Less(t, c.Syscall.Median, c.FutexRoundTrip.Median, "system call %v vs futex round trip %v", c.Syscall, c.FutexRoundTrip)
		require.Less(t, c.Syscall.Median, c.FutexLoadedHandoff.Median, "system call %v vs loaded handoff %v", c.Syscall, c.FutexLoadedHandoff)
	}
	// Where the remote probe runs, the wakee cannot run before the waker's
	// call has begun, nor its time inside the call exceed the wait for it.
	if c.FutexRemoteWake.Repeats > 0 {
		require.Less(t, c.Syscall.Median, c.FutexWakeCall.Median, "system call %v vs wake call %v", c.Syscall, c.FutexWakeCall)
	}
	// nanosleep(2) never returns before the time asked, so sysmon's sleep is
	// at least the 20 µs it asks for.
	if c.SysmonTick.Repeats > 0 {
		require.GreaterOrEqual(t, c.SysmonTick.Median, sysmonRequest, "sysmon tick %v", c.SysmonTick)
	}
}

func TestMeasureRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantMsg string
	}{
		{"negative repeats", Options{Repeats: -1}, "calibrate: Repeats = -1, want 1..1000 (0 for 15): invalid config"},
		{"too many repeats", Options{Repeats: 1001}, "calibrate: Repeats = 1001, want 1..1000"},
		{"negative rounds", Options{Rounds: -5}, "calibrate: Rounds = -5, want 1..1000000 (0 for 1000): invalid config"},
		{"too many rounds", Options{Rounds: 2_000_000}, "calibrate: Rounds = 2000000, want 1..1000000"},
		{"a ring of one thread", Options{MaxRing: 1}, "calibrate: MaxRing = 1, want 2..1024 (0 for every ring): invalid config"},
		{"a ring past the largest", Options{MaxRing: 1025}, "calibrate: MaxRing = 1025, want 2..1024"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Measure(context.Background(), tt.opts)
			require.ErrorIs(t, err, ErrInvalidConfig)
			require.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestOptionsZeroValueMeansDefaults(t *testing.T) {
	o, err := Options{}.withDefaults()
	require.NoError(t, err)
	require.Equal(t, Options{Repeats: DefaultRepeats, Rounds: DefaultRounds, MaxRing: 1024}, o)
}

func TestMeasureStopsWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Measure(ctx, tiny)
	require.ErrorIs(t, err, context.Canceled)
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		ns   []float64
		want Measurement
	}{
		{"one value", []float64{7}, Measurement{Median: 7, Min: 7, Max: 7, Repeats: 1}},
		{"unsorted odd count", []float64{5, 1, 3, 2, 4}, Measurement{Median: 3, Min: 1, Max: 5, Repeats: 5}},
		{"an outlier moves the max, not the median", []float64{10, 11, 12, 10, 1000}, Measurement{Median: 11, Min: 10, Max: 1000, Repeats: 5}},
		{"even count", []float64{4, 1, 2, 3}, Measurement{Median: 2, Min: 1, Max: 4, Repeats: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summarize(tt.ns)
			require.Equal(t, tt.want.Median, got.Median)
			require.Equal(t, tt.want.Min, got.Min)
			require.Equal(t, tt.want.Max, got.Max)
			require.Equal(t, tt.want.Repeats, got.Repeats)
			require.True(t, got.Min <= got.Q1 && got.Q1 <= got.Median && got.Median <= got.Q3 && got.Q3 <= got.Max, "%+v", got)
		})
	}
}

// errUsage in a test's table stands for a *cmdflag.UsageError.
var errUsage = errors.New("usage")

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantErr  error
		wantText string
	}{
		{"table", smallRun(), nil, "context switch"},
		{"bad repeats", []string{"-repeats", "-1"}, errUsage, ""},
		{"stray argument", []string{"now"}, errUsage, ""},
		{"unknown flag", []string{"-frobnicate"}, errUsage, ""},
		{"count 0", []string{"-check", "-count", "0"}, errUsage, ""},
		{"count 21", []string{"-check", "-count", "21"}, errUsage, ""},
		{"help", []string{"-h"}, flag.ErrHelp, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := Run(context.Background(), tt.args, &out, &errOut)
			switch tt.wantErr {
			case nil:
			case errUsage:
				require.True(t, cmdflag.IsUsage(err), "got %v", err)
				return
			default:
				require.True(t, errors.Is(err, tt.wantErr), "got %v", err)
				return
			}
			require.NoError(t, err)
			require.Contains(t, out.String(), tt.wantText)
		})
	}
}

// -json takes a file, as every command's -json does, and - for stdout
// instead of the table: it was a boolean, the one command whose JSON could
// not go to a file.
func TestRunJSON(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Run(context.Background(), smallRun("-json", "-"), &out, &bytes.Buffer{}))
	var js runJSON
	require.NoError(t, json.Unmarshal(out.Bytes(), &js), out.String())
	fig := func(name string) figureJSON {
		for _, f := range js.Costs.Figures {
			if f.Name == name {
				return f
			}
		}
		t.Fatalf("no figure %q in %s", name, out.String())
		return figureJSON{}
	}
	require.Positive(t, *fig("system call").Median)
	require.Equal(t, 3, fig("context switch").Repeats)
	require.Nil(t, js.Check)
	// a ring past -max-ring is not measured: null, not a cost of 0 (its
	// zero Measurement printed as "0s" and in the JSON as 0, as if measured)
	ring := fig(ringName(1024, 0))
	require.False(t, ring.Measured)
	require.Nil(t, ring.Median)
	// the keys are snake_case and the figures numbers: Costs was written
	// as Go spells it ("GoroutineHandoff": {"Median": 1234, ...})
	var raw map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &raw))
	costs := raw["costs"].(map[string]any)
	for k := range costs {
		require.Regexp(t, `^[a-z0-9_]+$`, k)
	}
	first := costs["figures"].([]any)[0].(map[string]any)
	require.IsType(t, float64(0), first["median"])

	path := filepath.Join(t.TempDir(), "costs.json")
	out.Reset()
	require.NoError(t, Run(context.Background(), smallRun("-json", path), &out, &bytes.Buffer{}))
	require.Contains(t, out.String(), "context switch", "the table as without -json")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &js))
	require.Equal(t, 3, fig("system call").Repeats)
}

func TestPreemptShare(t *testing.T) {
	tests := []struct {
		name  string
		calls uint64 // over 1000 round trips
		want  float64
	}{
		{"every wake preempts: a wake and a wait per round trip", 2000, 1},
		{"no wake preempts: two of each", 4000, 0},
		{"half of them", 2667, 0.5},
		{"more calls than the model allows (spurious wakes) clamp to 0", 5000, 0},
		{"fewer clamp to 1", 1500, 1},
		{"no call at all", 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.InDelta(t, tt.want, preemptShare(1000, tt.calls), 0.001)
		})
	}
}

// TestMeasureLeavesOutRingsPastMaxRing: MaxRing 2 measures the rings of two
// threads and leaves every larger ring's figures zero.
func TestMeasureLeavesOutRingsPastMaxRing(t *testing.T) {
	c, err := Measure(context.Background(), Options{Repeats: 1, Rounds: 10, MaxRing: 2})
	require.NoError(t, err)
	for s := range RingWorkingSets {
		require.Equal(t, 1, c.Ring[s][0].Repeats, "the ring of 2 threads, %d bytes each", RingWorkingSets[s])
		require.Positive(t, c.Ring[s][0].Median)
		for i := 1; i < len(RingThreads); i++ {
			require.Zero(t, c.Ring[s][i], "the ring of %d threads is past MaxRing", RingThreads[i])
		}
	}
}
