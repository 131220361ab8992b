package calibrate

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// nanosleep sleeps d with nanosleep(2), as the runtime's usleep does on Linux,
// and sleeps the remainder when a signal (the runtime's preemption) cuts it
// short.
func nanosleep(d time.Duration) error {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for {
		err := unix.Nanosleep(&ts, &ts)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("calibrate: nanosleep: %w", err)
		}
	}
}
