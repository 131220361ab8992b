package sim_test

import (
	"context"
	"fmt"
	"time"

	"github.com/innosim/innosim/sim"
)

// Predict what a kernel with dearer system calls does to connect throughput on
// 4 cores with 64 clients.
func ExampleCell_Run() {
	var x [2]float64
	for i, p := range []sim.CostProfile{sim.OldKernel(), sim.NewKernel()} {
		c := sim.Cell{Workload: "connect", Threads: 64, Measure: 50 * time.Millisecond,
			Machine: sim.MachineConfig{CPUs: 4, Scheduler: sim.CFS, Costs: p, Seed: 1}}
		r, err := c.Run(context.Background())
		if err != nil {
			fmt.Println(err)
			return
		}
		x[i] = r.Throughput
	}
	fmt.Printf("new/old kernel: %.2f\n", x[1]/x[0])
	// Output: new/old kernel: 0.74
}
