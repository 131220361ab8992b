package calibrate_test

import (
	"context"
	"fmt"

	"github.com/innosim/innosim/internal/calibrate"
)

// Measure this machine with a short calibration and compare two of its costs.
func ExampleMeasure() {
	costs, err := calibrate.Measure(context.Background(), calibrate.Options{Repeats: 5, Rounds: 200})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("a system call is cheaper than a context switch:",
		costs.Syscall.Median < costs.ContextSwitch.Median)
	// Output: a system call is cheaper than a context switch: true
}
