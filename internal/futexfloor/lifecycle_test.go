package futexfloor_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/innosim/innosim/internal/futexfloor"
	"github.com/stretchr/testify/require"
)

// osThreads counts this process's threads, Go's and C's.
func osThreads(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	require.NoError(t, err)
	return len(ents)
}

// TestStartCloseCyclesLeaveNoThread starts, runs and closes pools of every
// shape many times: afterwards the process has no more threads than before
// (the submitter threads of each Run are joined, the handler threads by
// Close), and a closed pool refuses Run and accepts another Close.
func TestStartCloseCyclesLeaveNoThread(t *testing.T) {
	if !futexfloor.Supported() || runtime.GOOS != "linux" {
		t.Skip("needs Linux and cgo")
	}
	for _, tc := range []struct {
		name                      string
		submitters, handlers, ops int
	}{
		{"64 submitters on 1 handler", 64, 1, 640},
		{"1 submitter on 64 handlers", 1, 64, 64},
		{"64 on 64", 64, 64, 64},
		{"zero ops", 3, 3, 0},
		{"fewer ops than submitters", 8, 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := osThreads(t)
			for range 20 {
				p, err := futexfloor.Start(tc.submitters, tc.handlers)
				require.NoError(t, err)
				r, err := p.Run(tc.ops)
				require.NoError(t, err)
				require.Equal(t, uint64(tc.ops), r.Completed)
				require.NoError(t, p.Close())
				require.NoError(t, p.Close(), "a second Close does nothing")
				_, err = p.Run(1)
				require.ErrorContains(t, err, "closed")
			}
			require.Zero(t, handlerThreads(t), "handler threads left")
			// Go may have started threads of its own meanwhile (at most a
			// few, never one per pool); the C threads are all joined.
			require.LessOrEqual(t, osThreads(t), before+4,
				fmt.Sprintf("threads: %d before 20 pools of %d+%d", before, tc.submitters, tc.handlers))
		})
	}
}

// TestZeroPoolIsClosed: a Pool not made by Start refuses Run and closes
// quietly.
func TestZeroPoolIsClosed(t *testing.T) {
	var p futexfloor.Pool
	_, err := p.Run(1)
	require.Error(t, err)
	require.NoError(t, p.Close())
}

// TestRunCountsOnlyItsOwnRequests: runs of different sizes, zero among them,
// on one pool each report their own requests, not the pool's total.
func TestRunCountsOnlyItsOwnRequests(t *testing.T) {
	if !futexfloor.Supported() {
		t.Skip("needs Linux and cgo")
	}
	p, err := futexfloor.Start(2, 3)
	require.NoError(t, err)
	defer p.Close()
	for _, ops := range []int{5, 0, 1, 1000, 0} {
		r, err := p.Run(ops)
		require.NoError(t, err)
		require.Equal(t, uint64(ops), r.Completed, "ops=%d", ops)
	}
}
