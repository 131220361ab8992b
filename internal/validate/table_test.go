package validate

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAbsLogIsSymmetricInFactorAndInfiniteForAZero(t *testing.T) {
	assert.InDelta(t, math.Log(2), Row{Published: 100, Simulated: 200}.AbsLog(), 1e-12)
	assert.InDelta(t, math.Log(2), Row{Published: 100, Simulated: 50}.AbsLog(), 1e-12)
	assert.Equal(t, 0.0, Row{Published: 3, Simulated: 3}.AbsLog())
	assert.True(t, math.IsInf(Row{Published: 3, Simulated: 0}.AbsLog(), 1), "a simulated zero is infinitely wrong")
	assert.True(t, math.IsNaN(Row{Simulated: 3}.AbsLog()), "no published figure: no error")
}

func TestSummaryCountsSidesMeanAndWorstOverPublishedCellsOnly(t *testing.T) {
	tb := Table{Ratio: true, Rows: []Row{
		{Label: "a", Published: 2, Simulated: 4},   // same side, log 2
		{Label: "b", Published: 0.5, Simulated: 2}, // other side, log 4
		{Label: "c", Published: 1, Simulated: 1.5}, // no side, log 1.5
		{Label: "d", Simulated: 9},                 // no published figure
	}}
	s := tb.Summary()
	assert.Equal(t, 3, s.Cells)
	assert.Equal(t, 1, s.SameSide)
	assert.Equal(t, 2, s.Sided)
	assert.InDelta(t, (math.Log(2)+math.Log(4)+math.Log(1.5))/3, s.MeanAbsLog, 1e-12)
	assert.Equal(t, "b", s.Worst.Label)
	assert.InDelta(t, math.Log(4), s.WorstAbsLog, 1e-12)
}

func TestSummaryOfATableWithoutFiguresIsEmpty(t *testing.T) {
	s := Table{Rows: []Row{{Label: "x", Simulated: 1}}}.Summary()
	assert.Equal(t, 0, s.Cells)
	assert.True(t, math.IsNaN(s.MeanAbsLog))
	s = Table{Missing: "no model", Rows: []Row{{Label: "x", Published: 1}}}.Summary()
	assert.Equal(t, 0, s.Cells, "a missing table has no simulated cells to measure")
}

func TestMiss(t *testing.T) {
	within := []Row{{Label: "a", Published: 100, Simulated: 140}}
	outside := []Row{{Label: "a", Published: 100, Simulated: 160}}
	for _, c := range []struct {
		name string
		t    Table
		miss bool
		why  string
	}{
		{"a predicted table within its bound holds", Table{Rows: within, MaxAbsLog: math.Log(1.5)}, false, ""},
		{"a predicted table outside its bound misses", Table{Rows: outside, MaxAbsLog: math.Log(1.5)}, true, "worst cell a off by ×1.60, bound ×1.50"},
		{"a fitted table outside any bound never misses", Table{Use: Fitted, Rows: outside, MaxAbsLog: math.Log(1.5)}, false, ""},
		{"a predicted table with a failed check misses", Table{Checks: []Check{{Name: "capped", Pass: false}}}, true, "capped"},
		{"a predicted table not modelled misses", Table{Missing: "no device"}, true, "not modelled: no device"},
		{"a zero simulated cell misses any bound", Table{Rows: []Row{{Label: "z", Published: 1}}, MaxAbsLog: 10}, true, "worst cell z off by ×inf, bound ×22026.47"},
	} {
		t.Run(c.name, func(t *testing.T) {
			miss, why := c.t.Miss()
			assert.Equal(t, c.miss, miss)
			assert.Equal(t, c.why, why)
		})
	}
}

func TestWriteReportsAMissOnlyForPredictedTables(t *testing.T) {
	var b bytes.Buffer
	missed, err := Write(&b, []Table{{Name: "fit", Use: Fitted, Ratio: true, Rows: []Row{{Label: "x", Published: 2, Simulated: 0.5}}}})
	require.NoError(t, err)
	assert.False(t, missed)
	assert.Contains(t, b.String(), "same side of 1.0 0/1")

	b.Reset()
	missed, err = Write(&b, []Table{{Name: "pred", Rows: []Row{{Label: "x", Published: 2, Simulated: 0.5}}, MaxAbsLog: math.Log(1.5)}})
	require.NoError(t, err)
	assert.True(t, missed)
	last := strings.Split(strings.TrimSpace(b.String()), "\n")
	assert.Contains(t, last[len(last)-1], "MISS")
}
