package sim_test

import (
	"context"
	"fmt"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/sim"
)

// Inserts whose leaf splits prefetch sibling pages, with simulated AIO waking
// every handler on each prefetch and with native AIO (aio.Config.IO), where
// the kernel wakes only the handler whose read completed: MySQL bug 111102's
// comparison, 32 threads, 16+16 io threads, on study D's two-socket machine
// (its futex holds grow by FutexGrowth 8 per spinner, a fitted factor).
func ExampleCell_Run_nativeAIO() {
	run := func(cfg aio.Config) float64 {
		cfg.ReadSegments, cfg.WriteSegments = 16, 16
		p := sim.OldKernel()
		p.FutexGrowth = 8
		r, err := sim.Cell{Workload: "oltp_insert", Threads: 32, AIO: &cfg,
			Machine: sim.MachineConfig{CPUs: 96, Sockets: 2, Costs: p, Seed: 1}}.Run(context.Background())
		if err != nil {
			panic(err)
		}
		return r.Throughput
	}
	native := aio.DefaultConfig()
	native.IO, native.Wake = aio.IONative, aio.WakeTargeted
	fmt.Printf("native / simulated wake-all: %.2f\n", run(native)/run(aio.DefaultConfig()))
	// Output: native / simulated wake-all: 1.15
}
