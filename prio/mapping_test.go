package prio_test

import (
	"errors"
	"testing"

	"github.com/innosim/innosim/prio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHintMappings(t *testing.T) {
	tests := []struct {
		hint      prio.Hint
		nice      int
		weight    int
		tsLevel   int
		legacy    int
		hasLegacy bool
		legacyTS  int
	}{
		{prio.Idle, 19, 15, 0, 0, false, 29},
		{prio.Low, 19, 15, 0, 0, false, 29},
		{prio.Background, 10, 110, 0, 0, false, 29},
		{prio.Wait, 0, 1024, 29, 8, true, 37},
		{prio.Normal, 0, 1024, 29, 0, false, 29},
		{prio.Query, -5, 3121, 44, 6, true, 35},
		{prio.Connect, -10, 9548, 59, 9, true, 38},
		{prio.High, -20, 88761, 59, 0, false, 29},
		{prio.Interrupt, -20, 88761, 59, 10, true, 39},
	}
	for _, tt := range tests {
		t.Run(tt.hint.String(), func(t *testing.T) {
			assert.Equal(t, tt.nice, tt.hint.Nice(), "nice")
			assert.Equal(t, tt.weight, tt.hint.Weight(), "CFS weight")
			assert.Equal(t, tt.tsLevel, tt.hint.TSLevel(), "TS level")
			p, ok := tt.hint.LegacyPriority()
			assert.Equal(t, tt.hasLegacy, ok, "has a MySQL 5.1 priority")
			assert.Equal(t, tt.legacy, p, "MySQL 5.1 priority")
			assert.Equal(t, tt.legacyTS, tt.hint.LegacyTSLevel(), "TS level of the MySQL priority")
		})
	}
}

func TestHintOrderIsMonotonic(t *testing.T) {
	for h := prio.Idle; h < prio.Interrupt; h++ {
		next := h + 1
		assert.GreaterOrEqual(t, h.Nice(), next.Nice(), "%v is not less favoured than %v", h, next)
		assert.LessOrEqual(t, h.TSLevel(), next.TSLevel(), "%v TS level above %v", h, next)
	}
}

func TestOutOfRangeHintsClampToTheEnds(t *testing.T) {
	assert.Equal(t, prio.Idle.Nice(), prio.Hint(-100).Nice())
	assert.Equal(t, prio.Interrupt.Nice(), prio.Hint(100).Nice())
	assert.Equal(t, "hint(100)", prio.Hint(100).String())
	assert.False(t, prio.Hint(100).Valid())
}

func TestWeightOfNiceFollowsTheKernelTable(t *testing.T) {
	w0, err := prio.WeightOfNice(0)
	require.NoError(t, err)
	assert.Equal(t, 1024, w0, "nice 0")
	prev, err := prio.WeightOfNice(prio.MinNice)
	require.NoError(t, err)
	assert.Equal(t, 88761, prev, "nice -20")
	for n := prio.MinNice + 1; n <= prio.MaxNice; n++ {
		w, err := prio.WeightOfNice(n)
		require.NoError(t, err)
		ratio := float64(prev) / float64(w)
		assert.InDelta(t, 1.25, ratio, 0.06, "weight(%d)/weight(%d)", n-1, n)
		prev = w
	}
	assert.Equal(t, 15, prev, "nice 19")
	assert.Less(t, prio.IdleWeight, prev, "SCHED_IDLE weighs less than nice 19")
}

func TestWeightOfNiceRejectsOutOfRange(t *testing.T) {
	tests := []struct {
		name string
		nice int
	}{
		{"below -20", -21},
		{"above 19", 20},
		{"far out", 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := prio.WeightOfNice(tt.nice)
			require.Error(t, err)
			assert.True(t, errors.Is(err, prio.ErrInvalidConfig))
			assert.Contains(t, err.Error(), "-20..19")
		})
	}
}
