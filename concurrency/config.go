package concurrency

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalidConfig is wrapped by every error a constructor or SetLimit returns for
// a value outside its allowed range. The message names the field and the range,
// e.g. "concurrency: Limit = 1001, want 0..1000: invalid config".
var ErrInvalidConfig = errors.New("invalid config")

// Ranges and defaults, from the MySQL 5.6–8.0 system variables of the same names.
const (
	// MaxLimit is the largest innodb_thread_concurrency MySQL accepts.
	MaxLimit = 1000
	// DefaultTickets is innodb_concurrency_tickets' default since MySQL 5.6
	// (MySQL 5.5 used 500: srv_n_free_tickets_to_enter in srv0srv.c).
	DefaultTickets = 5000
	// MaxTickets is the largest innodb_concurrency_tickets (2^32 - 1).
	MaxTickets = 1<<32 - 1
	// DefaultSleepDelay is innodb_thread_sleep_delay's default (10000 µs).
	DefaultSleepDelay = 10 * time.Millisecond
	// MaxSleepDelay bounds both SleepDelay and AdaptiveMaxSleepDelay (1000000 µs).
	MaxSleepDelay = time.Second
	// DefaultAdaptiveMaxSleepDelay is innodb_adaptive_max_sleep_delay's default
	// (150000 µs).
	DefaultAdaptiveMaxSleepDelay = 150 * time.Millisecond
	// DefaultKickup is the Handoff kickup time's default, as MariaDB's
	// thread_pool_prio_kickup_timer (1000 ms).
	DefaultKickup = time.Second
	// MaxKickup bounds Config.Kickup (MariaDB allows up to 2^32 - 1 ms).
	MaxKickup = (1<<32 - 1) * time.Millisecond
	// DefaultStarvation is Config.Starvation's value in DefaultConfig:
	// Handoff's bounded barging with Go's sync.Mutex starvation threshold
	// (starvationThresholdNs in sync/mutex.go).
	DefaultStarvation = time.Millisecond
	// MaxStarvation bounds Config.Starvation.
	MaxStarvation = time.Second
)

// Config holds the settings shared by every policy; each policy reads the fields
// it needs and ignores the rest. The zero Config is valid: no limit (every thread
// is admitted and nothing shared is touched), tickets DefaultTickets, no sleep, no
// adaptive sleep, FIFO order, strict handoff. DefaultConfig gives InnoDB's
// defaults instead, and Handoff's bounded barging.
type Config struct {
	// Limit is how many threads may be inside at once, as innodb_thread_concurrency:
	// 0..1000, 0 = unlimited (the check is off and no shared state is touched).
	Limit int
	// Tickets is how many further enters a thread makes without touching the gate
	// once it has a seat, as innodb_concurrency_tickets: 1..4294967295; 0 selects
	// DefaultTickets. Read by Queue, Atomic, Semaphore and Handoff.
	Tickets int64
	// SleepDelay is how long a thread sleeps before it queues (Queue, once, and
	// only if it holds no locks) or the starting sleep of the retry loop (Atomic),
	// as innodb_thread_sleep_delay: 0..1 s; 0 = no sleep (Queue still releases and
	// re-takes the gate mutex once, as MySQL 5.5 did).
	SleepDelay time.Duration
	// AdaptiveMaxSleepDelay caps Atomic's adaptive sleep delay, as
	// innodb_adaptive_max_sleep_delay: 0..1 s; 0 turns adaptation off. Atomic
	// keeps the delay in whole microseconds, as InnoDB does.
	AdaptiveMaxSleepDelay time.Duration
	// Priority selects Handoff's wait order: FIFO (default), ByHint or Auto.
	Priority PriorityMode
	// Kickup is how long a low-class waiter waits before it moves to the high
	// queue (Handoff with Priority ByHint or Auto), as MariaDB's
	// thread_pool_prio_kickup_timer: 0..2^32-1 ms; 0 selects DefaultKickup.
	// It moves at the first enter or exit that finds it so, to its place by
	// waiting time (ahead of high waiters that queued after it); with
	// Starvation > 0 it is then served strictly, as a starving waiter is.
	Kickup time.Duration
	// Starvation turns on bounded barging in Handoff: 0..1 s; DefaultConfig
	// sets DefaultStarvation (1 ms); 0 (the zero Config's) selects strict
	// handoff, in which every seat freed while threads wait
	// goes straight to the next waiter. With Starvation > 0 a freed seat goes
	// to whichever thread takes it first, an entering thread included, and an
	// exit wakes one waiter to compete for it and yields its P to it
	// (runtime.Gosched), so that the waiter runs while the seat is free; but
	// an exit that finds the waiter next in line (or one woken to compete that
	// has not run yet) waiting Starvation or longer hands its seat strictly to
	// that waiter, and yields likewise, so
	// no admitted wait exceeds Starvation by more than the time to the next
	// exit, whenever the woken goroutine runs (Go's sync.Mutex uses 1 ms for
	// its starvation mode). Barging saves the park and wake that strict
	// handoff costs on every enter once the gate is full (see the package
	// doc), and gives up strict order below the bound.
	Starvation time.Duration
	// LockHolderAllowance is how many threads that hold locks
	// (Thread.HoldsLocks) Handoff admits beyond Limit, past the queue, so that
	// a lock holder is never kept out by threads inside that wait for its
	// locks (MariaDB's and Percona's thread pools let such work exceed the
	// limit likewise): 0..1000, 0 (the default) = none. Queue, Atomic and
	// Semaphore ignore it. Stats.LockHolderBypasses counts its admissions.
	LockHolderAllowance int
}

