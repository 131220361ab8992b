package calibrate_test

import (
	"context"
	"fmt"

	"github.com/innosim/innosim/internal/calibrate"
)

// Measure this machine with a short calibration (few repeats and rounds, the
// switch rings of at most 16 threads) and compare two of its costs.
func ExampleMeasure() {
	costs, err := calibrate.Measure(context.Background(), calibrate.Options{Repeats: 5, Rounds: 200, MaxRing: 16})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("a system call is cheaper than a context switch:",
		costs.Syscall.Median < costs.ContextSwitch.Median)
	// Output: a system call is cheaper than a context switch: true
}
