package machine

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
)

func TestCostProfileWriteToRoundTrip(t *testing.T) {
	rq := OldKernel()
	rq.Name, rq.RunqueueHold = "runqueue-lock", 300*time.Nanosecond
	for _, p := range []CostProfile{OldKernel(), NewKernel(), calibratedCosts(), rq} {
		t.Run(p.Name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := p.WriteTo(&buf)
			require.NoError(t, err)
			got, err := ParseProfile(&buf, "x")
			require.NoError(t, err)
			assert.Equal(t, p, got)
		})
	}
}

// calibratedCosts is a cost profile of the shape innosim calibrate writes on a
// 2-core VM: every field away from OldKernel's.
func calibratedCosts() CostProfile {
	p := OldKernel()
	p.Name = "calibrated"
	p.Syscall = 200 * time.Nanosecond
	p.ContextSwitch = 3500 * time.Nanosecond
	p.FutexWakeCall = 9 * time.Microsecond
	p.FutexWake = 20 * time.Microsecond
	p.ThreadHandoff = 20 * time.Microsecond
	p.MutexHandoff = 10 * time.Nanosecond
	p.WakePreempt = 0.75
	p.SysmonTick = 110 * time.Microsecond
	p.SwitchFootprint, p.CacheL2, p.CacheLLC = 20<<10, 512<<10, 32<<20
	p.RefillLLC, p.RefillMemory = 15*time.Nanosecond, 100*time.Nanosecond
	return p
}

