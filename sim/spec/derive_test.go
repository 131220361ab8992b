package spec

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	kib = int64(1) << 10
	mib = int64(1) << 20
)

func TestDeriveMapsTheSpecSheet(t *testing.T) {
	m, err := Parse(strings.NewReader(base+"pti = on\nassumed = l3_per_socket\n"), "box")
	require.NoError(t, err)
	p, err := m.Derive()
	require.NoError(t, err)
	assert.Equal(t, Params{
		Name: "box", CPUs: 24, Cores: 12, Sockets: 2,
		L2PerCore: 256 * kib, LLCPerSocket: 12 * mib,
		Profile: "new-kernel",
		Sched:   Sched{Policy: CFS, Factor: 4, Latency: 20 * ms, MinGranularity: 4 * ms, WakeupGranularity: 4 * ms, NrLatency: 5, SleeperCredit: 10 * ms},
		Assumed: []string{"l3_per_socket"},
	}, p)
	assert.True(t, p.IsAssumed("l3_per_socket"))
	assert.False(t, p.IsAssumed("l2_per_core"))
}

func TestDeriveTakesTheL2AsLastLevelWithoutAnL3(t *testing.T) {
	m := Machine{Sockets: 1, CoresPerSocket: 2, ThreadsPerCore: 1, L2PerCore: 4 * mib, Kernel: Kernel{2, 6, 32}}
	p, err := m.Derive()
	require.NoError(t, err)
	assert.Equal(t, 4*mib, p.LLCPerSocket)
	assert.Equal(t, "old-kernel", p.Profile, "no pti before 4.15 reads as off")
}

func TestDeriveRefusesAnInvalidMachine(t *testing.T) {
	_, err := Machine{Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1, L2PerCore: 1, Kernel: Kernel{3, 2, 0}}.Derive()
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "l2_per_core", fe.Key)
}

func TestCostCachesAddUpTheCachesOfTheSimulatedShare(t *testing.T) {
	p := Params{Name: "pitbull", CPUs: 24, Cores: 12, Sockets: 2, L2PerCore: 256 * kib, LLCPerSocket: 12 * mib}
	l2, llc, err := p.CostCaches(24)
	require.NoError(t, err)
	assert.Equal(t, 12*256*kib, l2, "every core's L2")
	assert.Equal(t, 24*mib, llc, "both sockets' L3")
	// the server's 18 CPUs of ClientSplit: three quarters of each
	l2, llc, err = p.CostCaches(18)
	require.NoError(t, err)
	assert.Equal(t, 9*256*kib, l2)
	assert.Equal(t, 18*mib, llc)
	for _, bad := range []int{0, -1, 25} {
		_, _, err := p.CostCaches(bad)
		assert.ErrorIs(t, err, ErrInvalidConfig, "%d CPUs", bad)
	}
}

func TestFootprintsFitCountsTheThreadsTheCachesHold(t *testing.T) {
	p := Params{Name: "pitbull", CPUs: 24, Cores: 12, Sockets: 2, L2PerCore: 256 * kib, LLCPerSocket: 12 * mib}
	l2, llc, err := p.FootprintsFit(32*kib, 18)
	require.NoError(t, err)
	assert.Equal(t, int64(72), l2, "2.25 MiB of L2 / 32 KiB")
	assert.Equal(t, int64(576), llc, "18 MiB of L3 / 32 KiB")
	l2, llc, err = p.FootprintsFit(0, 18)
	require.NoError(t, err)
	assert.Equal(t, [2]int64{-1, -1}, [2]int64{l2, llc})
	_, _, err = p.FootprintsFit(32*kib, 30)
	assert.ErrorIs(t, err, ErrInvalidConfig)
}

func TestClientSplitGivesTheClientAQuarter(t *testing.T) {
	for cpus, want := range map[int][2]int{16: {12, 4}, 24: {18, 6}, 80: {60, 20}, 2: {2, 0}, 3: {3, 0}, 4: {3, 1}, 0: {0, 0}, -5: {0, 0}} {
		s, c := ClientSplit(cpus)
		assert.Equal(t, want, [2]int{s, c}, "%d CPUs", cpus)
	}
}

// TestShippedMachinesDerive reads every description in machines/ and holds
// each to what its sources say.
func TestShippedMachinesDerive(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("machines", "*.machine"))
	require.NoError(t, err)
	want := map[string]struct {
		cpus, server int
		policy       Policy
		slice        int64 // ns, of one of many runnable threads
		profile      string
		assumed      bool
	}{
		// the two boxes of MariaDB 5.5's thread-pool benchmarks: with the
		// client on a quarter, the 12 and 18 server CPUs of the published
		// runs
		"facebook-maria1":       {16, 12, CFS, int64(4 * ms), "old-kernel", true},
		"pitbull":               {24, 18, CFS, int64(4 * ms), "old-kernel", true},
		"percona-2026-gold6230": {80, 60, EEVDF, int64(3 * ms), "old-kernel", false},
		"innosim-dev-2vcpu":     {2, 2, EEVDF, int64(1400 * 1000), "new-kernel", true},
	}
	require.Len(t, files, len(want))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".machine")
		t.Run(name, func(t *testing.T) {
			m, err := Load(f)
			require.NoError(t, err)
			p, err := m.Derive()
			require.NoError(t, err)
			w, ok := want[name]
			require.True(t, ok, "no expectation for %s", name)
			assert.Equal(t, name, p.Name, "the file's name is its machine's")
			assert.Equal(t, w.cpus, p.CPUs)
			server, _ := ClientSplit(p.CPUs)
			assert.Equal(t, w.server, server)
			assert.Equal(t, w.policy, p.Sched.Policy)
			assert.Equal(t, w.slice, int64(p.Sched.Slice(1000)))
			assert.Equal(t, w.profile, p.Profile)
			assert.Equal(t, w.assumed, len(p.Assumed) > 0)
			_, _, err = p.CostCaches(server)
			assert.NoError(t, err)
		})
	}
}

func TestLoadReportsAMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "none.machine"))
	assert.ErrorContains(t, err, "none.machine")
}
