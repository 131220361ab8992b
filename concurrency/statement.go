package concurrency

import "context"

// Statement runs fn as one statement inside g: Enter, fn, then ForceExit,
// whatever fn returns and if it panics. It returns Enter's error (fn is not
// run) or fn's.
//
// It is the safe way to end a statement. Exit is not a release: with tickets
// left the thread keeps its seat, as InnoDB keeps it between the rows of a
// statement, and a Thread dropped while inside takes its seat with it. InnoDB
// gives the seat back when the statement ends (innobase_srv_conc_force_exit_innodb,
// from ha_innobase::external_lock and the commit path); Statement does the
// same. Within fn, per-row Enter and Exit on the same t spend tickets as
// InnoDB's row calls do.
//
// A Statement on a Thread that is already inside (a nested statement, or one
// whose caller entered by hand) runs fn on the seat t holds and leaves it
// held: the seat belongs to whoever took it, as InnoDB's force-exit is the
// end of the outermost statement only. Otherwise a nested Statement's
// ForceExit would give the outer statement's seat away while it still runs.
// A seat of another gate is not g's: g refuses the Thread as its Enter does
// (ErrThreadOfOtherGate; Unlimited, which counts no seats, admits it) and fn
// does not run.
func Statement(ctx context.Context, g Gate, t *Thread, fn func() error) error {
	if t.Inside() && t.gate == g {
		return fn()
	}
	if err := g.Enter(ctx, t); err != nil {
		return err
	}
	defer g.ForceExit(t)
	return fn()
}

// WaitOutside runs wait — a row-lock wait, or any wait on another thread —
// with t outside g: if t holds a seat it gives it back first (ForceExit) and
// takes one back afterwards regardless of the limit (ForceEnter, with one
// ticket), as lock_wait_suspend_thread does around a lock wait with
// srv_conc_force_exit_innodb and srv_conc_force_enter_innodb. Threads inside
// that wait for a lock can then never keep its holder out of a full gate. If t
// holds no seat, wait simply runs. It returns wait's error; the seat is taken
// back even if wait panics. A seat of another gate is refused as Statement
// refuses it (ErrThreadOfOtherGate; Unlimited runs wait), and wait does not
// run.
func WaitOutside(g Gate, t *Thread, wait func() error) error {
	if !t.Inside() {
		return wait()
	}
	if t.gate != g && !countsNoSeats(g) {
		return errOtherGate("WaitOutside")
	}
	g.ForceExit(t)
	defer g.ForceEnter(t)
	return wait()
}

// countsNoSeats reports whether g is Unlimited, which ignores whose seat a
// Thread holds.
func countsNoSeats(g Gate) bool {
	switch g.(type) {
	case Unlimited, *Unlimited:
		return true
	}
	return false
}
