package sim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/aio"
)

// Bug 111102's shape: sysbench-style inserts at 32 threads, 16+16 io threads:
// native AIO is faster than simulated AIO with every handler woken on each
// sibling prefetch, and the wake-all herd's futex spin is gone. The machine is
// study D's (two sockets, futex holds growing by FutexGrowth 8): with
// OldKernel's sourced 0.5 the herd costs little and the two are within 2%.
func TestNativeAIOBeatsSimulatedWakeAllOnInserts(t *testing.T) {
	if testing.Short() {
		t.Skip("two 100 ms cells of 32 threads")
	}
	run := func(cfg aio.Config) Result {
		cfg.ReadSegments, cfg.WriteSegments = 16, 16
		p := OldKernel()
		p.FutexGrowth = 8
		r, err := Cell{Workload: "oltp_insert", Threads: 32, AIO: &cfg,
			Machine: MachineConfig{CPUs: 96, Sockets: 2, Costs: p, Seed: 11}}.Run(context.Background())
		require.NoError(t, err)
		return r
	}
	sim := run(aio.DefaultConfig())
	native := aio.DefaultConfig()
	native.ReadSegments, native.SlotsPerSegment = 16, 256
	native.IO, native.Wake = aio.IONative, aio.WakeTargeted
	nr := run(native)
	assert.Greater(t, nr.Throughput, 1.09*sim.Throughput, "native %.0f vs simulated wake-all %.0f rows/s", nr.Throughput, sim.Throughput)
	assert.Less(t, nr.FutexSpinShare(), sim.FutexSpinShare())
}
