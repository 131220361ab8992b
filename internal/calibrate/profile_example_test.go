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
	// One measurement of each (innosim calibrate takes 15 and keeps the spread).
	m := func(d time.Duration) calibrate.Measurement {
		return calibrate.Measurement{Median: d, Q1: d, Q3: d, Min: d, Max: d, Repeats: 1}
	}
	c := calibrate.Costs{
		LockedThreadHandoff: m(20 * time.Microsecond),
		FutexRoundTrip:      m(5500 * time.Nanosecond),
		WakePreempt:         calibrate.Share{Median: 0.75, Q1: 0.75, Q3: 0.75, Min: 0.75, Max: 0.75, Repeats: 1},
		FutexLoadedHandoff:  m(4 * time.Microsecond),
		FutexWakeCall:       m(9 * time.Microsecond),
		FutexRemoteWake:     m(20 * time.Microsecond),
		Syscall:             m(200 * time.Nanosecond),
		ContextSwitch:       m(3500 * time.Nanosecond),
		MutexHandoff:        m(10 * time.Nanosecond),
		SysmonTick:          m(110 * time.Microsecond),
	}
	if err := c.WriteProfile(os.Stdout, "here", nil); err != nil {
		fmt.Println(err)
	}
	// Output:
	// # cost profile measured by innosim calibrate
	// # measured goroutine handoff: 0s (IQR 0s..0s, n=0)
	// # measured locked-thread handoff: 20µs (IQR 20µs..20µs, n=1)
	// # measured futex round trip: 5.5µs (IQR 5.5µs..5.5µs, n=1)
	// # measured wake preempt: 0.75 (IQR 0.75..0.75, n=1)
	// # measured futex loaded handoff: 4µs (IQR 4µs..4µs, n=1)
	// # measured futex wake call: 9µs (IQR 9µs..9µs, n=1)
	// # measured futex remote wake: 20µs (IQR 20µs..20µs, n=1)
	// # measured system call: 200ns (IQR 200ns..200ns, n=1)
	// # measured context switch: 3.5µs (IQR 3.5µs..3.5µs, n=1)
	// # measured mutex handoff: 10ns (IQR 10ns..10ns, n=1)
	// # measured sysmon tick: 110µs (IQR 110µs..110µs, n=1)
	// # measured switch in a ring of 2, 0 KiB each: 0s (IQR 0s..0s, n=0)
	// # measured switch in a ring of 16, 0 KiB each: 0s (IQR 0s..0s, n=0)
	// # measured switch in a ring of 128, 0 KiB each: 0s (IQR 0s..0s, n=0)
	// # measured switch in a ring of 1024, 0 KiB each: 0s (IQR 0s..0s, n=0)
	// # measured switch in a ring of 2, 16 KiB each: 0s (IQR 0s..0s, n=0)
	// # measured switch in a ring of 16, 16 KiB each: 0s (IQR 0s..0s, n=0)
	// # measured switch in a ring of 128, 16 KiB each: 0s (IQR 0s..0s, n=0)
	// # measured switch in a ring of 1024, 16 KiB each: 0s (IQR 0s..0s, n=0)
	// # measured switch in a ring of 2, 64 KiB each: 0s (IQR 0s..0s, n=0)
	// # measured switch in a ring of 16, 64 KiB each: 0s (IQR 0s..0s, n=0)
	// # measured switch in a ring of 128, 64 KiB each: 0s (IQR 0s..0s, n=0)
	// # measured switch in a ring of 1024, 64 KiB each: 0s (IQR 0s..0s, n=0)
	// # measured here: context_switch (futex loaded handoff − 2 × syscall), syscall, futex_wake_call, futex_wake, thread_handoff, mutex_handoff, wake_preempt, sysmon_tick
	// # old-kernel defaults, not measured here: syscall_socket, syscall_setup, set_priority, futex_hold, futex_growth, futex_walk, spin_round, io_service, line_transfer, line_transfer_remote, runqueue_hold, switch_footprint, cache_l2, cache_llc, refill_llc, refill_memory
	// name = here
	// context_switch = 3.6µs
	// syscall = 200ns
	// syscall_socket = 0s
	// syscall_setup = 0s
	// set_priority = 300ns
	// futex_hold = 200ns
	// futex_growth = 0.5
	// futex_walk = 0
	// spin_round = 500ns
	// io_service = 100µs
	// line_transfer = 100ns
	// line_transfer_remote = 200ns
	// runqueue_hold = 0s
	// futex_wake_call = 9µs
	// futex_wake = 20µs
	// thread_handoff = 20µs
	// mutex_handoff = 10ns
	// wake_preempt = 0.75
	// sysmon_tick = 110µs
	// switch_footprint = 0
	// cache_l2 = 0
	// cache_llc = 0
	// refill_llc = 0s
	// refill_memory = 0s
}
