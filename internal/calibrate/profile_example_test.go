package calibrate_test

import (
	"fmt"
	"os"
	"time"

	"github.com/innosim/innosim/internal/calibrate"
)

// Turn measured costs into the simulator's cost profile and write the file that
// innosim run --costs reads.
func ExampleCosts_WriteProfile() {
	var c calibrate.Costs
	c.Syscall.Median = 200 * time.Nanosecond
	c.ContextSwitch.Median = 3 * time.Microsecond
	c.FutexRoundTrip.Median = 6 * time.Microsecond
	c.FutexWakeCall.Median = 2500 * time.Nanosecond
	c.FutexIdleWake.Median = 7 * time.Microsecond
	c.LockedThreadHandoff.Median = 20 * time.Microsecond
	c.MutexHandoff.Median = 10 * time.Nanosecond
	if err := c.WriteProfile(os.Stdout, "here", nil); err != nil {
		fmt.Println(err)
	}
	// Output:
	// # cost profile measured by innosim calibrate
	// # measured goroutine handoff: 0s (IQR 0s..0s, n=0)
	// # measured locked-thread handoff: 20µs (IQR 0s..0s, n=0)
	// # measured futex round trip: 6µs (IQR 0s..0s, n=0)
	// # measured futex wake call: 2.5µs (IQR 0s..0s, n=0)
	// # measured futex idle wake: 7µs (IQR 0s..0s, n=0)
	// # measured system call: 200ns (IQR 0s..0s, n=0)
	// # measured context switch: 3µs (IQR 0s..0s, n=0)
	// # measured mutex handoff: 10ns (IQR 0s..0s, n=0)
	// name = here
	// context_switch = 300ns
	// syscall = 200ns
	// futex_hold = 200ns
	// futex_growth = 10
	// spin_round = 500ns
	// io_service = 100µs
	// futex_wake_call = 2.5µs
	// futex_wake = 4.5µs
	// thread_handoff = 20µs
	// mutex_handoff = 10ns
}
