package aiobench_test

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/internal/aiobench"
	"github.com/innosim/innosim/sim"
)

// Predict BenchmarkAIOWake (futex mode, 4 handlers) on a 2-core machine with
// wake-all and with targeted wakes. The figures depend on the cost profile; the
// handler wakeups per request do not much: wake-all wakes several handlers for
// each request, targeted exactly one.
func ExamplePredict() {
	costs := sim.OldKernel()
	costs.FutexWakeCall = 9 * time.Microsecond // a wake onto another CPU, as innosim calibrate measures on a 2-core VM
	costs.FutexWake = 20 * time.Microsecond
	for _, wake := range []aio.WakePolicy{aio.WakeAll, aio.WakeTargeted} {
		p, err := aiobench.Predict(aiobench.Config{Wake: wake, Handlers: 4, CPUs: 2, Costs: costs, Ops: 4000, Runs: 4})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: more than one wakeup per request: %v\n", wake, p.WakeupsPerOp > 1.05)
	}
	// Output:
	// all: more than one wakeup per request: true
	// targeted: more than one wakeup per request: false
}
