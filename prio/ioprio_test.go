package prio_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/innosim/innosim/prio"
)

func TestHintIOPrio(t *testing.T) {
	tests := []struct {
		hint prio.Hint
		want string
	}{
		{prio.Idle, "idle"},
		{prio.Low, "idle"},
		{prio.Background, "be/7"},
		{prio.Wait, "none"},
		{prio.Normal, "none"},
		{prio.Query, "be/3"},
		{prio.Connect, "be/2"},
		{prio.High, "be/0"},
		{prio.Interrupt, "be/0"},
		{prio.Idle - 3, "idle"},
		{prio.Interrupt + 9, "be/0"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.hint.IOPrio().String(), "%s", tt.hint)
	}
	// More urgent hints never get a worse priority: a lower class number
	// (RT 1 < BE 2 < IDLE 3, none counting as BE 4), then a lower level.
	rank := func(p prio.IOPrio) int {
		if p.Class() == prio.IOClassNone {
			return int(prio.IOClassBE)*8 + 4
		}
		return int(p.Class())*8 + p.Level()
	}
	for h := prio.Idle; h < prio.Interrupt; h++ {
		require.GreaterOrEqual(t, rank(h.IOPrio()), rank((h + 1).IOPrio()), "%s vs %s", h, h+1)
	}
}

func TestMakeIOPrio(t *testing.T) {
	p, err := prio.MakeIOPrio(prio.IOClassBE, 5)
	require.NoError(t, err)
	require.Equal(t, prio.IOClassBE, p.Class())
	require.Equal(t, 5, p.Level())
	require.Equal(t, prio.IOPrio(2<<13|5), p, "IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 5)")
	for _, c := range []struct {
		class prio.IOClass
		level int
	}{{prio.IOClassBE, 8}, {prio.IOClassRT, -1}, {prio.IOClassIdle, 1}, {prio.IOClassNone, 3}, {9, 0}} {
		_, err := prio.MakeIOPrio(c.class, c.level)
		require.ErrorIs(t, err, prio.ErrInvalidConfig, "class %d level %d", c.class, c.level)
	}
}
