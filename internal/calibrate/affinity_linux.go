//go:build linux

package calibrate

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// cpusAllowed returns the CPUs this process may run on, in increasing order.
func cpusAllowed() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	var cpus []int
	for c := 0; len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// pinThread restricts the calling OS thread to cpu. The caller must be locked
// to its thread and must never unlock it: the thread then exits with the
// goroutine instead of going back to the runtime's pool with its affinity cut
// down.
func pinThread(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("sched_setaffinity to CPU %d: %w", cpu, err)
	}
	return nil
}
