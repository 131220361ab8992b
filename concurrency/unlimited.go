package concurrency

import "context"

// Unlimited is innodb_thread_concurrency = 0: every thread is admitted at once and
// nothing shared is touched (innobase_srv_conc_enter_innodb returns before
// srv_conc_enter_innodb). It is the floor every other policy is measured
// against. The zero value is ready to use; Stats is always zero.
type Unlimited struct{}

var _ Gate = Unlimited{}

// Enter admits t at once. It never fails.
func (Unlimited) Enter(context.Context, *Thread) error { return nil }

// TryEnter admits t at once: it always reports true.
func (Unlimited) TryEnter(*Thread) bool { return true }

// Exit does nothing.
func (Unlimited) Exit(*Thread) {}

// ForceExit does nothing.
func (Unlimited) ForceExit(*Thread) {}

// ForceEnter does nothing.
func (Unlimited) ForceEnter(*Thread) {}

// SetLimit accepts only 0; a limit outside 0..MaxLimit returns an error
// wrapping ErrInvalidConfig, any other value an error wrapping
// errors.ErrUnsupported (use Queue, Atomic or Handoff with limit 0 for a gate
// that can be turned on later).
func (Unlimited) SetLimit(n int) error {
	if err := checkLimit(n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	return errFixedLimit("unlimited")
}

// Limit returns 0.
func (Unlimited) Limit() int { return 0 }

// Stats returns the zero Stats: Unlimited counts nothing.
func (Unlimited) Stats() Stats { return Stats{} }
