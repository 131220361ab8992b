package futexfloor_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/innosim/innosim/internal/futexfloor"
	"github.com/stretchr/testify/require"
)

func TestRunServesEveryRequestOnce(t *testing.T) {
	if !futexfloor.Supported() {
		t.Skip("needs Linux and cgo")
	}
	for _, tc := range []struct{ submitters, handlers, ops int }{
		{4, 4, 2000}, {4, 64, 2000}, {1, 1, 300}, {3, 5, 7}, {64, 2, 500}, {4, 4, 0},
	} {
		t.Run(fmt.Sprintf("submitters=%d/handlers=%d/ops=%d", tc.submitters, tc.handlers, tc.ops), func(t *testing.T) {
			p, err := futexfloor.Start(tc.submitters, tc.handlers)
			require.NoError(t, err)
			defer p.Close()
			for range 2 { // the second Run counts only its own requests
				r, err := p.Run(tc.ops)
				require.NoError(t, err)
				require.Equal(t, uint64(tc.ops), r.Completed)
				require.Positive(t, r.Elapsed)
				// A bound that a thread spinning on its futex breaks. Each
				// request sets each side's event once, and a set costs at most
				// three calls on it: its FUTEX_WAKE; the FUTEX_WAIT its store
				// turned into EAGAIN; and, when the setter is preempted between
				// reading the waiter count and its FUTEX_WAKE, the waiter's next
				// FUTEX_WAIT, which that late wake ends at once. Two calls per
				// thread come on top: a wait or late wake begun in the previous
				// Run (or the first sleep) and counted in this one. (The bound
				// of two per request failed, rarely, on a loaded machine: 15
				// submitter calls for 7 requests.)
				require.LessOrEqual(t, r.HandlerFutexCalls, uint64(3*tc.ops+2*tc.handlers))
				require.LessOrEqual(t, r.SubmitterFutexCalls, uint64(3*tc.ops+2*tc.submitters))
			}
		})
	}
}

// TestHandlersSleepOnFutexes checks that the floor measures what it claims: with
// more handlers than submitters a handler is idle between its requests, so
// nearly every request is a FUTEX_WAKE of a sleeping handler.
func TestHandlersSleepOnFutexes(t *testing.T) {
	if !futexfloor.Supported() {
		t.Skip("needs Linux and cgo")
	}
	p, err := futexfloor.Start(1, 2)
	require.NoError(t, err)
	defer p.Close()
	const ops = 200
	r, err := p.Run(ops)
	require.NoError(t, err)
	// One submitter alternates between two handlers: each request finds its
	// handler asleep (it was served the one before last and has gone back to
	// FUTEX_WAIT while the other handler worked), unless it had not yet gone
	// to sleep; most must.
	require.Greater(t, r.HandlerFutexCalls, uint64(ops), "handlers did not sleep on their futexes")
}

func TestCloseEndsTheThreads(t *testing.T) {
	if !futexfloor.Supported() || runtime.GOOS != "linux" {
		t.Skip("needs Linux and cgo")
	}
	require.Zero(t, handlerThreads(t))
	p, err := futexfloor.Start(4, 16)
	require.NoError(t, err)
	require.Equal(t, 16, handlerThreads(t))
	_, err = p.Run(100)
	require.NoError(t, err)
	require.NoError(t, p.Close())
	require.NoError(t, p.Close(), "a second Close does nothing")
	require.Eventually(t, func() bool { return handlerThreads(t) == 0 }, 5*time.Second, time.Millisecond)
	_, err = p.Run(1)
	require.ErrorContains(t, err, "closed")
}

func TestStartAndRunRefuseOutOfRange(t *testing.T) {
	for _, tc := range []struct {
		submitters, handlers int
		want                 string
	}{
		{0, 4, "submitters = 0, want 1..64"},
		{65, 4, "submitters = 65, want 1..64"},
		{4, 0, "handlers = 0, want 1..64"},
		{4, 65, "handlers = 65, want 1..64"},
	} {
		_, err := futexfloor.Start(tc.submitters, tc.handlers)
		require.ErrorIs(t, err, futexfloor.ErrInvalidConfig)
		require.ErrorContains(t, err, tc.want)
	}
	if !futexfloor.Supported() {
		_, err := futexfloor.Start(4, 4)
		require.ErrorIs(t, err, futexfloor.ErrUnsupported)
		return
	}
	p, err := futexfloor.Start(1, 1)
	require.NoError(t, err)
	defer p.Close()
	_, err = p.Run(-1)
	require.ErrorIs(t, err, futexfloor.ErrInvalidConfig)
	require.ErrorContains(t, err, "ops = -1")
}

// handlerThreads counts this process's threads named by Start.
func handlerThreads(t *testing.T) int {
	t.Helper()
	comms, err := filepath.Glob("/proc/self/task/*/comm")
	require.NoError(t, err)
	n := 0
	for _, c := range comms {
		b, err := os.ReadFile(c)
		if err != nil {
			continue // a thread that ended while we looked
		}
		if strings.TrimSpace(string(b)) == "ff-handler" {
			n++
		}
	}
	return n
}
