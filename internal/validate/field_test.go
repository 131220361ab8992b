package validate

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/sim"
)

// Bug 52806's comparison of wake one and wake all is void unless the
// mutex's waiters sleep: both cells must switch at least 10 times per 1,000
// units, and the table must say so in a passing check.
func TestBug52806WaitersSleepInBothSettings(t *testing.T) {
	fc := bug52806()
	cells, err := fc.cells()
	if err != nil {
		t.Fatal(err)
	}
	for i := range cells {
		cells[i].Machine.Seed = uint64(7 + i)
	}
	res, err := sim.RunCells(context.Background(), cells, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if s := switchesPer1000(r); s < 10 {
			t.Errorf("%s: %.1f switches per 1,000 units, want ≥ 10 (the mutex's waiters never sleep)", cells[i].Workload, s)
		}
	}
	tb := fc.table(res)
	if len(tb.Checks) == 0 || !tb.Checks[0].Pass {
		t.Errorf("first check = %+v, want the passing sleep check", tb.Checks)
	}
}

// validate's progress line read "13 of 14 cells" and then "14 of 18": the
// second stage's cells joined the total only as it started. The total is
// every stage's cells from the first call on, and done reaches it.
func TestFieldCasesProgressKnowsItsTotalFromTheStart(t *testing.T) {
	var mu sync.Mutex
	var totals []int
	last := 0
	_, err := FieldCases(Quick(context.Background()), 1, func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		totals = append(totals, total)
		last = done
	})
	require.NoError(t, err)
	require.NotEmpty(t, totals)
	for _, n := range totals {
		assert.Equal(t, totals[0], n, "the total never changes")
	}
	assert.Equal(t, totals[0], last, "every cell counted")
}