// DefaultConfig returns InnoDB's defaults (MySQL 5.6–8.0) with the given limit:
// tickets 5000, sleep delay 10 ms, adaptive max sleep delay 150 ms, FIFO order;
// and Handoff's bounded barging with Starvation DefaultStarvation (1 ms) (see
// the package doc). Set Starvation to 0 for strict handoff.
func DefaultConfig(limit int) Config {
	return Config{
		Limit:                 limit,
		Tickets:               DefaultTickets,
		SleepDelay:            DefaultSleepDelay,
		AdaptiveMaxSleepDelay: DefaultAdaptiveMaxSleepDelay,
		Starvation:            DefaultStarvation,
	}
}

// Validate reports the first field out of its range, as every constructor
// would: the error wraps ErrInvalidConfig and names the field and the range.
func (c Config) Validate() error {
	_, err := c.validate()
	return err
}

// validate checks every field against its range and returns the config with
// defaults filled in. The error wraps ErrInvalidConfig and names the field.
func (c Config) validate() (Config, error) {
	if err := checkLimit(c.Limit); err != nil {
		return c, err
	}
	if c.Tickets < 0 || c.Tickets > MaxTickets {
		return c, fmt.Errorf("concurrency: Tickets = %d, want 1..%d (0 = default %d): %w",
			c.Tickets, int64(MaxTickets), DefaultTickets, ErrInvalidConfig)
	}
	if c.Tickets == 0 {
		c.Tickets = DefaultTickets
	}
	if c.SleepDelay < 0 || c.SleepDelay > MaxSleepDelay {
		return c, fmt.Errorf("concurrency: SleepDelay = %v, want 0..1s: %w", c.SleepDelay, ErrInvalidConfig)
	}
	if c.AdaptiveMaxSleepDelay < 0 || c.AdaptiveMaxSleepDelay > MaxSleepDelay {
		return c, fmt.Errorf("concurrency: AdaptiveMaxSleepDelay = %v, want 0..1s: %w",
			c.AdaptiveMaxSleepDelay, ErrInvalidConfig)
	}
	if !c.Priority.valid() {
		return c, fmt.Errorf("concurrency: Priority = %d, want FIFO, ByHint or Auto: %w", c.Priority, ErrInvalidConfig)
	}
	if c.Kickup < 0 || c.Kickup > MaxKickup {
		return c, fmt.Errorf("concurrency: Kickup = %v, want 0..%v: %w", c.Kickup, MaxKickup, ErrInvalidConfig)
	}
	if c.Kickup == 0 {
		c.Kickup = DefaultKickup
	}
	if c.Starvation < 0 || c.Starvation > MaxStarvation {
		return c, fmt.Errorf("concurrency: Starvation = %v, want 0..1s (0 = strict handoff): %w",
			c.Starvation, ErrInvalidConfig)
	}
	if c.LockHolderAllowance < 0 || c.LockHolderAllowance > MaxLimit {
		return c, fmt.Errorf("concurrency: LockHolderAllowance = %d, want 0..%d: %w",
			c.LockHolderAllowance, MaxLimit, ErrInvalidConfig)
	}
	return c, nil
}

func checkLimit(n int) error {
	if n < 0 || n > MaxLimit {
		return fmt.Errorf("concurrency: Limit = %d, want 0..%d: %w", n, MaxLimit, ErrInvalidConfig)
	}
	return nil
}
