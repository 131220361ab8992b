package futexfloor

import (
	"errors"
	"fmt"
	"time"
)

// ErrUnsupported is returned by Start where the floor cannot run: not Linux, or
// built without cgo.
var ErrUnsupported = errors.New("futexfloor: needs Linux and cgo")

// ErrInvalidConfig is wrapped by Start's and Run's range errors.
var ErrInvalidConfig = errors.New("invalid config")

// Limits on Start's arguments.
const (
	MaxSubmitters = 64
	MaxHandlers   = 64
)

// Result is one Run.
type Result struct {
	// Elapsed is the wall time from the first submitter's start to the last
	// one's end.
	Elapsed time.Duration
	// Completed is the number of requests the handlers served: Run's ops.
	Completed uint64
	// HandlerFutexCalls is the FUTEX_WAIT and FUTEX_WAKE calls made on the
	// handlers' events (BenchmarkAIOWake's futex/op counts these);
	// SubmitterFutexCalls the same on the submitters' completion events.
	HandlerFutexCalls, SubmitterFutexCalls uint64
}

func checkStart(submitters, handlers int) error {
	if submitters < 1 || submitters > MaxSubmitters {
		return fmt.Errorf("futexfloor: submitters = %d, want 1..%d: %w", submitters, MaxSubmitters, ErrInvalidConfig)
	}
	if handlers < 1 || handlers > MaxHandlers {
		return fmt.Errorf("futexfloor: handlers = %d, want 1..%d: %w", handlers, MaxHandlers, ErrInvalidConfig)
	}
	return nil
}

func checkOps(ops int) error {
	if ops < 0 {
		return fmt.Errorf("futexfloor: ops = %d, want 0 or more: %w", ops, ErrInvalidConfig)
	}
	return nil
}
