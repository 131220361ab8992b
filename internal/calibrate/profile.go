package calibrate

import (
	"fmt"
	"io"

	"github.com/innosim/innosim/internal/benchenv"
	"github.com/innosim/innosim/sim"
)

// Profile converts the measured costs into the simulator's cost profile, named
// name. Each measured figure's median feeds one field:
//
//	syscall         Syscall: getppid(2) is kernel entry and exit and nothing else,
//	                which is what the profile charges per system call
//	context_switch  ContextSwitch − FutexWakeCall − Syscall: half a pipe round
//	                trip is a write that wakes the sleeping reader (the kernel's
//	                wake-up path, priced as futex_wake_call), the switch to the
//	                reader, and its read's return (a system call); what is left is
//	                the switch (0 if the difference is negative)
//	futex_wake_call FutexWakeCall: the waker's time in a FUTEX_WAKE that wakes
//	                a sleeping thread
//	futex_wake      FutexIdleWake − FutexWakeCall: the woken thread's way back
//	                to running on an idle CPU after the waker's call, which the
//	                simulator charges when it wakes a thread onto an idle CPU (0
//	                if the difference is negative). Not FutexRoundTrip/2 −
//	                FutexWakeCall: in a ping-pong the CPUs never get to halt, and
//	                that difference is about 0 on a VM.
//	thread_handoff  LockedThreadHandoff: a goroutine locked to its OS thread made
//	                runnable by another is run by handing a core to its thread,
//	                the path of a locked thread that wakes to find no core (P) free
//	mutex_handoff   MutexHandoff: a contended sync.Mutex acquisition
//
// The fields no probe measures keep OldKernel's values: futex_hold and
// futex_growth (a kernel spinlock's hold time cannot be seen from user space),
// spin_round (InnoDB's ut_delay loop, not Go code) and io_service (a device).
func (c Costs) Profile(name string) sim.CostProfile {
	p := sim.OldKernel()
	p.Name = name
	p.Syscall = c.Syscall.Median
	p.ContextSwitch = max(c.ContextSwitch.Median-c.FutexWakeCall.Median-c.Syscall.Median, 0)
	p.FutexWakeCall = c.FutexWakeCall.Median
	p.FutexWake = max(c.FutexIdleWake.Median-c.FutexWakeCall.Median, 0)
	p.ThreadHandoff = c.LockedThreadHandoff.Median
	p.MutexHandoff = c.MutexHandoff.Median
	return p
}

// WriteProfile writes c as a cost-profile file that sim.LoadProfile reads: a
// comment header with the environment fingerprint env (nil for none) and each
// measurement with its spread, then Profile(name)'s key = value lines. It returns
// the first write error.
func (c Costs) WriteProfile(w io.Writer, name string, env benchenv.Fingerprint) error {
	var err error
	printf := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	printf("# cost profile measured by innosim calibrate\n")
	for _, l := range env {
		printf("# %s\n", l)
	}
	for _, r := range c.rows() {
		printf("# measured %s: %v\n", r.name, r.m)
	}
	if err != nil {
		return fmt.Errorf("calibrate: write profile: %w", err)
	}
	if _, err := c.Profile(name).WriteTo(w); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	return nil
}