// A profile whose numbers are NaN or infinite is refused, not run: NaN compares
// false with every bound, so a check written as x < lo || x > hi let
// futex_growth = NaN through, and a contended run then never advanced its
// clock. An empty or cut-short file is refused rather than read as OldKernel.
func TestParseProfileRefusesNaNInfAndEmptyOrTruncatedFiles(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"futex_growth NaN", "futex_growth = NaN\n", "futex_growth = NaN, want 0..10"},
		{"wake_preempt NaN", "wake_preempt = NaN\n", "wake_preempt = NaN, want 0..1"},
		{"futex_growth +Inf", "futex_growth = +Inf\n", "futex_growth = +Inf"},
		{"wake_preempt -Inf", "wake_preempt = -Inf\n", "wake_preempt = -Inf"},
		{"wake_preempt above a share", "wake_preempt = 2\n", "wake_preempt = 2, want 0..1"},
		{"futex_walk above a share", "futex_walk = 2\n", "futex_walk = 2, want 0..1"},
		{"line_transfer negative", "line_transfer = -1ns\n", "line_transfer = -1ns, want 0s..1s"},
		{"syscall_setup negative", "syscall_setup = -1us\n", "syscall_setup = -1µs, want 0s..1s"},
		{"syscall_socket above a second", "syscall_socket = 2s\n", "syscall_socket = 2s, want 0s..1s"},
		{"runqueue_hold negative", "runqueue_hold = -1ns\n", "runqueue_hold = -1ns, want 0s..1s"},
		{"switch_growth of an older calibrate", "switch_growth = 3us\n", "switch_growth is no longer read"},
		{"empty", "", "no cost given"},
		{"only comments and a name", "# measured\nname = x\n\n", "no cost given"},
		{"truncated", "syscall = 200ns\ncontext_swi", "f:2: last line has no newline"},
		{"truncated mid-value", "syscall = 2", "truncated"},
		// a repeated key was read with the last value winning, silently
		{"a key given twice", "syscall = 100ns\ncontext_switch = 2us\nsyscall = 200ns\n", "f:3: syscall given twice (first on line 1)"},
		{"a name given twice", "name = a\nsyscall = 100ns\nname = b\n", "f:3: name given twice"},
		// read as Name "", which WriteTo refuses and validate's live tables
		// labelled "costs " with nothing after it
		{"an empty name", "name =\nsyscall = 100ns\n", `f:1: name = "", want a non-empty name without control characters`},
		{"a duration without its unit", "syscall = 100\n", `f:1: syscall = "100", want a duration with its unit`},
		{"a number that is not one", "futex_growth = 1.5x\n", `f:1: futex_growth = "1.5x", want a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseProfile(strings.NewReader(tt.text), "f")
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	p := OldKernel()
	p.FutexGrowth = math.NaN()
	assert.ErrorIs(t, p.Validate(), ErrInvalidConfig, "Validate itself, for a profile built in code")
	_, err := New(Config{CPUs: 2, Costs: p})
	assert.ErrorIs(t, err, ErrInvalidConfig, "and so NewMachine")
}

// A switch refills the footprint that the other threads evicted: nothing
// more than ContextSwitch at two threads, the L2's share once the threads'
// footprints outgrow L2, and memory's once they outgrow the LLC; the cost
// only grows with the threads.
func TestSwitchCostRefillsTheFootprintTheOthersEvicted(t *testing.T) {
	p := OldKernel()
	assert.Equal(t, p.ContextSwitch, p.SwitchCost(1024), "old-kernel has no footprint")
	p.SwitchFootprint, p.CacheL2, p.CacheLLC = 64<<10, 512<<10, 32<<20
	p.RefillLLC, p.RefillMemory = 10*time.Nanosecond, 100*time.Nanosecond
	assert.Equal(t, p.ContextSwitch, p.SwitchCost(1))
	assert.Equal(t, p.ContextSwitch, p.SwitchCost(2))
	lines := time.Duration(64 << 10 / 64)
	// 4,096 threads: 256 MiB of others' footprints, 8 times the LLC: nearly
	// every line from memory
	assert.InDelta(t, float64(p.ContextSwitch+lines*100), float64(p.SwitchCost(4096)), float64(lines*100)/50)
	// 64 threads: 4 MiB, 8 times L2, an eighth of the LLC: mostly from the LLC
	mid := p.SwitchCost(64) - p.ContextSwitch
	assert.Greater(t, mid, lines*10*8/10)
	assert.Less(t, mid, lines*30)
	prev := p.SwitchCost(2)
	for n := 3; n <= 8192; n *= 2 {
		assert.GreaterOrEqual(t, p.SwitchCost(n), prev, "n=%d", n)
		prev = p.SwitchCost(n)
	}
	assert.Zero(t, NewKernel().SwitchFootprint)

	p.CacheLLC = p.CacheL2 - 1
	assert.ErrorContains(t, p.Validate(), "want 0 < cache_l2 ≤ cache_llc")
	p.CacheLLC, p.SwitchFootprint = 32<<20, -1
	assert.ErrorContains(t, p.Validate(), "switch_footprint = -1, want 0..1073741824 bytes")
	_, err := ParseProfile(strings.NewReader("switch_footprint = 4096\n"), "f")
	assert.ErrorContains(t, err, "want 0 < cache_l2", "a footprint with no caches to share")
	_, err = ParseProfile(strings.NewReader("cache_l2 = 512K\n"), "f")
	assert.ErrorContains(t, err, "cache_l2", "sizes are bytes")
}

// The machine charges each switch SwitchCost of its own thread count: the
// footprint's refill grows with the threads that share the caches.
func TestMachineChargesASwitchTheFootprintOfItsThreads(t *testing.T) {
	p := calibratedCosts()
	for _, n := range []int{4, 300} {
		m, err := New(Config{CPUs: 1, Costs: p, Seed: 1})
		require.NoError(t, err)
		for range n { // each runs 1 µs and sleeps: the core switches between them
			require.NoError(t, m.AddThread([]Op{cpu(us), sleep(us), done(1)}, prio.Normal))
		}
		r := m.Run(time.Millisecond, 10*time.Millisecond)
		require.NotZero(t, r.Switches)
		perSwitch := float64(r.CPU[CatSwitch]) / float64(r.Switches)
		assert.InEpsilon(t, float64(p.SwitchCost(n)), perSwitch, 0.02, "%d threads", n)
	}
}

// A Name the file format cannot carry used to be written anyway: a line break
// split the name line so that ParseProfile refused the file, and an empty or
// space-padded name read back as another name.
func TestCostProfileWriteToRefusesANameItCannotReadBack(t *testing.T) {
	for _, name := range []string{"", " padded", "two\nlines", "cr\r", "tab\tin", "bad\xff"} {
		t.Run(strings.ReplaceAll(name, "\n", `\n`), func(t *testing.T) {
			p := OldKernel()
			p.Name = name
			var buf bytes.Buffer
			n, err := p.WriteTo(&buf)
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.ErrorContains(t, err, "Name = ")
			assert.Zero(t, n)
			assert.Zero(t, buf.Len(), "nothing written")
		})
	}
}

// footprintProfile is old-kernel with a 64 KiB switch footprint, a 512 KiB
// L2 and a 32 MiB LLC, 10 ns a line from the LLC and 100 from memory.
func footprintProfile() CostProfile {
	p := OldKernel()
	p.SwitchFootprint, p.CacheL2, p.CacheLLC = 64<<10, 512<<10, 32<<20
	p.RefillLLC, p.RefillMemory = 10*time.Nanosecond, 100*time.Nanosecond
	return p
}

// Refill is the refill SwitchCost adds beyond a ring of two's, and the
// pool's refill of a THD: nothing evicted, nothing refilled; everything
// evicted, every line from memory.
func TestRefillIsTheSwitchsRefill(t *testing.T) {
	p := footprintProfile()
	w := p.SwitchFootprint
	for _, n := range []int{3, 64, 4096} {
		got := p.Refill(w, int64(n-1)*w) - p.Refill(w, w)
		assert.InDelta(t, float64(p.SwitchCost(n)-p.ContextSwitch), float64(got), 1, "n=%d", n)
	}
	assert.Zero(t, p.Refill(100<<10, 0))
	assert.InDelta(t, float64(100<<10/64*100), float64(p.Refill(100<<10, 1<<40)), 1)
}

func TestSwitchCostOfChargesAThreadItsOwnFootprint(t *testing.T) {
	p := footprintProfile()
	w := p.SwitchFootprint
	for _, n := range []int{3, 64, 4096} {
		assert.Equal(t, p.SwitchCost(n), p.SwitchCostOf(w, int64(n-1)*w), "equal footprints are SwitchCost, n=%d", n)
	}
	assert.Equal(t, p.ContextSwitch, p.SwitchCostOf(w, w), "a ring of two")
	// a thread of 1 MiB of its own after 1 GiB of others: every line from memory
	big := p.SwitchCostOf(1<<20, 1<<30) - p.ContextSwitch
	assert.InDelta(t, float64((1<<20)/64*100*time.Nanosecond), float64(big), float64(big)/50)
	assert.Greater(t, p.SwitchCostOf(2*w, 64*w), p.SwitchCostOf(w, 64*w), "a larger own footprint refills more lines")
	assert.Greater(t, p.SwitchCostOf(w, 128*w), p.SwitchCostOf(w, 64*w), "more of the others evicts more")
	assert.Equal(t, p.ContextSwitch, p.SwitchCostOf(0, 0), "never below a plain switch")
	nk := NewKernel()
	assert.Equal(t, nk.ContextSwitch, nk.SwitchCostOf(1<<20, 1<<30), "no caches: no refill")
}

// A profile that leaves costs out, or was cut at the end of a line, is read
// with OldKernel's values for them, and LoadProfileDefaulted names them, so
// that a caller can say so: nothing told the keys that fell back.
func TestLoadProfileDefaultedNamesTheCostsLeftOut(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return path
	}
	p, defaulted, err := LoadProfileDefaulted(write("one", "# cut\nname = lab\nsyscall = 74ns\n"))
	require.NoError(t, err)
	assert.Equal(t, 74*time.Nanosecond, p.Syscall)
	want := slices.DeleteFunc(ProfileKeys(), func(k string) bool { return k == "syscall" })
	assert.Equal(t, want, defaulted, "every other key, in ProfileKeys' order")

	var full bytes.Buffer
	_, err = NewKernel().WriteTo(&full)
	require.NoError(t, err)
	p, defaulted, err = LoadProfileDefaulted(write("full", full.String()))
	require.NoError(t, err)
	assert.Empty(t, defaulted)
	assert.Equal(t, NewKernel(), p)

	_, _, err = LoadProfileDefaulted(write("bad", "syscall = 2"))
	assert.ErrorIs(t, err, ErrInvalidConfig, "a refused file as LoadProfile refuses it")
}
