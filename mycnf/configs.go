package mycnf

import (
	"fmt"

	"github.com/innosim/innosim/aio"
	"github.com/innosim/innosim/concurrency"
	"github.com/innosim/innosim/prio"
)

// AIOConfig returns the aio.Config these settings describe: aio.DefaultConfig
// (MySQL 5.5–5.7 simulated AIO: insert-buffer and log segments, 256 slots per
// segment, merges of up to 64 requests, 2 s old age, WakeAll) with
// ReadSegments = innodb_read_io_threads, WriteSegments = innodb_write_io_threads
// and PageSize = innodb_page_size. innodb_use_native_aio sets IO: aio.IONative
// when on (MySQL's default on Linux), with Wake = aio.WakeTargeted, since
// InnoDB's native path submits each request to its segment's I/O context as it
// reserves it (os_aio_linux_dispatch) and wakes no handler; aio.IOSimulated
// with WakeAll when off. Invalid settings give the error of Validate, wrapping
// ErrInvalidConfig; a value aio itself rejects gives aio's error, wrapping
// aio.ErrInvalidConfig.
func (s Settings) AIOConfig() (aio.Config, error) {
	if err := s.Validate(); err != nil {
		return aio.Config{}, err
	}
	c := aio.DefaultConfig()
	c.ReadSegments = s.ReadIOThreads
	c.WriteSegments = s.WriteIOThreads
	c.PageSize = s.PageSize
	if s.UseNativeAIO {
		c.IO, c.Wake = aio.IONative, aio.WakeTargeted
	}
	if err := c.Validate(); err != nil {
		return aio.Config{}, fmt.Errorf("mycnf: %w", err)
	}
	return c, nil
}

// ConcurrencyConfig returns the concurrency.Config these settings describe:
// Limit = innodb_thread_concurrency, Tickets = innodb_concurrency_tickets,
// SleepDelay = innodb_thread_sleep_delay, AdaptiveMaxSleepDelay =
// innodb_adaptive_max_sleep_delay, FIFO order. Which gate policy runs it (Queue
// as MySQL 5.5, Atomic as 5.6 and later; Unlimited when the limit is 0) is not
// an option-file setting and is left to the caller. Invalid settings give the
// error of Validate, wrapping ErrInvalidConfig.
func (s Settings) ConcurrencyConfig() (concurrency.Config, error) {
	if err := s.Validate(); err != nil {
		return concurrency.Config{}, err
	}
	c := concurrency.DefaultConfig(s.ThreadConcurrency)
	c.Tickets = s.ConcurrencyTickets
	c.SleepDelay = s.ThreadSleepDelay
	c.AdaptiveMaxSleepDelay = s.AdaptiveMaxSleepDelay
	return c, nil
}

// PrioConfig returns the prio.Config for thread priorities: PolicyLegacy (MySQL
// 5.1's two priority calls per query) when ThreadPriority is set, PolicyOff
// (skip-thread-priority, and every MySQL since 5.1.29) when it is not. The OS
// layer is left nil, the system's.
func (s Settings) PrioConfig() prio.Config {
	if s.ThreadPriority {
		return prio.Config{Policy: prio.PolicyLegacy}
	}
	return prio.Config{Policy: prio.PolicyOff}
}
