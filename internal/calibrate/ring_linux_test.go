//go:build linux

package calibrate

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// An unpinned ring on an idle VM measured wakes onto halted vCPUs, not the
// switches the model charges on one core.
func TestRingSwitchRunsEveryThreadOnOneCPU(t *testing.T) {
	cpus, err := pinnedCPUs(1)
	if err != nil {
		t.Skip("no futex or no affinity here")
	}
	var mu sync.Mutex
	seen := map[string]int{}
	ringThreadHook = func() { // on a ring thread: no FailNow here, which would leave the ring short
		var set unix.CPUSet
		got := "no affinity"
		if err := unix.SchedGetaffinity(0, &set); err == nil {
			got = fmt.Sprint(set.Count(), set.IsSet(cpus[0]))
		}
		mu.Lock()
		defer mu.Unlock()
		seen[got]++
	}
	defer func() { ringThreadHook = nil }()
	_, err = ringSwitch(16, 0, 50)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"1 true": 16}, seen, "every ring thread allowed exactly the first CPU")
}
