package device_test

import (
	"fmt"
	"time"

	"github.com/innosim/innosim/sim/device"
	"github.com/innosim/innosim/sim/machine"
)

// A device of 8 units at 5 ms per read, and 16 threads that each wait for one
// read at a time (a buffer-pool miss): the units cap the rate at 8 / 5 ms.
func ExampleInstall() {
	m, err := machine.New(machine.Config{CPUs: 4, Seed: 1})
	if err != nil {
		panic(err)
	}
	_, err = device.Install(m, device.Config{Units: 8, Read: 5 * time.Millisecond, Write: 5 * time.Millisecond,
		Fsync: 5 * time.Millisecond, Dist: device.ServiceFixed})
	if err != nil {
		panic(err)
	}
	for range 16 {
		if err := m.AddThread([]machine.Op{{Kind: machine.OpRead}, {Kind: machine.OpDone, Arg: 1}}, 0); err != nil {
			panic(err)
		}
	}
	r := m.Run(50*time.Millisecond, time.Second)
	reads, _, _ := r.IORates()
	fmt.Printf("%.0f reads/s\n", reads)
	// Output: 1600 reads/s
}
